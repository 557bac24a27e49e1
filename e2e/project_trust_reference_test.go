package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// Which project configuration a session loads, by the [projects."<path>"] trust_level
// entries and the folder layout, as Codex 0.169 decides it: for each case, whether the
// .codex/rules allow rule applied (a `touch` outside the sandbox under read-only + never),
// which .codex/config.toml files applied (each sets developer_instructions to a marker),
// whether the person was told that project configuration did not load, and the sandbox a
// session gets when nothing chooses one (read-only for a project with no decision,
// workspace-write for a trusted or an untrusted one). What Codex did is in
// projectTrustGolden (0.171 does the same); with the reference installed,
// GOCODEX_RECORD_TRUST=1 rewrites it:
//
//	GOCODEX_REFERENCE_CODEX=$(../shared/tools/reference-codex) GOCODEX_RECORD_TRUST=1 \
//	  go test ./e2e -run TestRecordProjectTrustReference -count=1
const projectTrustGolden = "testdata/codex-0.169-project-trust.json"

// projectTrustObserved is what one binary did in one layout.
type projectTrustObserved struct {
	RulesApplied   bool     `json:"rulesApplied"`
	ConfigsApplied []string `json:"configsApplied"`
	Warned         bool     `json:"warned"`
	DefaultSandbox string   `json:"defaultSandbox"`
}

// projectTrustCase builds a layout in the work folder (a git repository) and returns the
// session's cwd. rules and config put a .codex/rules allow rule or a marked config.toml in
// a folder; trust records a decision.
type projectTrustCase struct {
	name  string
	build func(t *testing.T, w *trustWorld) (cwd string)
}

type trustWorld struct {
	e    *env
	repo string
}

func (w *trustWorld) rules(t *testing.T, dir string) {
	plant(t, dir, ".codex/rules/x.rules", allowTouch)
}

func (w *trustWorld) config(t *testing.T, dir, marker string) {
	plant(t, dir, ".codex/config.toml", `developer_instructions = "CONFIG-`+marker+`"`+"\n")
}

func (w *trustWorld) trust(t *testing.T, dir, level string) { trustProject(t, w.e, dir, level) }

// trustedRepoSub is the layout of the nested cases: a trusted repository whose sub/ (made a
// project root by mark, when set) holds a rule and a config; the session runs in sub/.
func (w *trustWorld) trustedRepoSub(t *testing.T, mark func(sub string)) string {
	sub := filepath.Join(w.repo, "sub")
	if mark != nil {
		mark(sub)
	}
	w.rules(t, sub)
	w.config(t, sub, "sub")
	w.trust(t, w.repo, "trusted")
	return sub
}

func (w *trustWorld) git(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

var projectTrustCases = []projectTrustCase{
	{"no decision", func(t *testing.T, w *trustWorld) string {
		w.rules(t, w.repo)
		w.config(t, w.repo, "root")
		return w.repo
	}},
	{"untrusted", func(t *testing.T, w *trustWorld) string {
		w.rules(t, w.repo)
		w.config(t, w.repo, "root")
		w.trust(t, w.repo, "untrusted")
		return w.repo
	}},
	{"trusted", func(t *testing.T, w *trustWorld) string {
		w.rules(t, w.repo)
		w.config(t, w.repo, "root")
		w.trust(t, w.repo, "trusted")
		return w.repo
	}},
	{"sub-folder of a trusted repository", func(t *testing.T, w *trustWorld) string {
		sub := filepath.Join(w.repo, "sub")
		w.rules(t, sub)
		w.config(t, w.repo, "root")
		w.config(t, sub, "sub")
		w.trust(t, w.repo, "trusted")
		return sub
	}},
	{"empty .git file in a trusted repository", func(t *testing.T, w *trustWorld) string {
		return w.trustedRepoSub(t, func(sub string) { plant(t, sub, ".git", "") })
	}},
	{"empty .git folder in a trusted repository", func(t *testing.T, w *trustWorld) string {
		return w.trustedRepoSub(t, func(sub string) {
			if err := os.MkdirAll(filepath.Join(sub, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
		})
	}},
	{"repository inside a trusted repository", func(t *testing.T, w *trustWorld) string {
		return w.trustedRepoSub(t, func(sub string) { w.git(t, "init", "-q", sub) })
	}},
	{"only the sub-folder trusted", func(t *testing.T, w *trustWorld) string {
		sub := filepath.Join(w.repo, "sub")
		w.rules(t, w.repo)
		w.config(t, sub, "sub")
		w.trust(t, sub, "trusted")
		return sub
	}},
	{"parent of the repository trusted", func(t *testing.T, w *trustWorld) string {
		w.rules(t, w.repo)
		w.config(t, w.repo, "root")
		w.trust(t, filepath.Dir(w.repo), "trusted")
		return w.repo
	}},
	{"trusted folder that is not a repository", func(t *testing.T, w *trustWorld) string {
		if err := os.RemoveAll(filepath.Join(w.repo, ".git")); err != nil {
			t.Fatal(err)
		}
		w.rules(t, w.repo)
		w.config(t, w.repo, "root")
		w.trust(t, w.repo, "trusted")
		return w.repo
	}},
	{"sub-folder of a trusted folder that is not a repository", func(t *testing.T, w *trustWorld) string {
		if err := os.RemoveAll(filepath.Join(w.repo, ".git")); err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(w.repo, "sub")
		w.rules(t, sub)
		w.config(t, sub, "sub")
		w.trust(t, w.repo, "trusted")
		return sub
	}},
	{"linked worktree of a trusted repository", func(t *testing.T, w *trustWorld) string {
		wt := filepath.Join(w.repo, "wt")
		w.git(t, "-C", w.repo, "commit", "-q", "--allow-empty", "-m", "first")
		w.git(t, "-C", w.repo, "worktree", "add", "-q", wt)
		w.rules(t, wt)
		w.config(t, wt, "wt")
		w.trust(t, w.repo, "trusted")
		return wt
	}},
	{".git file pointing into a trusted repository", func(t *testing.T, w *trustWorld) string {
		return w.trustedRepoSub(t, func(sub string) {
			plant(t, sub, ".git", "gitdir: "+filepath.Join(w.repo, ".git", "worktrees", "borrowed")+"\n")
		})
	}},
}

var configMarker = regexp.MustCompile(`CONFIG-[a-z]+`)
var sandboxText = regexp.MustCompile("`sandbox_mode` is `([a-z-]+)`")

// observeProjectTrust runs bin twice in the case's layout: read-only with the model touching
// a file outside (the rule and the configs), then with no sandbox chosen (the default).
func observeProjectTrust(t *testing.T, bin string, tc projectTrustCase) projectTrustObserved {
	e := newEnv(t)
	cfgPath := tk.WriteConfig(t, e.CodexHome, e.Model.URL())
	data, _ := os.ReadFile(cfgPath)
	noSandbox := regexp.MustCompile(`(?m)^sandbox_mode = .*\n`).ReplaceAll(data, nil)
	if err := os.WriteFile(cfgPath, noSandbox, 0o600); err != nil {
		t.Fatal(err)
	}
	w := &trustWorld{e: e, repo: e.Workdir}
	cwd := tc.build(t, w)

	var o projectTrustObserved
	target := filepath.Join(e.CodexHome, "escaped")
	e.Model.Enqueue(runCommand("call_touch", "touch "+target), answer("done"))
	r := e.runBin(bin, "", "exec", "--skip-git-repo-check", "-C", cwd, "-s", "read-only", "touch it")
	if r.Code != 0 {
		t.Fatalf("%s exec: exit %d\n%s", bin, r.Code, r.Stderr)
	}
	_, err := os.Stat(target)
	o.RulesApplied = err == nil
	o.Warned = strings.Contains(r.Stderr, "Untrusted project-local configuration is disabled") || strings.Contains(r.Stderr, "project files not loaded")
	reqs := e.Model.Requests()
	seen := map[string]bool{}
	for _, m := range configMarker.FindAllString(string(reqs[0].Body), -1) {
		seen[m] = true
	}
	o.ConfigsApplied = []string{}
	for m := range seen {
		o.ConfigsApplied = append(o.ConfigsApplied, m)
	}
	sort.Strings(o.ConfigsApplied)

	e.Model.Enqueue(answer("ok"))
	if r := e.runBin(bin, "", "exec", "--skip-git-repo-check", "-C", cwd, "hi"); r.Code != 0 {
		t.Fatalf("%s exec: exit %d\n%s", bin, r.Code, r.Stderr)
	}
	reqs = e.Model.Requests()
	if m := sandboxText.FindSubmatch(reqs[len(reqs)-1].Body); m != nil {
		o.DefaultSandbox = string(m[1])
	}
	return o
}

func TestRecordProjectTrustReference(t *testing.T) {
	ref := referenceBinary(t)
	if os.Getenv("GOCODEX_RECORD_TRUST") == "" {
		t.Skip("set GOCODEX_RECORD_TRUST=1 to rewrite " + projectTrustGolden)
	}
	out := map[string]projectTrustObserved{}
	for _, tc := range projectTrustCases {
		out[tc.name] = observeProjectTrust(t, ref, tc)
	}
	writeGolden(t, projectTrustGolden, out)
}

// writeGolden writes a recording read by readGolden.
func writeGolden(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readGolden reads a recording: each case's name to what the reference did.
func readGolden[T any](t *testing.T, path string) map[string]T {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]T
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

func TestProjectTrustMatchesReference(t *testing.T) {
	want := readGolden[projectTrustObserved](t, projectTrustGolden)
	ref := os.Getenv("GOCODEX_REFERENCE_CODEX")
	for _, tc := range projectTrustCases {
		t.Run(tc.name, func(t *testing.T) {
			rec, ok := want[tc.name]
			if !ok {
				t.Fatalf("no recording of %q in %s", tc.name, projectTrustGolden)
			}
			ours := observeProjectTrust(t, binary, tc)
			if diff := cmp.Diff(rec, ours); diff != "" {
				t.Errorf("(-codex 0.169 +ours):\n%s", diff)
			}
			if ref != "" {
				if diff := cmp.Diff(observeProjectTrust(t, ref, tc), ours); diff != "" {
					t.Errorf("(-live codex +ours):\n%s", diff)
				}
			}
		})
	}
}
