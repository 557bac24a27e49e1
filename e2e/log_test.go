package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// Every face logs to CODEX_HOME/log/gocodex-<face>.log (0600): exec's failed turn is there, and
// the API key that went to the model is not.
func TestExecLogsErrorsWithoutSecrets(t *testing.T) {
	e := newEnv(t)
	const key = "sk-e2e-LOGSECRET-0123456789"
	e.ExtraEnv = []string{"MOCK_API_KEY=" + key, "GOCODEX_LOG=debug"}
	idle, retries := 200, 0
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{StreamIdleTimeoutMS: &idle, StreamMaxRetries: &retries})
	e.Model.SetDefault(tk.Status(400))
	r := e.run("", "exec", "--json", "hi")
	if r.Code != 1 {
		t.Fatalf("exit %d, want 1: %s", r.Code, r.Stdout)
	}
	path := filepath.Join(e.CodexHome, "log", "gocodex-exec.log")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no exec log: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), key) {
		t.Errorf("the API key is in the log:\n%s", data)
	}
	if !strings.Contains(string(data), "level=ERROR") || !strings.Contains(string(data), "turn error") || !strings.Contains(string(data), "face=exec") {
		t.Errorf("log:\n%s", data)
	}
}
