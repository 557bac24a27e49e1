package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// thread/start with a cwd and a sandbox that may write there records the project as trusted
// in config.toml, as Codex 0.169 does: the Git repository's root, else the folder; not for a
// read-only sandbox, not without a cwd, and an existing decision stays. What Codex added to
// config.toml in each case is in trustGolden; with the reference installed,
// GOCODEX_RECORD_TRUST=1 rewrites it:
//
//	GOCODEX_REFERENCE_CODEX=$(../shared/tools/reference-codex) GOCODEX_RECORD_TRUST=1 \
//	  go test ./e2e -run TestRecordThreadStartTrustReference -count=1
const trustGolden = "testdata/codex-0.169-thread-start-trust.json"

type trustCase struct {
	name      string
	opts      tk.ConfigOptions
	git       bool   // the work folder is a Git repository
	sub       string // the thread's cwd, below the work folder
	noCwd     bool
	untrusted bool // config.toml already says the work folder is untrusted
	trusted   bool // config.toml already says the work folder is trusted
	// nested makes sub a project root of its own inside the work folder: "file" plants an
	// empty .git file there (what a model can do in one command), "repo" runs git init.
	nested string
	// worktree makes sub a linked worktree of the work folder's repository (git worktree add).
	worktree bool
	params   map[string]any
	// differs is gocodex's own answer where it differs from Codex on purpose: a project root
	// the model could have made is not trusted on a client's behalf (v2_thread_trust.go).
	differs *string
}

var nothing = ""

var trustCases = []trustCase{
	{name: "full access"},
	{name: "workspace write", opts: tk.ConfigOptions{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}},
	{name: "read-only", opts: tk.ConfigOptions{ApprovalPolicy: "on-request", SandboxMode: "read-only"}},
	{name: "read-only asked for", params: map[string]any{"sandbox": "read-only", "approvalPolicy": "on-request"}},
	{name: "repository subfolder", opts: tk.ConfigOptions{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}, git: true, sub: "sub"},
	{name: "already untrusted", untrusted: true},
	{name: "no cwd", noCwd: true},
	{name: "planted .git file in a trusted repository", opts: tk.ConfigOptions{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}, git: true, trusted: true, sub: "sub", nested: "file", differs: &nothing},
	{name: "linked worktree", opts: tk.ConfigOptions{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}, git: true, sub: "wt", worktree: true},
	{name: "nested repository in a trusted repository", opts: tk.ConfigOptions{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}, git: true, trusted: true, sub: "sub", nested: "repo"},
}

// trustAdded is what bin's thread/start added to config.toml, the work folder as $WORK.
func trustAdded(t *testing.T, bin string, tc trustCase) string {
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tc.opts)
	if tc.untrusted {
		appendConfig(t, e, "\n[projects.\""+e.Workdir+"\"]\ntrust_level = \"untrusted\"\n")
	}
	if tc.git {
		if out, err := exec.Command("git", "init", "-q", e.Workdir).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
	}
	if tc.trusted {
		appendConfig(t, e, "\n[projects.\""+e.Workdir+"\"]\ntrust_level = \"trusted\"\n")
	}
	cwd := filepath.Join(e.Workdir, tc.sub)
	if tc.worktree {
		for _, args := range [][]string{{"commit", "-q", "--allow-empty", "-m", "first"}, {"worktree", "add", "-q", cwd}} {
			cmd := exec.Command("git", append([]string{"-C", e.Workdir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v %s", args, err, out)
			}
		}
	}
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	switch tc.nested {
	case "file":
		if err := os.WriteFile(filepath.Join(cwd, ".git"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	case "repo":
		if out, err := exec.Command("git", "init", "-q", cwd).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
	}
	path := filepath.Join(e.CodexHome, "config.toml")
	before, _ := os.ReadFile(path)
	c, stop := e.startAppServerOf(bin)
	defer stop()
	p := map[string]any{}
	if !tc.noCwd {
		p["cwd"] = cwd
	}
	for k, v := range tc.params {
		p[k] = v
	}
	c.startThread(p)
	after, _ := os.ReadFile(path)
	if len(after) < len(before) || string(after[:len(before)]) != string(before) {
		return "rewritten: " + e.unexpand(string(after))
	}
	return e.unexpand(string(after[len(before):]))
}

func TestRecordThreadStartTrustReference(t *testing.T) {
	ref := referenceBinary(t)
	if os.Getenv("GOCODEX_RECORD_TRUST") == "" {
		t.Skip("set GOCODEX_RECORD_TRUST=1 to rewrite " + trustGolden)
	}
	out := map[string]string{}
	for _, tc := range trustCases {
		out[tc.name] = trustAdded(t, ref, tc)
	}
	writeGolden(t, trustGolden, out)
}

func TestThreadStartTrustMatchesReference(t *testing.T) {
	want := readGolden[string](t, trustGolden)
	ref := os.Getenv("GOCODEX_REFERENCE_CODEX")
	for _, tc := range trustCases {
		t.Run(tc.name, func(t *testing.T) {
			ours := trustAdded(t, binary, tc)
			if tc.differs != nil {
				if ours != *tc.differs {
					t.Errorf("config.toml after thread/start: %q, want gocodex's own %q (Codex 0.169: %q)", ours, *tc.differs, want[tc.name])
				}
				return
			}
			if diff := cmp.Diff(want[tc.name], ours); diff != "" {
				t.Errorf("config.toml after thread/start (-codex 0.169 +ours):\n%s", diff)
			}
			if ref != "" {
				if diff := cmp.Diff(trustAdded(t, ref, tc), ours); diff != "" {
					t.Errorf("(-live codex +ours):\n%s", diff)
				}
			}
		})
	}
}
