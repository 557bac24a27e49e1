package guard

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/internal/tools/applypatch"
	"github.com/gocodex/gocodex/protocol"
)

// workspaceOnly is workspace-write with the work tree its only writable root.
var workspaceOnly = protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true}

// sandboxedGuard is a guard whose sandbox re-executes this test binary with opts, or a skip
// when this machine cannot confine that way.
func sandboxedGuard(t *testing.T, opts sandbox.Options) (*Guard, sandbox.ProbeResult) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	opts.Executable = exe
	probe := sandbox.Probe(context.Background(), opts)
	if probe.Err != nil {
		t.Skipf("no sandbox here: %v", probe.Err)
	}
	return New(Options{Sandbox: opts}), probe
}

// An ordinary patch is written by the apply_patch that runs inside the sandbox, with the
// output the in-process apply gives.
func TestPatchIsAppliedInsideTheSandbox(t *testing.T) {
	g, _ := sandboxedGuard(t, sandbox.Options{})
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "old.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "*** Begin Patch\n*** Add File: sub/new.txt\n+hello\n*** Update File: old.txt\n@@\n-one\n+two\n*** End Patch"
	v := verified(t, cwd, text)
	d := g.Patch(context.Background(), (&askRecorder{}).env(protocol.ApprovalNever, workspaceOnly, cwd), v)
	if d.Verdict != applypatch.AutoApprove || d.Confinement == nil || len(d.Confinement.Blocked) != 0 || d.Confinement.MayAsk {
		t.Fatalf("decision %+v", d)
	}
	run, err := d.Confinement.Apply(context.Background(), cwd, v.Patch.Text)
	if err != nil {
		t.Fatal(err)
	}
	if run.ExitCode != 0 || run.Stdout != "Success. Updated the following files:\nA sub/new.txt\nM old.txt\n" || run.Stderr != "" {
		t.Fatalf("sandboxed apply: %+v", run)
	}
	for name, want := range map[string]string{"sub/new.txt": "hello\n", "old.txt": "two\n"} {
		if got, _ := os.ReadFile(filepath.Join(cwd, name)); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// The write happens where the kernel enforces the policy: a patch that got past the path
// check (a symlink swapped in afterwards, say) is still refused by the sandbox, with user
// namespaces and with Landlock alone.
func TestSandboxRefusesAPatchThatEscapes(t *testing.T) {
	for name, opts := range map[string]sandbox.Options{"best": {}, "landlock-only": {DisableUserNamespaces: true}} {
		t.Run(name, func(t *testing.T) {
			g, probe := sandboxedGuard(t, opts)
			if name == "landlock-only" && probe.Mechanism != sandbox.MechanismLandlock {
				t.Skipf("Landlock alone is not available here: %s", probe.Message())
			}
			cwd, outside := t.TempDir(), t.TempDir()
			text := "*** Begin Patch\n*** Add File: d/planted.txt\n+x\n*** End Patch"
			d := g.Patch(context.Background(), (&askRecorder{}).env(protocol.ApprovalNever, workspaceOnly, cwd), verified(t, cwd, text))
			if len(d.Confinement.Blocked) != 0 {
				t.Fatalf("blocked before the symlink exists: %v", d.Confinement.Blocked)
			}
			if err := os.Symlink(outside, filepath.Join(cwd, "d")); err != nil {
				t.Fatal(err)
			}
			run, err := d.Confinement.Apply(context.Background(), cwd, text)
			if err != nil {
				t.Fatal(err)
			}
			if run.ExitCode != 1 || !strings.HasPrefix(run.Stderr, "Failed to write file "+filepath.Join(cwd, "d", "planted.txt")) || !run.Denied {
				t.Errorf("sandboxed apply through a late symlink: %+v", run)
			}
			if _, err := os.Stat(filepath.Join(outside, "planted.txt")); !os.IsNotExist(err) {
				t.Errorf("the sandboxed apply_patch wrote outside the work tree (%v)", err)
			}
			// .git is read-only inside the sandbox only where the mount namespace can bind it;
			// under Landlock alone the check before the write is all there is.
			if !strings.Contains(string(probe.Mechanism), "namespaces") {
				return
			}
			if err := os.MkdirAll(filepath.Join(cwd, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(".", filepath.Join(cwd, "self")); err != nil {
				t.Fatal(err)
			}
			run, err = d.Confinement.Apply(context.Background(), cwd, "*** Begin Patch\n*** Add File: self/.git/config\n+[core]\n*** End Patch")
			if err != nil {
				t.Fatal(err)
			}
			if run.ExitCode != 1 || !run.Denied {
				t.Errorf("sandboxed apply into .git: %+v", run)
			}
			if _, err := os.Stat(filepath.Join(cwd, ".git", "config")); !os.IsNotExist(err) {
				t.Errorf("the sandboxed apply_patch wrote .git/config (%v)", err)
			}
		})
	}
}

// Under untrusted the person is asked about every patch; when a symlink takes a path where
// the sandbox does not let it go, the question says so, and only then may their approval
// write it outside the sandbox.
func TestPatchQuestionNamesHiddenEscapes(t *testing.T) {
	g := New(Options{})
	cwd, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(cwd, "d")); err != nil {
		t.Fatal(err)
	}
	env := (&askRecorder{}).env(protocol.ApprovalUntrusted, workspaceOnly, cwd)
	d := g.Patch(context.Background(), env, verified(t, cwd, "*** Begin Patch\n*** Add File: d/x.txt\n+x\n*** End Patch"))
	want := "Failed to write file " + filepath.Join(cwd, "d", "x.txt") + ": it resolves through the symlink " + filepath.Join(cwd, "d") + " to " + filepath.Join(outside, "x.txt") + ", outside the sandbox's writable roots"
	if d.Verdict != applypatch.AskUser || d.Reason != want || len(d.Confinement.Blocked) != 1 || !d.Confinement.Blocked[0].Hidden {
		t.Errorf("decision %+v\nwant the reason %q", d, want)
	}
	d = g.Patch(context.Background(), env, verified(t, cwd, "*** Begin Patch\n*** Add File: plain.txt\n+x\n*** End Patch"))
	if d.Verdict != applypatch.AskUser || d.Reason != "" {
		t.Errorf("a plain patch: %+v", d)
	}
	// danger-full-access confines nothing.
	d = g.Patch(context.Background(), (&askRecorder{}).env(protocol.ApprovalNever, fullAccess, cwd), verified(t, cwd, "*** Begin Patch\n*** Add File: d/x.txt\n+x\n*** End Patch"))
	if d.Confinement != nil {
		t.Errorf("danger-full-access: %+v", d)
	}
}
