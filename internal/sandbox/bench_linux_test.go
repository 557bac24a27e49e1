package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// BenchmarkSpawn measures what the sandbox adds to one command: compare "direct" with the
// helper variants (go test -run '^$' -bench Spawn ./internal/sandbox/), and, where
// GOCODEX_REFERENCE_CODEX names it, with `codex sandbox` running the same command. The helper
// is the test binary here, which starts a little slower than gocodex itself would.
func BenchmarkSpawn(b *testing.B) {
	cwd := b.TempDir()
	gitCwd := b.TempDir()
	if err := os.Mkdir(filepath.Join(gitCwd, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	// A CODEX_HOME with credentials, for the cost of hiding them.
	home := b.TempDir()
	if err := os.WriteFile(filepath.Join(home, "auth.json"), []byte("{}"), 0o600); err != nil {
		b.Fatal(err)
	}
	ww := protocol.NewWorkspaceWritePolicy()
	cases := []struct {
		name   string
		policy protocol.SandboxPolicy
		opts   Options
		want   Mechanism
		cwd    string
	}{
		{"direct", protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}, Options{}, "", cwd},
		{"landlock+namespaces", ww, Options{}, MechanismLandlockNamespaces, cwd},
		{"landlock+namespaces/git", ww, Options{}, MechanismLandlockNamespaces, gitCwd},
		{"landlock+namespaces/credentials", ww, Options{CodexHome: home}, MechanismLandlockNamespaces, gitCwd},
		{"landlock", ww, Options{DisableUserNamespaces: true}, MechanismLandlock, gitCwd},
		{"namespaces", ww, Options{DisableLandlock: true}, MechanismNamespaces, gitCwd},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			var probe *ProbeResult
			if tc.want != "" {
				probe = probeFor(b, tc.opts, tc.want)
			}
			opts := tc.opts
			opts.Executable = testExe(b)
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				cmd, err := Command(context.Background(), Request{Policy: tc.policy, Cwd: tc.cwd, Argv: []string{"/bin/true"}, Probe: probe, Options: opts})
				if err != nil {
					b.Fatal(err)
				}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			// The median resists the noise of a busy machine better than the mean.
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-median")
		})
	}
	if codex := os.Getenv("GOCODEX_REFERENCE_CODEX"); codex != "" {
		b.Run("codex-0.169", func(b *testing.B) {
			home := b.TempDir()
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				cmd := exec.Command(codex, "sandbox", "-c", `sandbox_mode="workspace-write"`, "--", "/bin/true")
				cmd.Dir, cmd.Env = gitCwd, append(os.Environ(), "CODEX_HOME="+home)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-median")
		})
	}
}
