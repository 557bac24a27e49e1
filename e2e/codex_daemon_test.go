package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// withoutCodexDaemon keeps Codex 0.169's terminal UI from starting the app-server daemon it
// otherwise installs under CODEX_HOME and leaves running after it exits
// ([features] daemon_auto_start = false: its server then runs in the UI's own process, as
// gocodex's does). At the end the test fails if a process still runs from under codexHome,
// and that process is stopped.
func withoutCodexDaemon(tb testing.TB, codexHome string) {
	tb.Helper()
	path := filepath.Join(codexHome, "config.toml")
	cfg, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(cfg), "\n[features]\n") {
		tb.Fatalf("config.toml has no [features] table: %v", err)
	}
	cfg = []byte(strings.Replace(string(cfg), "\n[features]\n", "\n[features]\ndaemon_auto_start = false\n", 1))
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		procs, _ := filepath.Glob("/proc/[0-9]*/exe")
		for _, p := range procs {
			exe, err := os.Readlink(p)
			if err != nil || !strings.HasPrefix(exe, codexHome+string(filepath.Separator)) {
				continue
			}
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			tb.Errorf("a process outlived the test: %d %s", pid, exe)
			if proc, err := os.FindProcess(pid); err == nil {
				proc.Kill()
			}
		}
	})
}
