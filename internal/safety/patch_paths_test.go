package safety

import (
	"testing"

	"github.com/gocodex/gocodex/internal/pathstyle"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/protocol"
)

// TestPatchPathsByPlatform: a patch's paths are read as the system spells them (Windows:
// drive letters, backslashes) and compared as its file system does (macOS and Windows:
// without case), so a protected .git cannot be reached as .GIT and a path on another drive
// is outside the project. Platform-neutral: each style is checked here on Linux.
func TestPatchPathsByPlatform(t *testing.T) {
	winRoots := []sandbox.WritableRoot{{Root: `C:\repo`, ReadOnlySubpaths: []string{`C:\repo\.git`, `C:\repo\.codex`}}}
	macRoots := []sandbox.WritableRoot{{Root: "/Users/me/repo", ReadOnlySubpaths: []string{"/Users/me/repo/.git"}}}
	for _, tc := range []struct {
		name  string
		style pathstyle.Style
		cwd   string
		roots []sandbox.WritableRoot
		path  string
		want  Kind
	}{
		{"windows: backslashes inside", pathstyle.Windows, `C:\repo`, winRoots, `src\main.go`, Allow},
		{"windows: slashes inside", pathstyle.Windows, `C:\repo`, winRoots, `src/main.go`, Allow},
		{"windows: absolute inside, other case", pathstyle.Windows, `C:\repo`, winRoots, `c:\REPO\src\main.go`, Allow},
		{"windows: .GIT is .git", pathstyle.Windows, `C:\repo`, winRoots, `.GIT\hooks\pre-commit`, Prompt},
		{"windows: .Codex is .codex", pathstyle.Windows, `C:\repo`, winRoots, `.Codex/config.toml`, Prompt},
		{"windows: another drive", pathstyle.Windows, `C:\repo`, winRoots, `D:\repo\x.txt`, Prompt},
		{"windows: climbing out", pathstyle.Windows, `C:\repo`, winRoots, `src\..\..\x.txt`, Prompt},
		{"windows: rooted on the drive", pathstyle.Windows, `C:\repo`, winRoots, `\Windows\x.txt`, Prompt},
		{"macos: .Git is .git", pathstyle.MacOS, "/Users/me/repo", macRoots, ".Git/config", Prompt},
		{"macos: other case inside", pathstyle.MacOS, "/Users/me/repo", macRoots, "/users/ME/repo/a.txt", Allow},
		{"linux: .GIT is another name", pathstyle.Unix, "/Users/me/repo", macRoots, ".GIT/config", Allow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			style := tc.style
			d := DecidePatch(PatchInput{
				Paths: []string{tc.path}, Cwd: tc.cwd,
				Approval:      protocol.AskForApproval{Mode: protocol.ApprovalModeOnRequest},
				Sandbox:       protocol.NewWorkspaceWritePolicy(),
				WritableRoots: tc.roots,
				PathStyle:     &style,
			})
			if d.Kind != tc.want {
				t.Errorf("%q: decision %v, want %v", tc.path, d.Kind, tc.want)
			}
		})
	}
}
