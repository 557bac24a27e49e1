package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCLIDemoScript runs ./scripts/demo.sh, the README's first command, to its end (the
// scripted model's answer, after a command in the sandbox). A build slower than
// DEMO_BUILD_NOTICE_AFTER (here a `go` that sleeps first, standing in for the first build's
// minutes) is explained instead of leaving the terminal silent; a quick one is not. The
// script builds into the repository's bin/, as it does for a user.
func TestCLIDemoScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gocodex")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	slowGo := t.TempDir()
	script := "#!/bin/sh\nsleep 2\nexec '" + goBin + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(slowGo, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// The test's own HOME keeps the developer's ~/.agents and ~/.codex out; Go keeps its caches.
	goEnv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatal(err)
	}
	caches := strings.Fields(string(goEnv))
	if len(caches) != 3 {
		t.Fatalf("go env: %q", goEnv)
	}
	const notice = "the first build downloads and compiles every dependency"
	for _, tc := range []struct {
		name, path, after string
		wantNotice        bool
	}{
		{"slow build", slowGo + string(os.PathListSeparator) + os.Getenv("PATH"), "1", true},
		{"quick build", os.Getenv("PATH"), "120", false},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		cmd := exec.CommandContext(ctx, "../scripts/demo.sh")
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + tc.path, "DEMO_BUILD_NOTICE_AFTER=" + tc.after,
			"GOCACHE=" + caches[0], "GOMODCACHE=" + caches[1], "GOPATH=" + caches[2]}
		for _, kv := range os.Environ() {
			if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "CODEX_") && !strings.HasPrefix(k, "OPENAI_") && !slices.Contains([]string{"HOME", "PATH", "GOCACHE", "GOMODCACHE", "GOPATH"}, k) {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%s: scripts/demo.sh: %v\n%s", tc.name, err, out)
		}
		if got := strings.Contains(string(out), notice); got != tc.wantNotice {
			t.Errorf("%s: notice shown = %v, want %v:\n%s", tc.name, got, tc.wantNotice, out)
		}
		if !strings.Contains(string(out), "This is a small demo project") {
			t.Errorf("%s: the demo did not end with the model's answer:\n%s", tc.name, out)
		}
	}
}
