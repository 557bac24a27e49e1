package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
)

var updateSeatbelt = flag.Bool("update-seatbelt", false, "rewrite testdata/seatbelt/*.golden")

// seatbeltGolden renders a profile and its parameters as the golden files keep them.
func seatbeltGolden(p SeatbeltProfile) string {
	var b strings.Builder
	b.WriteString(p.Text)
	b.WriteString(";; ---- parameters (sandbox-exec -DNAME=VALUE) ----\n")
	for _, d := range p.Params {
		b.WriteString(";; " + d.Name + "=" + d.Value + "\n")
	}
	return b.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "seatbelt", name+".golden")
	if *updateSeatbelt {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestSeatbelt ./internal/sandbox -update-seatbelt to write it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-golden +got):\n%s", path, diff)
	}
}

// identity is a realpath for roots that are already real.
func identity(p string) (string, error) { return p, nil }

// TestSeatbeltProfileGolden pins the whole profile of each policy, with the roots a
// workspace-write session on a Mac has (the project, /tmp as its real path and TMPDIR).
func TestSeatbeltProfileGolden(t *testing.T) {
	project := "/Users/dev/project"
	roots := []WritableRoot{
		{Root: project, ReadOnlySubpaths: []string{project + "/.git", project + "/.codex", project + "/.agents", project + "/.aws"}},
		{Root: "/private/tmp", ReadOnlySubpaths: []string{"/private/tmp/.git", "/private/tmp/.codex", "/private/tmp/.agents", "/private/tmp/.aws"}},
		{Root: "/private/var/folders/x1/abc/T"},
	}
	cases := []struct {
		name   string
		policy protocol.SandboxPolicy
		roots  []WritableRoot
	}{
		{"read-only", protocol.NewReadOnlyPolicy(), nil},
		{"workspace-write", protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}, roots},
		{"workspace-write-network", protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, NetworkAccess: true}, roots},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkGolden(t, tc.name, seatbeltGolden(buildSeatbeltProfile(tc.policy, tc.roots, identity)))
		})
	}
}

// TestSeatbeltPolicyRules checks what each policy allows, independently of the goldens' text.
func TestSeatbeltPolicyRules(t *testing.T) {
	root := []WritableRoot{{Root: "/w", ReadOnlySubpaths: []string{"/w/.git"}}}
	ro := buildSeatbeltProfile(protocol.NewReadOnlyPolicy(), nil, identity)
	ww := buildSeatbeltProfile(protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}, root, identity)
	net := buildSeatbeltProfile(protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, NetworkAccess: true}, root, identity)
	for name, p := range map[string]SeatbeltProfile{"read-only": ro, "workspace-write": ww, "network": net} {
		if !strings.Contains(p.Text, "(deny default)") || !strings.Contains(p.Text, "(allow file-read*)") {
			t.Errorf("%s: not closed by default with reads allowed:\n%s", name, p.Text)
		}
	}
	if strings.Contains(ro.Text, "(allow file-write*") || len(ro.Params) != 0 {
		t.Errorf("read-only writes somewhere:\n%s%v", ro.Text, ro.Params)
	}
	for name, p := range map[string]SeatbeltProfile{"read-only": ro, "workspace-write": ww} {
		if strings.Contains(p.Text, "network-outbound") || strings.Contains(p.Text, "system-socket") {
			t.Errorf("%s: network allowed by default", name)
		}
	}
	if !strings.Contains(net.Text, "(allow network-outbound network-inbound system-socket)") {
		t.Errorf("network_access = true without network rules:\n%s", net.Text)
	}
	wantParams := []SeatbeltParam{{"WRITABLE_ROOT_0", "/w"}, {"WRITABLE_ROOT_0_RO_0", "/w/.git"}}
	if diff := cmp.Diff(wantParams, ww.Params); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	if !strings.Contains(ww.Text, `(require-not (literal (param "WRITABLE_ROOT_0_RO_0"))) (require-not (subpath (param "WRITABLE_ROOT_0_RO_0")))`) {
		t.Errorf("the protected name is not excluded both as itself and beneath:\n%s", ww.Text)
	}
	args := ww.Args([]string{"bash", "-c", "echo hi"})
	want := []string{"-p", ww.Text, "-DWRITABLE_ROOT_0=/w", "-DWRITABLE_ROOT_0_RO_0=/w/.git", "--", "bash", "-c", "echo hi"}
	if diff := cmp.Diff(want, args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
}

// TestSeatbeltParameterEscaping: roots whose names could end a string, open an expression or
// start a comment in the profile never reach its text; they arrive whole as -D values.
func TestSeatbeltParameterEscaping(t *testing.T) {
	base := t.TempDir()
	names := []string{
		`with "quotes"`,
		`with spaces and (parens)`,
		`naïve-日本語-ß`,
		`semi;colon #"regex"`,
		`back\slash`,
		"new\nline",
		`")) (allow file-write* (subpath "/")) ; `,
	}
	var dirs []string
	for _, n := range names {
		d := filepath.Join(base, n)
		if err := os.MkdirAll(filepath.Join(d, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	policy := protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, WritableRoots: dirs[1:], ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true}
	p := NewSeatbeltProfile(policy, dirs[0], func(string) string { return "" })
	realBase, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(p.Text, base) || strings.Contains(p.Text, realBase) {
		t.Fatalf("a path reached the profile's text:\n%s", p.Text)
	}
	// The only strings in the profile are ours: parameter names, device paths, service names.
	if strings.Count(p.Text, `"`)%2 != 0 {
		t.Errorf("unbalanced quotes in the profile:\n%s", p.Text)
	}
	if strings.Count(p.Text, "(") != strings.Count(p.Text, ")") {
		t.Errorf("unbalanced parentheses in the profile:\n%s", p.Text)
	}
	args := p.Args([]string{"true"})
	for i, n := range names {
		root := filepath.Join(realBase, n)
		for _, want := range []string{
			"-D" + rootParam(i) + "=" + root,
			"-D" + rootParam(i) + "_RO_0=" + filepath.Join(root, ".git"),
		} {
			if !slices.Contains(args, want) {
				t.Errorf("args lack %q:\n%q", want, args)
			}
		}
	}
}

func rootParam(i int) string { return "WRITABLE_ROOT_" + string(rune('0'+i)) }

// TestSeatbeltSymlinkedRoots: a root reached through a symlink (as /tmp is /private/tmp on
// macOS, and the cwd may be) is given to Seatbelt as its real path, with the protected names
// under the real path; a protected name that is itself a symlink keeps its target read-only
// too. Made here with symlinked temporary directories.
func TestSeatbeltSymlinkedRoots(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mkdir := func(p string) string {
		t.Helper()
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(target, name string) string {
		t.Helper()
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
		return name
	}
	privateTmp := mkdir(filepath.Join(base, "private", "tmp"))
	tmp := link(privateTmp, filepath.Join(base, "tmp"))
	realProject := mkdir(filepath.Join(base, "private", "work", "project"))
	project := link(realProject, filepath.Join(base, "project"))
	gitStore := mkdir(filepath.Join(base, "gitstore"))
	link(gitStore, filepath.Join(realProject, ".git"))

	policy := protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, ExcludeSlashTmp: true}
	getenv := func(k string) string {
		if k == "TMPDIR" {
			return tmp
		}
		return ""
	}
	p := NewSeatbeltProfile(policy, project, getenv)
	got := map[string]string{}
	for _, d := range p.Params {
		got[d.Name] = d.Value
	}
	want := map[string]string{
		"WRITABLE_ROOT_0":      realProject,
		"WRITABLE_ROOT_0_RO_0": filepath.Join(realProject, ".git"),
		"WRITABLE_ROOT_0_RO_1": gitStore, // the symlinked .git's target
		"WRITABLE_ROOT_0_RO_2": filepath.Join(realProject, ".codex"),
		"WRITABLE_ROOT_0_RO_3": filepath.Join(realProject, ".agents"),
		"WRITABLE_ROOT_0_RO_4": filepath.Join(realProject, ".aws"),
		"WRITABLE_ROOT_1":      privateTmp,
		"WRITABLE_ROOT_1_RO_0": filepath.Join(privateTmp, ".git"),
		"WRITABLE_ROOT_1_RO_1": filepath.Join(privateTmp, ".codex"),
		"WRITABLE_ROOT_1_RO_2": filepath.Join(privateTmp, ".agents"),
		"WRITABLE_ROOT_1_RO_3": filepath.Join(privateTmp, ".aws"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	// The same directory reached twice (a symlink and its target) is one root.
	policy.WritableRoots = []string{realProject}
	if n := len(NewSeatbeltProfile(policy, project, getenv).Params); n != len(p.Params) {
		t.Errorf("a root named by its link and its target counted twice: %d params, want %d", n, len(p.Params))
	}
}

// TestSeatbeltCaseVariants: on a case-insensitive volume .GIT is .git, so the profile refuses
// writes beneath a root to any case variant of a protected name (ſ for s too), while the exact
// names below the root (a nested repository) stay writable. The regexes are checked here with
// Go's engine against the paths they must and must not match.
func TestSeatbeltCaseVariants(t *testing.T) {
	var rules []*regexp.Regexp
	for _, r := range caseVariantRegexes() {
		rules = append(rules, regexp.MustCompile(r))
		if !strings.Contains(seatbeltCaseVariants, `(require-not (regex #"`+r+`"))`) {
			t.Errorf("the profile lacks %q", r)
		}
	}
	denied := func(p string) bool {
		for _, r := range rules {
			if r.MatchString(p) {
				return true
			}
		}
		return false
	}
	for _, p := range []string{"/w/.GIT", "/w/.GIT/hooks/pre-commit", "/w/.Git/config", "/w/.CODEX/config.toml",
		"/w/.Agents/skills/x/SKILL.md", "/w/.AWS/credentials", "/w/.aw\u017f/credentials", "/w/.agent\u017f", "/w/sub/.gIt/config",
		"/w/.GIT/x/.git/y", "/w/.aW\u017f", "/w/.cODEX"} {
		if !denied(p) {
			t.Errorf("%q is writable", p)
		}
	}
	for _, p := range []string{"/w/src/main.go", "/w/sub/.git/config", "/w/.github/workflows/ci.yml", "/w/.gitignore",
		"/w/.codex-notes", "/w/docs/.aws.md", "/w/.awsx", "/w/sub/.codex/config.toml"} {
		if denied(p) {
			t.Errorf("%q is refused", p)
		}
	}
}
