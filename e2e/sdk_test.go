package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// TestTypeScriptSDK runs the official @openai/codex-sdk against our binary. scripts/test.sh
// installs the SDK with npm; without it the test is skipped, except in CI where it fails.
func TestTypeScriptSDK(t *testing.T) {
	sdkDir, _ := filepath.Abs("sdk")
	if _, err := os.Stat(filepath.Join(sdkDir, "node_modules", "@openai", "codex-sdk")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the TypeScript SDK is not installed (run scripts/test.sh): %v", err)
		}
		t.Skip("the TypeScript SDK is not installed; scripts/test.sh installs it with npm")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	e := newEnv(t)
	e.Model.Enqueue(
		tk.SSE(tk.Created(), tk.FunctionCall("call_1", "exec_command", `{"cmd":"echo sdk-was-here"}`), tk.Completed(tk.Usage{Input: 30, Output: 4, Total: 34})),
		answer("all done"),
	)
	cmd := exec.Command(node, filepath.Join(sdkDir, "run.mjs"))
	cmd.Dir = sdkDir
	cmd.Env = append(e.environ(), "GOCODEX_BINARY="+binary, "GOCODEX_WORKDIR="+e.Workdir)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("sdk run: %v\n%s\n%s", err, out, stderr)
	}
	var res struct {
		ThreadID      string
		FinalResponse string
		Usage         map[string]float64
		Items         []map[string]any
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("sdk output: %v\n%s", err, out)
	}
	if res.ThreadID == "" || res.FinalResponse != "all done" {
		t.Errorf("thread %q, final response %q", res.ThreadID, res.FinalResponse)
	}
	if res.Usage["input_tokens"] != 40 || res.Usage["output_tokens"] != 9 {
		t.Errorf("usage = %v", res.Usage)
	}
	var sawCommand bool
	for _, it := range res.Items {
		if it["type"] == "command_execution" {
			sawCommand = true
			if !strings.Contains(it["aggregated_output"].(string), "sdk-was-here") || it["status"] != "completed" {
				t.Errorf("command item = %v", it)
			}
		}
	}
	if !sawCommand {
		t.Errorf("no command_execution item in %v", res.Items)
	}
}
