package guard

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/internal/tools/applypatch"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// BenchmarkApplyPatch is one apply_patch call through the tool, as the engine makes it
// (verify, decide, write, events), under danger-full-access (written in this process) and
// workspace-write (written inside the sandbox, a helper and apply_patch started per call):
//
//	go test -run '^$' -bench ApplyPatch -count 6 ./internal/guard/
//
// The sandbox re-executes the test binary, which starts a little slower than gocodex.
func BenchmarkApplyPatch(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	policies := []struct {
		name   string
		policy protocol.SandboxPolicy
	}{
		{"danger-full-access", protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}},
		{"workspace-write", protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true}},
	}
	// Two patches that undo each other, so every call edits the file.
	patches := [2]string{
		"*** Begin Patch\n*** Update File: file.txt\n@@\n-one\n+two\n*** Add File: added.txt\n+new\n*** End Patch",
		"*** Begin Patch\n*** Update File: file.txt\n@@\n-two\n+one\n*** Add File: added.txt\n+new\n*** End Patch",
	}
	for _, p := range policies {
		b.Run(p.name, func(b *testing.B) {
			cwd := b.TempDir()
			if err := os.WriteFile(filepath.Join(cwd, "file.txt"), []byte("one\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			g := New(Options{Sandbox: sandbox.Options{Executable: exe}})
			h := applypatch.New(applypatch.Options{Freeform: true, Decide: g.Patch})
			env := &tool.Env{
				TurnID: "turn", Cwd: cwd, Approval: protocol.ApprovalNever, Sandbox: p.policy,
				Emit: func(protocol.EventMsg) {},
			}
			i := 0
			for b.Loop() {
				res, err := h.Handle(context.Background(), env, tool.Call{Kind: tool.CustomCall, CallID: "c", Arguments: patches[i%2]})
				if err != nil || !res.Success {
					b.Fatalf("apply_patch: %v %q", err, res.Output)
				}
				i++
			}
		})
	}
}
