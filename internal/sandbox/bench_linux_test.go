package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// BenchmarkSpawn measures what the helper adds to one command: compare "direct" with the
// helper variants (go test -run '^$' -bench Spawn ./internal/sandbox/). The helper is the test
// binary here, which starts a little slower than gocodex itself would.
func BenchmarkSpawn(b *testing.B) {
	cwd := b.TempDir()
	gitCwd := b.TempDir()
	if err := os.Mkdir(filepath.Join(gitCwd, ".git"), 0o755); err != nil {
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
		{"landlock", ww, Options{}, MechanismLandlockNamespaces, cwd}, // no .git: Landlock alone
		{"landlock+namespaces", ww, Options{}, MechanismLandlockNamespaces, gitCwd},
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
}
