// Package sandbox confines the commands the model runs to what the sandbox policy allows. On
// Linux the current binary re-executes itself as a helper (HelperMain) that sets no_new_privs,
// applies Landlock (or, where Landlock is missing, a user + mount namespace with read-only
// binds), installs a seccomp filter and then execs the command in place, so no helper process
// stays in the tree. WritableRoots turns a policy into the directories a command may write.
package sandbox

import (
	"encoding/json"
	"fmt"
)

// SandboxMode names the three policies Codex knows.
type SandboxMode string

// The sandbox modes, spelled as on the wire.
const (
	ModeReadOnly         SandboxMode = "read-only"
	ModeWorkspaceWrite   SandboxMode = "workspace-write"
	ModeDangerFullAccess SandboxMode = "danger-full-access"
)

// Policy mirrors protocol.SandboxPolicy (docs/contracts.md); it becomes an alias for it once
// the protocol package carries the type.
type Policy struct {
	Mode                SandboxMode
	WritableRoots       []string
	NetworkAccess       bool
	ExcludeTmpdirEnvVar bool
	ExcludeSlashTmp     bool
}

// HasFullDiskWriteAccess reports whether the policy confines writes at all.
func (p Policy) HasFullDiskWriteAccess() bool { return p.Mode == ModeDangerFullAccess }

// HasFullNetworkAccess reports whether commands may use the network.
func (p Policy) HasFullNetworkAccess() bool {
	return p.Mode == ModeDangerFullAccess || (p.Mode == ModeWorkspaceWrite && p.NetworkAccess)
}

// wirePolicy is Codex's JSON for SandboxPolicy, which the helper receives as
// --sandbox-policy exactly as Codex's own helper does.
type wirePolicy struct {
	Type                SandboxMode `json:"type"`
	WritableRoots       []string    `json:"writable_roots,omitempty"`
	NetworkAccess       bool        `json:"network_access,omitempty"`
	ExcludeTmpdirEnvVar bool        `json:"exclude_tmpdir_env_var,omitempty"`
	ExcludeSlashTmp     bool        `json:"exclude_slash_tmp,omitempty"`
}

func encodePolicy(p Policy) (string, error) {
	w := wirePolicy{Type: p.Mode}
	if p.Mode == ModeWorkspaceWrite {
		w.WritableRoots = p.WritableRoots
		w.NetworkAccess = p.NetworkAccess
		w.ExcludeTmpdirEnvVar = p.ExcludeTmpdirEnvVar
		w.ExcludeSlashTmp = p.ExcludeSlashTmp
	}
	b, err := json.Marshal(w)
	if err != nil {
		return "", fmt.Errorf("encode sandbox policy: %w", err)
	}
	return string(b), nil
}

func decodePolicy(s string) (Policy, error) {
	var w wirePolicy
	if err := json.Unmarshal([]byte(s), &w); err != nil {
		return Policy{}, fmt.Errorf("decode sandbox policy: %w", err)
	}
	switch w.Type {
	case ModeReadOnly, ModeWorkspaceWrite, ModeDangerFullAccess:
	default:
		return Policy{}, fmt.Errorf("decode sandbox policy: unknown type %q", w.Type)
	}
	return Policy{
		Mode:                w.Type,
		WritableRoots:       w.WritableRoots,
		NetworkAccess:       w.NetworkAccess,
		ExcludeTmpdirEnvVar: w.ExcludeTmpdirEnvVar,
		ExcludeSlashTmp:     w.ExcludeSlashTmp,
	}, nil
}
