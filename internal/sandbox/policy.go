// Package sandbox confines the commands the model runs to what the sandbox policy allows. On
// Linux the current binary re-executes itself as a helper (HelperMain) that sets no_new_privs,
// applies Landlock (or, where Landlock is missing, a user + mount namespace with read-only
// binds), installs a seccomp filter and then execs the command in place, so no helper process
// stays in the tree. On macOS the command runs under /usr/bin/sandbox-exec with a Seatbelt
// profile built for the policy (NewSeatbeltProfile); on Windows every policy but
// danger-full-access is refused (WindowsRefusal). WritableRoots turns a policy into the
// directories a command may write.
package sandbox

import (
	"encoding/json"
	"fmt"

	"github.com/gocodex/gocodex/protocol"
)

// The helper receives the policy as --sandbox-policy in Codex's own JSON, as Codex's helper does.

func encodePolicy(p protocol.SandboxPolicy) (string, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("encode sandbox policy: %w", err)
	}
	return string(b), nil
}

func decodePolicy(s string) (protocol.SandboxPolicy, error) {
	var p protocol.SandboxPolicy
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return protocol.SandboxPolicy{}, fmt.Errorf("decode sandbox policy: %w", err)
	}
	return p, nil
}
