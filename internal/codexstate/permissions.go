package codexstate

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/gocodex/gocodex/protocol"
)

// PermissionProfile is the sandbox_policy column Codex 0.169 writes when it repairs a row
// from a rollout whose turn_context carries a sandbox policy (as gocodex's do): no sandbox
// is "disabled"; otherwise a restricted file system (read everywhere; for workspace-write,
// write to the project, /tmp, $TMPDIR and the extra roots, with the project's protected
// folders read-only) and the network restricted unless the policy allows it.
func PermissionProfile(p protocol.SandboxPolicy, cwd string) string {
	if p.EffectiveMode() == protocol.SandboxDangerFullAccess {
		return `{"type":"disabled"}`
	}
	entries := []fsEntry{special("root", "", "read")}
	network := "restricted"
	if p.EffectiveMode() == protocol.SandboxWorkspaceWrite {
		entries = append(entries, special("project_roots", "", "write"))
		if !p.ExcludeSlashTmp {
			entries = append(entries, special("slash_tmp", "", "write"))
		}
		if !p.ExcludeTmpdirEnvVar {
			entries = append(entries, special("tmpdir", "", "write"))
		}
		for _, root := range p.WritableRoots {
			entries = append(entries, fsEntry{Path: fsPath{Type: "path", Path: root}, Access: "write"})
		}
		for _, sub := range protectedFolders {
			entries = append(entries, skipIfMissing(special("project_roots", sub, "read")))
		}
		// The project's own protected folders again by path: those that exist, and .codex
		// always (Codex's repair writes them so).
		for _, sub := range protectedFolders {
			path := filepath.Join(cwd, sub)
			if _, err := os.Lstat(path); err == nil || sub == ".codex" {
				entries = append(entries, skipIfMissing(fsEntry{Path: fsPath{Type: "path", Path: path}, Access: "read"}))
			}
		}
		if p.NetworkAccess {
			network = "enabled"
		}
	}
	b, _ := json.Marshal(profile{Type: "managed", FileSystem: fileSystem{Type: "restricted", Entries: entries}, Network: network})
	return string(b)
}

// protectedFolders stay read-only inside a writable project.
var protectedFolders = []string{".git", ".agents", ".codex", ".aws"}

type profile struct {
	Type       string     `json:"type"`
	FileSystem fileSystem `json:"file_system"`
	Network    string     `json:"network"`
}

type fileSystem struct {
	Type    string    `json:"type"`
	Entries []fsEntry `json:"entries"`
}

type fsEntry struct {
	Path          fsPath `json:"path"`
	Access        string `json:"access"`
	MissingPathIs string `json:"missing_path_behavior,omitempty"`
}

type fsPath struct {
	Type  string        `json:"type"`
	Path  string        `json:"path,omitempty"`
	Value *specialValue `json:"value,omitempty"`
}

type specialValue struct {
	Kind    string `json:"kind"`
	Subpath string `json:"subpath,omitempty"`
}

func special(kind, subpath, access string) fsEntry {
	return fsEntry{Path: fsPath{Type: "special", Value: &specialValue{Kind: kind, Subpath: subpath}}, Access: access}
}

func skipIfMissing(e fsEntry) fsEntry {
	e.MissingPathIs = "skip"
	return e
}
