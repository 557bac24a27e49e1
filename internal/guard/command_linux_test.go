package guard

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/protocol"
)

// A one-off command runs confined to the policy it names (read-only: it cannot write),
// unconfined without one, and sees the environment changes it asks for.
func TestOneOffCommandConfinedByPolicy(t *testing.T) {
	if pr := sandbox.Probe(context.Background(), sandbox.Options{}); pr.Err != nil {
		t.Skipf("no sandbox here: %v", pr.Err)
	}
	dir := t.TempDir()
	cs := NewCommands(sandbox.Options{})
	run := func(policy *protocol.SandboxPolicy, env map[string]*string, argv ...string) CommandResult {
		t.Helper()
		c, err := cs.Start(context.Background(), CommandRequest{Argv: argv, Cwd: dir, Policy: policy, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Wait(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	ro := protocol.NewReadOnlyPolicy()
	if res := run(&ro, nil, "touch", "denied"); res.ExitCode == 0 {
		t.Errorf("read-only one-off command wrote a file")
	}
	if _, err := os.Stat(filepath.Join(dir, "denied")); err == nil {
		t.Errorf("denied exists")
	}
	if res := run(nil, nil, "touch", "allowed"); res.ExitCode != 0 {
		t.Errorf("unconfined command failed: %+v", res)
	}
	v := "set"
	res := run(nil, map[string]*string{"GUARD_TEST_VAR": &v, "HOME": nil}, "sh", "-c", `printf '%s|%s' "$GUARD_TEST_VAR" "${HOME-unset}"`)
	if res.Stdout != "set|unset" {
		t.Errorf("environment = %q, want set|unset", res.Stdout)
	}
}
