package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

// These tests confine real processes on the running kernel. They run as root on CI, which
// bypasses file permissions but neither Landlock, read-only mounts nor seccomp: every denial
// they see comes from the sandbox.

type result struct {
	code           int
	stdout, stderr string
}

func testExe(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// probes caches Probe per option set: each probe starts a helper, which is slow under -race.
var probes sync.Map // Options -> ProbeResult

// probeFor returns the probe result for a test's mechanism, skipping when this machine lacks it.
func probeFor(t testing.TB, opts Options, want Mechanism) *ProbeResult {
	t.Helper()
	opts.Executable = testExe(t)
	v, ok := probes.Load(opts)
	if !ok {
		v, _ = probes.LoadOrStore(opts, Probe(context.Background(), opts))
	}
	r := v.(ProbeResult)
	if r.Mechanism != want {
		t.Skipf("mechanism %s unavailable here (got %s): %s", want, r.Mechanism, r.Message())
	}
	return &r
}

// baseEnv is the test's environment with TMPDIR pinned, so the writable roots do not depend on
// the caller's shell.
func baseEnv(tmpdir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	if tmpdir != "" {
		env = append(env, "TMPDIR="+tmpdir)
	}
	return env
}

func runIn(t testing.TB, probe *ProbeResult, opts Options, p protocol.SandboxPolicy, cwd string, env []string, argv ...string) result {
	t.Helper()
	opts.Executable = testExe(t)
	cmd, err := Command(context.Background(), Request{Policy: p, Cwd: cwd, Argv: argv, Env: env, Probe: probe, Options: opts})
	if err != nil {
		t.Fatalf("Command: %v", err)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("run %v: %v", argv, err)
		}
		code = ee.ExitCode()
	}
	return result{code, out.String(), errb.String()}
}

func sh(t testing.TB, probe *ProbeResult, opts Options, p protocol.SandboxPolicy, cwd string, env []string, script string) result {
	t.Helper()
	return runIn(t, probe, opts, p, cwd, env, "/bin/sh", "-c", script)
}

// shBatch runs many small scripts in one sandboxed shell, each in its own subshell, to keep
// the number of (slow, under -race) helper starts down; the sandbox covers every descendant.
func shBatch(t testing.TB, probe *ProbeResult, p protocol.SandboxPolicy, cwd string, env []string, scripts []string) []result {
	t.Helper()
	var b strings.Builder
	for i, s := range scripts {
		fmt.Fprintf(&b, "out=$( ( %s ) 2>&1 </dev/null ); echo \"@@ %d $?\"; printf '%%s\\n' \"$out\"\n", s, i)
	}
	r := sh(t, probe, Options{}, p, cwd, env, b.String())
	results := make([]result, len(scripts))
	for i := range results {
		results[i].code = -1
	}
	cur := -1
	for _, line := range strings.Split(r.stdout, "\n") {
		var i, code int
		if n, _ := fmt.Sscanf(line, "@@ %d %d", &i, &code); n == 2 && i >= 0 && i < len(results) {
			results[i].code, cur = code, i
			continue
		}
		if cur >= 0 && line != "" {
			results[cur].stderr += line + "\n"
		}
	}
	for i, res := range results {
		if res.code == -1 {
			t.Fatalf("script %d (%q) did not report; shell exit %d, stderr %q", i, scripts[i], r.code, r.stderr)
		}
	}
	return results
}

// outsideTmp makes a directory that is not under /tmp (a default writable root), for tests
// that need something the sandbox must refuse to write.
func outsideTmp(t testing.TB) string {
	t.Helper()
	for _, parent := range []string{"/var/tmp", os.Getenv("HOME")} {
		if parent == "" || strings.HasPrefix(parent, "/tmp") {
			continue
		}
		dir, err := os.MkdirTemp(parent, "gocodex-sandbox-test-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	t.Skip("no writable directory outside /tmp")
	return ""
}

// mechanisms are the file-system configurations every confinement test runs under.
var mechanisms = []struct {
	name string
	opts Options
	want Mechanism
	// protectsSubpaths is false for Landlock alone, which cannot keep .git read-only.
	protectsSubpaths bool
}{
	{"landlock+namespaces", Options{}, MechanismLandlockNamespaces, true},
	{"landlock-only", Options{DisableUserNamespaces: true}, MechanismLandlock, false},
	{"namespaces-fallback", Options{DisableLandlock: true}, MechanismNamespaces, true},
}

func workspaceWrite() protocol.SandboxPolicy { return protocol.NewWorkspaceWritePolicy() }

// nobodyDir makes a directory under /var/tmp that the user nobody can enter and read.
func nobodyDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "gocodex-sandbox-unpriv-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// copyForNobody copies the test binary (which lives in a private build directory) into dir.
func copyForNobody(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "sandbox.test")
	data, err := os.ReadFile(testExe(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}
