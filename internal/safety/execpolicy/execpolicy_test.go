package execpolicy

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func parse(t *testing.T, src string) (*Policy, error) {
	t.Helper()
	p := NewParser()
	if err := p.Parse("test.rules", []byte(src)); err != nil {
		return nil, err
	}
	return p.Policy(), nil
}

func mustParse(t *testing.T, src string) *Policy {
	t.Helper()
	p, err := parse(t, src)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return p
}

func TestParseErrorsNameFileAndLine(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"failing match example", "prefix_rule(pattern=[\"ls\"])\n\nprefix_rule(\n  pattern=[\"git\", \"status\"],\n  match=[[\"git\",\"log\"]],\n)\n",
			`test.rules:3: expected every example to match at least one rule. rules: ["prefix_rule(pattern=[\"git\", \"status\"], decision=\"allow\")"]; unmatched examples: ["git log"]`},
		{"failing not_match example", "\nprefix_rule(pattern=[\"git\"], not_match=[\"git status\"])\n",
			"test.rules:2: expected example to not match rule `prefix_rule(pattern=[\"git\"], decision=\"allow\")`: git status"},
		{"bad decision", `prefix_rule(pattern=["git"], decision="maybe")`, "test.rules:1: invalid decision: maybe"},
		{"syntax error", "prefix_rule(pattern=[\"git\"]\n", "test.rules:2: got end of file, want ')'"},
		{"empty pattern", `prefix_rule(pattern=[])`, "test.rules:1: invalid pattern element: pattern cannot be empty"},
		{"empty alternatives", `prefix_rule(pattern=["a", []])`, "test.rules:1: invalid pattern element: pattern alternatives cannot be empty"},
		{"non-string pattern element", `prefix_rule(pattern=["a", 1])`, "test.rules:1: invalid pattern element: pattern element must be a string or list of strings (got int)"},
		{"blank justification", "x = 1\nprefix_rule(pattern=[\"a\"], justification=\"  \")", "test.rules:2: invalid rule: justification cannot be empty"},
		{"unknown function", "\nfoo()\n", "test.rules:2: undefined: foo"},
		{"missing pattern", `prefix_rule(decision="allow")`, "test.rules:1: prefix_rule: missing argument for pattern"},
		{"bad example", `prefix_rule(pattern=["a"], match=["a 'b"])`, "test.rules:1: invalid example: example string has invalid shell syntax"},
		{"empty example", `prefix_rule(pattern=["a"], match=[[]])`, "test.rules:1: invalid example: example cannot be an empty list"},
		{"host_executable basename", `host_executable(name="git", paths=["/usr/bin/gitx"])`, "test.rules:1: invalid rule: host_executable path `/usr/bin/gitx` must have basename `git`"},
		{"host_executable relative", `host_executable(name="git", paths=["bin/git"])`, "test.rules:1: invalid rule: host_executable paths must be absolute or use `~/...` home-relative syntax (got bin/git)"},
		{"host_executable name", `host_executable(name="a/git", paths=[])`, "test.rules:1: invalid rule: host_executable name must be a bare executable name (got a/git)"},
		{"network decision", `network_rule(host="x.com", protocol="https", decision="maybe")`, "test.rules:1: invalid decision: maybe"},
		{"runaway loop", "def f():\n    while True:\n        pass\nf()\n", "test.rules:1: Starlark computation cancelled: too many steps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, tt.src)
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v, want a *LoadError", err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestLoadErrorDisplay(t *testing.T) {
	tests := []struct {
		src  string
		want string
	}{
		// Codex 0.169 prints, for the first two: "bad.rules:3: error: invalid decision: maybe
		// (problem is on or around line 3)" and "bad.rules:2: expected every example …".
		{"prefix_rule(pattern=[\"ls\"])\n\nprefix_rule(pattern=[\"git\"], decision=\"maybe\")\n",
			"Error loading rules:\nbad.rules:3: error: invalid decision: maybe (problem is on or around line 3)"},
		{"\nprefix_rule(\n  pattern=[\"git\", \"status\"],\n  match=[[\"git\",\"log\"]],\n)\n",
			"Error loading rules:\nbad.rules:2: expected every example to match at least one rule. rules: [\"prefix_rule(pattern=[\\\"git\\\", \\\"status\\\"], decision=\\\"allow\\\")\"]; unmatched examples: [\"git log\"] (problem is on or around line 2)"},
		{"prefix_rule(pattern=[\"git\"]\n",
			"Error loading rules:\nbad.rules:2: starlark error: error: Parse error: got end of file, want ')' (problem is on or around line 2)"},
	}
	for _, tt := range tests {
		err := NewParser().Parse("bad.rules", []byte(tt.src))
		if got := StartupMessage(err); got != tt.want {
			t.Errorf("StartupMessage:\n got %s\nwant %s", got, tt.want)
		}
	}
}

func TestParseAccepts(t *testing.T) {
	src := `
# Comments, variables and loops are plain Starlark.
READ_ONLY = ["status", "log", "diff"]
prefix_rule(pattern=["git", READ_ONLY], match=["git status", ["git", "log", "-1"]], not_match=["git push"])
for tool in ["npm", "pnpm"]:
    prefix_rule(pattern=[tool, "install"], decision="prompt", justification="installs packages")
prefix_rule(["rm"], "forbidden")
host_executable(name="git", paths=["/usr/bin/git", "~/bin/git", "/usr/bin/git"])
network_rule(host=" Example.COM ", protocol="https", decision="deny", justification="no")
network_rule("api.x.com", "http", "ask")
`
	p := mustParse(t, src)
	var got []string
	for _, r := range p.Rules() {
		got = append(got, fmt.Sprintf("%s %s %q", strings.Join(r.Pattern(), " "), r.Decision, r.Justification))
	}
	want := []string{
		`git [status|log|diff] allow ""`,
		`npm install prompt "installs packages"`,
		`pnpm install prompt "installs packages"`,
		`rm forbidden ""`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	wantNet := []NetworkRule{
		{Host: "example.com", Protocol: "https", Decision: Forbidden, Justification: "no"},
		{Host: "api.x.com", Protocol: "http", Decision: Prompt},
	}
	if diff := cmp.Diff(wantNet, p.NetworkRules()); diff != "" {
		t.Errorf("network rules (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/usr/bin/git", "~/bin/git"}, p.hostExec["git"]); diff != "" {
		t.Errorf("host executables (-want +got):\n%s", diff)
	}
}

func TestMatching(t *testing.T) {
	p := mustParse(t, `
prefix_rule(pattern=["git", ["status", "log"]])
prefix_rule(pattern=["git"], decision="prompt", justification="git is risky")
prefix_rule(pattern=[["rm", "rmdir"]], decision="forbidden")
prefix_rule(pattern=["cargo", "build", "--release"])
host_executable(name="git", paths=["/usr/bin/git"])
`)
	resolve := MatchOptions{ResolveHostExecutables: true}
	tests := []struct {
		cmd      []string
		opts     MatchOptions
		want     []string // "prefix decision [resolved]"
		decision string
	}{
		{[]string{"git", "status", "-s"}, resolve, []string{"git status allow", "git prompt"}, "prompt"},
		{[]string{"git", "log"}, resolve, []string{"git log allow", "git prompt"}, "prompt"},
		{[]string{"git", "push"}, resolve, []string{"git prompt"}, "prompt"},
		{[]string{"git"}, resolve, []string{"git prompt"}, "prompt"},
		{[]string{"rm", "-rf", "x"}, resolve, []string{"rm forbidden"}, "forbidden"},
		{[]string{"rmdir", "x"}, resolve, []string{"rmdir forbidden"}, "forbidden"},
		{[]string{"cargo", "build"}, resolve, nil, ""},
		{[]string{"cargo", "build", "--release", "-v"}, resolve, []string{"cargo build --release allow"}, "allow"},
		{[]string{"ls"}, resolve, nil, ""},
		{[]string{}, resolve, nil, ""},
		// Basename fallback for absolute paths, limited by host_executable.
		{[]string{"/bin/rm", "x"}, resolve, []string{"rm forbidden /bin/rm"}, "forbidden"},
		{[]string{"/bin/rm", "x"}, MatchOptions{}, nil, ""},
		{[]string{"/usr/bin/git", "status"}, resolve, []string{"git status allow /usr/bin/git", "git prompt /usr/bin/git"}, "prompt"},
		{[]string{"/opt/evil/git", "status"}, resolve, nil, ""},
		{[]string{"./rm", "x"}, resolve, nil, ""},
	}
	for _, tt := range tests {
		ev := p.Check([][]string{tt.cmd}, nil, tt.opts)
		var got []string
		for _, m := range ev.MatchedRules {
			s := strings.Join(m.MatchedPrefix, " ") + " " + m.Decision.String()
			if m.ResolvedProgram != "" {
				s += " " + m.ResolvedProgram
			}
			got = append(got, s)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q matches (-want +got):\n%s", tt.cmd, diff)
		}
		gotDecision := ""
		if ev.HasDecision() {
			gotDecision = ev.Decision.String()
		}
		if gotDecision != tt.decision {
			t.Errorf("%q decision = %q, want %q", tt.cmd, gotDecision, tt.decision)
		}
	}
}

func TestCheckStrictestAcrossCommandsWithFallback(t *testing.T) {
	p := mustParse(t, `prefix_rule(pattern=["ls"])`)
	fallback := func(cmd []string) Decision {
		if cmd[0] == "curl" {
			return Prompt
		}
		return Allow
	}
	ev := p.Check([][]string{{"ls"}, {"curl", "x"}, {"pwd"}}, fallback, MatchOptions{})
	if ev.Decision != Prompt {
		t.Errorf("decision = %v, want prompt", ev.Decision)
	}
	want := []RuleMatch{
		{MatchedPrefix: []string{"ls"}, Decision: Allow},
		{Heuristics: true, Command: []string{"curl", "x"}, Decision: Prompt},
		{Heuristics: true, Command: []string{"pwd"}, Decision: Allow},
	}
	if diff := cmp.Diff(want, ev.MatchedRules); diff != "" {
		t.Errorf("matches (-want +got):\n%s", diff)
	}
	if !ev.IsPolicyMatch() {
		t.Error("IsPolicyMatch = false, want true")
	}
}

func TestLoadConfigFolders(t *testing.T) {
	home := t.TempDir()
	project := t.TempDir()
	writeFile(t, filepath.Join(home, "rules", "b.rules"), `prefix_rule(pattern=["b"])`)
	writeFile(t, filepath.Join(home, "rules", "a.rules"), `prefix_rule(pattern=["a"])`)
	writeFile(t, filepath.Join(home, "rules", "notes.txt"), `this is not starlark`)
	writeFile(t, filepath.Join(project, ".codex", "rules", "p.rules"), `prefix_rule(pattern=["p"], decision="forbidden")`)
	if err := os.Mkdir(filepath.Join(home, "rules", "dir.rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := Load(home, []string{filepath.Join(project, ".codex")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p.Rules() {
		got = append(got, r.Program+" "+r.Decision.String()+" "+filepath.Base(r.Source))
	}
	want := []string{"a allow a.rules:1", "b allow b.rules:1", "p forbidden p.rules:1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}

	// No rules folder at all is an empty policy, not an error.
	p, err = Load(t.TempDir(), nil, nil)
	if err != nil || len(p.Rules()) != 0 {
		t.Errorf("Load(empty) = %v, %v; want no rules", p.Rules(), err)
	}

	// A broken file is an error naming the file and the line.
	writeFile(t, filepath.Join(project, ".codex", "rules", "q.rules"), "\n\nprefix_rule(pattern=[\"x\"], match=[\"y\"])\n")
	_, err = Load(home, []string{filepath.Join(project, ".codex")}, nil)
	wantPrefix := filepath.Join(project, ".codex", "rules", "q.rules") + ":3: expected every example"
	if err == nil || !strings.HasPrefix(err.Error(), wantPrefix) {
		t.Errorf("Load(broken) error = %v, want prefix %q", err, wantPrefix)
	}
}

// keep leaves out the project files it refuses (an untrusted session wrote them); the
// user's own rules always load.
func TestLoadKeepsOnlyWhatMayLoad(t *testing.T) {
	home, project := t.TempDir(), filepath.Join(t.TempDir(), ".codex")
	writeFile(t, filepath.Join(home, "rules", "u.rules"), `prefix_rule(pattern=["u"])`)
	writeFile(t, filepath.Join(project, "rules", "ok.rules"), `prefix_rule(pattern=["ok"])`)
	planted := filepath.Join(project, "rules", "planted.rules")
	writeFile(t, planted, `prefix_rule(pattern=["touch"])`)
	p, err := Load(home, []string{project}, func(path string) bool { return path != planted })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p.Rules() {
		got = append(got, r.Program)
	}
	if diff := cmp.Diff([]string{"u", "ok"}, got); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestAppendAllowRule(t *testing.T) {
	home := t.TempDir()
	if err := AppendAllowRule(home, []string{"echo", "Hello, world!"}); err != nil {
		t.Fatal(err)
	}
	path := DefaultRulesPath(home)
	assertFile(t, path, "prefix_rule(pattern=[\"echo\", \"Hello, world!\"], decision=\"allow\")\n")

	// Appending the same rule again is a no-op; a different one goes on its own line.
	if err := AppendAllowRule(home, []string{"echo", "Hello, world!"}); err != nil {
		t.Fatal(err)
	}
	if err := AppendAllowRule(home, []string{"git", "a\"b<c>"}); err != nil {
		t.Fatal(err)
	}
	assertFile(t, path, "prefix_rule(pattern=[\"echo\", \"Hello, world!\"], decision=\"allow\")\n"+
		"prefix_rule(pattern=[\"git\", \"a\\\"b<c>\"], decision=\"allow\")\n")

	// A file without a final newline gets one before the new line.
	if err := os.WriteFile(path, []byte(`prefix_rule(pattern=["ls"], decision="allow")`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AppendAllowRule(home, []string{"pwd"}); err != nil {
		t.Fatal(err)
	}
	assertFile(t, path, "prefix_rule(pattern=[\"ls\"], decision=\"allow\")\nprefix_rule(pattern=[\"pwd\"], decision=\"allow\")\n")

	// What was appended loads back and allows the command.
	p, err := Load(home, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ev := p.Check([][]string{{"pwd", "-P"}}, nil, MatchOptions{}); !ev.HasDecision() || ev.Decision != Allow {
		t.Errorf("pwd after amendment: %+v", ev)
	}

	if err := AppendAllowRule(home, nil); err == nil {
		t.Error("empty prefix: want an error")
	}
}

func TestAppendAllowRuleConcurrent(t *testing.T) {
	home := t.TempDir()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := AppendAllowRule(home, []string{"tool", fmt.Sprint(i % 10)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	data, err := os.ReadFile(DefaultRulesPath(home))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 10 {
		t.Errorf("got %d lines, want 10 distinct rules:\n%s", len(lines), data)
	}
	if _, err := LoadFiles([]string{DefaultRulesPath(home)}); err != nil {
		t.Errorf("amended file does not load: %v", err)
	}
}

func TestStoreAppendAllowRule(t *testing.T) {
	home := t.TempDir()
	s := NewStore(home, mustParse(t, `prefix_rule(pattern=["git"], decision="prompt")`))
	before := s.Current()
	if err := s.AppendAllowRule([]string{"cargo", "test"}); err != nil {
		t.Fatal(err)
	}
	ev := s.Current().Check([][]string{{"cargo", "test", "-p", "x"}}, nil, MatchOptions{})
	if !ev.HasDecision() || ev.Decision != Allow {
		t.Errorf("after amendment: %+v", ev)
	}
	if ev := before.Check([][]string{{"cargo", "test"}}, nil, MatchOptions{}); ev.HasDecision() {
		t.Errorf("the earlier policy value changed: %+v", ev)
	}
	if _, err := os.Stat(DefaultRulesPath(home)); err != nil {
		t.Errorf("rules file not written: %v", err)
	}
}

func assertFile(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestShellSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"git log -1", []string{"git", "log", "-1"}, true},
		{`echo "a b" 'c d' e\ f`, []string{"echo", "a b", "c d", "e f"}, true},
		{`echo "x\"y" "a\b" ''`, []string{"echo", `x"y`, `a\b`, ""}, true},
		{"a # comment", []string{"a"}, true},
		{"a#b", []string{"a#b"}, true},
		{`a 'b`, nil, false},
		{`a "b`, nil, false},
		{`a \`, nil, false},
		{"", nil, true},
	}
	for _, tt := range tests {
		got, ok := shellSplit(tt.in)
		if ok != tt.ok || !cmp.Equal(tt.want, got) {
			t.Errorf("shellSplit(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseRules(f *testing.F) {
	for _, seed := range []string{
		`prefix_rule(pattern=["git", ["status", "log"]], decision="prompt", match=["git status"])`,
		`host_executable(name="git", paths=["/usr/bin/git"])`,
		`network_rule(host="a.com", protocol="https", decision="deny")`,
		"for x in range(3):\n    prefix_rule(pattern=[str(x)])\n",
		`prefix_rule(pattern=[])`,
		"while True:\n    pass\n",
	} {
		f.Add(seed, "git status")
	}
	f.Fuzz(func(t *testing.T, src, example string) {
		p := NewParser()
		err := p.Parse("fuzz.rules", []byte(src))
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error %v (%T) is not a *LoadError", err, err)
			}
			return
		}
		toks, ok := shellSplit(example)
		if !ok {
			return
		}
		ev := p.Policy().Check([][]string{toks}, nil, MatchOptions{ResolveHostExecutables: true})
		for _, m := range ev.MatchedRules {
			if len(m.MatchedPrefix) == 0 || len(m.MatchedPrefix) > len(toks) {
				t.Fatalf("matched prefix %q of %q", m.MatchedPrefix, toks)
			}
		}
	})
}
