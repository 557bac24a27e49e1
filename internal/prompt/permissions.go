package prompt

import (
	_ "embed"
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

var (
	//go:embed texts/sandbox/read_only.md
	sandboxReadOnly string
	//go:embed texts/sandbox/workspace_write.md
	sandboxWorkspaceWrite string
	//go:embed texts/sandbox/danger_full_access.md
	sandboxDangerFullAccess string

	//go:embed texts/approval/untrusted.md
	approvalUntrusted string
	//go:embed texts/approval/on_failure.md
	approvalOnFailure string
	//go:embed texts/approval/on_request.md
	approvalOnRequest string
	//go:embed texts/approval/never.md
	approvalNever string
	//go:embed texts/approval/granular.md
	approvalGranular string
)

// The tags around the permissions section; models know them from Codex.
const (
	permissionsOpen  = "<permissions instructions>"
	permissionsClose = "</permissions instructions>"
)

// PermissionsOptions is what the permissions section describes.
type PermissionsOptions struct {
	Sandbox  protocol.SandboxPolicy
	Approval protocol.AskForApproval
	// WritableRoots are the resolved writable roots (the sandbox package computes them from
	// the policy and cwd); listed only for workspace-write.
	WritableRoots []string
}

// Permissions renders the permissions section: one paragraph for the sandbox mode, one for
// the approval policy, then the writable roots when there are any.
func Permissions(opts PermissionsOptions) string {
	network := "restricted"
	if opts.Sandbox.HasFullNetworkAccess() {
		network = "enabled"
	}
	var sandbox string
	switch opts.Sandbox.EffectiveMode() {
	case protocol.SandboxDangerFullAccess:
		sandbox = sandboxDangerFullAccess
	case protocol.SandboxWorkspaceWrite:
		sandbox = sandboxWorkspaceWrite
	default:
		sandbox = sandboxReadOnly
	}
	var approval string
	switch opts.Approval.Effective() {
	case protocol.ApprovalModeUntrusted:
		approval = approvalUntrusted
	case protocol.ApprovalModeOnFailure:
		approval = approvalOnFailure
	case protocol.ApprovalModeNever:
		approval = approvalNever
	case protocol.ApprovalModeGranular:
		approval = approvalGranular
	default:
		approval = approvalOnRequest
	}
	var b strings.Builder
	b.WriteString(permissionsOpen)
	b.WriteByte('\n')
	b.WriteString(strings.TrimSpace(strings.ReplaceAll(sandbox, "{{network}}", network)))
	b.WriteByte('\n')
	b.WriteString(strings.TrimSpace(approval))
	b.WriteByte('\n')
	if opts.Sandbox.EffectiveMode() == protocol.SandboxWorkspaceWrite && len(opts.WritableRoots) > 0 {
		b.WriteString("Writable roots: ")
		for i, r := range opts.WritableRoots {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("`" + r + "`")
		}
		b.WriteString(".\n")
	}
	b.WriteString(permissionsClose)
	return b.String()
}
