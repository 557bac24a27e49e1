package codexstate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

// The sandbox_policy column Codex 0.169's repair wrote for gocodex threads run with each
// policy (recorded 2026-11-27 from app-server thread/list over rollouts gocodex wrote; CWD
// stands for the thread's directory).
func TestPermissionProfileMatchesCodexRepair(t *testing.T) {
	const (
		head      = `{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"}`
		project   = `,{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"}`
		tmps      = `,{"path":{"type":"special","value":{"kind":"slash_tmp"}},"access":"write"},{"path":{"type":"special","value":{"kind":"tmpdir"}},"access":"write"}`
		protected = `,{"path":{"type":"special","value":{"kind":"project_roots","subpath":".git"}},"access":"read","missing_path_behavior":"skip"},{"path":{"type":"special","value":{"kind":"project_roots","subpath":".agents"}},"access":"read","missing_path_behavior":"skip"},{"path":{"type":"special","value":{"kind":"project_roots","subpath":".codex"}},"access":"read","missing_path_behavior":"skip"},{"path":{"type":"special","value":{"kind":"project_roots","subpath":".aws"}},"access":"read","missing_path_behavior":"skip"}`
		gitDir    = `,{"path":{"type":"path","path":"CWD/.git"},"access":"read","missing_path_behavior":"skip"}`
		agentsDir = `,{"path":{"type":"path","path":"CWD/.agents"},"access":"read","missing_path_behavior":"skip"}`
		codexDir  = `,{"path":{"type":"path","path":"CWD/.codex"},"access":"read","missing_path_behavior":"skip"}`
	)
	ww := protocol.NewWorkspaceWritePolicy()
	withRoot := ww
	withRoot.WritableRoots, withRoot.NetworkAccess = []string{"/tmp/sq/wr"}, true
	noTmp := ww
	noTmp.ExcludeSlashTmp, noTmp.ExcludeTmpdirEnvVar = true, true
	cases := []struct {
		name   string
		policy protocol.SandboxPolicy
		dirs   []string // made in the thread's directory
		want   string
	}{
		{"full access", protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}, nil, `{"type":"disabled"}`},
		{"read-only", protocol.NewReadOnlyPolicy(), nil, head + `]},"network":"restricted"}`},
		{"workspace-write in a git repo", ww, []string{".git"}, head + project + tmps + protected + gitDir + codexDir + `]},"network":"restricted"}`},
		{"workspace-write with .agents", ww, []string{".agents"}, head + project + tmps + protected + agentsDir + codexDir + `]},"network":"restricted"}`},
		{"workspace-write, extra root and network", withRoot, nil, head + project + tmps +
			`,{"path":{"type":"path","path":"/tmp/sq/wr"},"access":"write"}` + protected + codexDir + `]},"network":"enabled"}`},
		{"workspace-write without the temp dirs", noTmp, nil, head + project + protected + codexDir + `]},"network":"restricted"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cwd := t.TempDir()
			for _, d := range c.dirs {
				if err := os.Mkdir(filepath.Join(cwd, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			want := strings.ReplaceAll(c.want, "CWD", cwd)
			if got := PermissionProfile(c.policy, cwd); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}
