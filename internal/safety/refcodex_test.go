//go:build refcodex

package safety

// Runs the reference Codex binary (`codex exec`, which always runs with approval policy never)
// against the scripted model and logs what the model receives for a few approval-matrix
// cells. Not part of the normal suite:
//
//	CODEX_REF_BIN=$(../shared/tools/reference-codex) go test -tags refcodex -run Reference -v ./internal/safety/
//
// testdata/refcodex_appserver.py drives `codex app-server` for the policies exec cannot use.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gocodex/gocodex/internal/testkit"
)

func TestReferenceCodexDecisions(t *testing.T) {
	bin := os.Getenv("CODEX_REF_BIN")
	if bin == "" {
		t.Skip("CODEX_REF_BIN not set")
	}
	cases := []struct {
		name, approval, sandbox, command, perms, rules string
	}{
		{name: "onfailure_rm_rf", approval: "on-failure", sandbox: "workspace-write", command: "rm -rf zzz"},
		{name: "onfailure_escalated", approval: "on-failure", sandbox: "workspace-write", command: "echo hi", perms: "require_escalated"},
		{name: "never_git_status", approval: "never", sandbox: "read-only", command: "git status"},
		{name: "never_rm_rf", approval: "never", sandbox: "workspace-write", command: "rm -rf zzz"},
		{name: "never_rm_rf_full", approval: "never", sandbox: "danger-full-access", command: "rm -rf zzz"},
		{name: "never_escalated", approval: "never", sandbox: "workspace-write", command: "echo hi", perms: "require_escalated"},
		{name: "never_prompt_rule", approval: "never", sandbox: "workspace-write", command: "echo hi", rules: `prefix_rule(pattern=["echo"], decision="prompt")`},
		{name: "forbidden_rule", approval: "on-request", sandbox: "workspace-write", command: "docker ps --all 'a b'", rules: `prefix_rule(pattern=["docker"], decision="forbidden")`},
		{name: "forbidden_rule_just", approval: "on-request", sandbox: "workspace-write", command: "docker ps", rules: `prefix_rule(pattern=["docker"], decision="forbidden", justification="use podman")`},
		{name: "granular_escalated", approval: "{ granular = { sandbox_approval = true, rules = true, skill_approval = false, request_permissions = false, mcp_elicitations = false } }", sandbox: "workspace-write", command: "echo hi", perms: "require_escalated"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home, work := t.TempDir(), t.TempDir()
			srv := testkit.NewServer(t)
			args := map[string]any{"cmd": tc.command}
			if tc.perms != "" {
				args["sandbox_permissions"] = tc.perms
				args["justification"] = "need it"
			}
			argJSON, _ := json.Marshal(args)
			srv.Enqueue(
				testkit.SSE(testkit.Created(), testkit.FunctionCall("call_1", "exec_command", string(argJSON)), testkit.Completed(testkit.Usage{})),
				testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "done"), testkit.Completed(testkit.Usage{})),
			)
			approval := `"` + tc.approval + `"`
			if tc.approval[0] == '{' {
				approval = tc.approval
			}
			cfg := "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\napproval_policy = " + approval + "\nsandbox_mode = \"" + tc.sandbox + "\"\ncheck_for_update_on_startup = false\n\n[model_providers.mock]\nname = \"Mock\"\nbase_url = \"" + srv.BaseURL() + "\"\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n[features]\nplugins = false\n"
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.rules != "" {
				os.MkdirAll(filepath.Join(home, "rules"), 0o755)
				os.WriteFile(filepath.Join(home, "rules", "t.rules"), []byte(tc.rules+"\n"), 0o644)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "exec", "--json", "--skip-git-repo-check", "run it")
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "CODEX_HOME="+home, "MOCK_API_KEY=x")
			out, _ := cmd.CombinedOutput()
			reqs := srv.Requests()
			if len(reqs) < 2 {
				t.Fatalf("only %d requests; output:\n%s", len(reqs), out)
			}
			var body struct {
				Input []json.RawMessage `json:"input"`
			}
			json.Unmarshal(reqs[1].Body, &body)
			for _, item := range body.Input {
				var it map[string]any
				json.Unmarshal(item, &it)
				if it["type"] == "function_call_output" {
					t.Logf("%s => %v", tc.name, it["output"])
				}
			}
		})
	}
}
