package e2e

import (
	"encoding/json"
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
	params    map[string]any
}

var trustCases = []trustCase{
	{name: "full access"},
	{name: "workspace write", opts: tk.ConfigOptions{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}},
	{name: "read-only", opts: tk.ConfigOptions{ApprovalPolicy: "on-request", SandboxMode: "read-only"}},
	{name: "read-only asked for", params: map[string]any{"sandbox": "read-only", "approvalPolicy": "on-request"}},
	{name: "repository subfolder", opts: tk.ConfigOptions{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}, git: true, sub: "sub"},
	{name: "already untrusted", untrusted: true},
	{name: "no cwd", noCwd: true},
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
	cwd := filepath.Join(e.Workdir, tc.sub)
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
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
	b, _ := json.MarshalIndent(out, "", "  ")
	if err := os.WriteFile(trustGolden, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestThreadStartTrustMatchesReference(t *testing.T) {
	data, err := os.ReadFile(trustGolden)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]string
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	ref := os.Getenv("GOCODEX_REFERENCE_CODEX")
	for _, tc := range trustCases {
		t.Run(tc.name, func(t *testing.T) {
			ours := trustAdded(t, binary, tc)
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
