package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/protocol"
)

// The test binary is the sandbox helper too, as gocodex is.
func TestMain(m *testing.M) {
	if code, ok := sandbox.DispatchHelper(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func TestRunSandbox(t *testing.T) {
	exe, _ := os.Executable()
	if r := sandbox.Probe(context.Background(), sandbox.Options{Executable: exe}); r.Mechanism != sandbox.MechanismLandlockNamespaces {
		t.Skipf("the full sandbox is unavailable here: %s", r.Message())
	}
	cwd, err := os.MkdirTemp("/var/tmp", "gocodex-cli-test-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(cwd) })
	var out, errb bytes.Buffer
	code := RunSandbox(context.Background(), SandboxRun{
		Args:    []string{"/bin/sh", "-c", `echo "net=$CODEX_SANDBOX_NETWORK_DISABLED foo=$FOO"; echo x > inside; echo x > /etc/gocodex-cli-probe; exit 0`},
		Policy:  protocol.NewWorkspaceWritePolicy(),
		Cwd:     cwd,
		Env:     append(os.Environ(), "FOO=bar"),
		Stdin:   strings.NewReader(""),
		Stdout:  &out,
		Stderr:  &errb,
		Options: sandbox.Options{Executable: exe},
	})
	os.Remove("/etc/gocodex-cli-probe")
	if code != 0 || strings.TrimSpace(out.String()) != "net=1 foo=bar" {
		t.Errorf("RunCLI = %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "Read-only file system") {
		t.Errorf("the write to /etc was not denied: %q", errb.String())
	}
	if _, err := os.Stat(filepath.Join(cwd, "inside")); err != nil {
		t.Errorf("write inside cwd: %v", err)
	}

	// Exit statuses and signals come back as the shell would report them.
	for script, want := range map[string]int{"exit 7": 7, "kill -TERM $$": 128 + 15} {
		if code := RunSandbox(context.Background(), SandboxRun{Args: []string{"/bin/sh", "-c", script}, Policy: protocol.NewReadOnlyPolicy(), Cwd: cwd, Stdout: &out, Stderr: &errb, Options: sandbox.Options{Executable: exe}}); code != want {
			t.Errorf("%q: exit %d, want %d", script, code, want)
		}
	}
	if code := RunSandbox(context.Background(), SandboxRun{Policy: protocol.NewReadOnlyPolicy(), Stderr: &errb}); code != 2 {
		t.Errorf("no command: exit %d, want 2", code)
	}
	refused := RunSandbox(context.Background(), SandboxRun{Args: []string{"true"}, Policy: protocol.NewReadOnlyPolicy(), Cwd: cwd, Stdout: &out, Stderr: &errb,
		Options: sandbox.Options{Executable: exe, DisableLandlock: true, DisableUserNamespaces: true}})
	if refused != 1 || !strings.Contains(errb.String(), "danger-full-access") {
		t.Errorf("refusal: exit %d, stderr %q", refused, errb.String())
	}
}
