package safety

import (
	"os"

	"github.com/gocodex/gocodex/internal/pathstyle"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/protocol"
)

// Reasons a patch is refused without asking (the tool output is "patch rejected: " + reason).
const (
	ReasonEmptyPatch      = "empty patch"
	ReasonOutsideProject  = "writing outside of the project; rejected by user approval settings"
	ReasonReadOnlySandbox = "writing is blocked by read-only sandbox; rejected by user approval settings"
	patchRejectedPrefix   = "patch rejected: "
)

// PatchRejectedMessage is the tool output for a refused patch.
func PatchRejectedMessage(reason string) string { return patchRejectedPrefix + reason }

// PatchInput is everything the decision for one apply_patch call depends on.
type PatchInput struct {
	// Paths are every file the patch writes: added, deleted and updated files and move
	// destinations, absolute or relative to Cwd. Empty means an empty patch.
	Paths    []string
	Cwd      string
	Approval protocol.AskForApproval
	Sandbox  protocol.SandboxPolicy
	// WritableRoots are the roots of a workspace-write sandbox (sandbox.WritableRoots);
	// ignored for the other modes. Nil under workspace-write is computed from Sandbox, Cwd
	// and the process environment.
	WritableRoots []sandbox.WritableRoot
	// Cache is the session's approvals; nil means none.
	Cache *ApprovalCache
	// PathStyle is how paths are spelled and compared; nil is this system's
	// (pathstyle.Host: drive letters and backslashes on Windows, no case on macOS and Windows).
	PathStyle *pathstyle.Style
}

func (in PatchInput) style() pathstyle.Style {
	if in.PathStyle != nil {
		return *in.PathStyle
	}
	return pathstyle.Host()
}

// CacheKeys are the patch's session-cache keys.
func (in PatchInput) CacheKeys() []string { return PatchKeys(in.Paths, in.Cwd) }

// DecidePatch makes Codex's decision for an apply_patch call: an empty patch is refused;
// untrusted always asks; a patch that writes only inside writable roots (or any patch under
// on-failure) runs without asking, sandboxed unless nothing is; otherwise the person is
// asked, or, when no one may be asked (never, granular without sandbox_approval), refused.
func DecidePatch(in PatchInput) Decision {
	if len(in.Paths) == 0 {
		return Decision{Kind: Forbidden, Reason: ReasonEmptyPatch}
	}
	fullAccess := in.Sandbox.HasFullDiskWriteAccess()
	mode := in.Approval.Effective()
	ask := Decision{Kind: Prompt, Sandboxed: !fullAccess}
	if in.Cache != nil && in.Cache.AllApproved(in.CacheKeys()...) {
		ask = Decision{Kind: Allow, Sandboxed: !fullAccess, ApprovedForSession: true}
	}
	if mode == protocol.ApprovalModeUntrusted {
		return ask
	}
	if mode == protocol.ApprovalModeOnFailure || in.writesOnlyWritable() {
		return Decision{Kind: Allow, Sandboxed: !fullAccess}
	}
	if mode == protocol.ApprovalModeNever || (mode == protocol.ApprovalModeGranular && !granular(in.Approval).SandboxApproval) {
		if in.Sandbox.EffectiveMode() == protocol.SandboxReadOnly {
			return Decision{Kind: Forbidden, Reason: ReasonReadOnlySandbox}
		}
		return Decision{Kind: Forbidden, Reason: ReasonOutsideProject}
	}
	return ask
}

func (in PatchInput) writesOnlyWritable() bool {
	switch in.Sandbox.EffectiveMode() {
	case protocol.SandboxDangerFullAccess:
		return true
	case protocol.SandboxReadOnly:
		return false
	}
	roots := in.WritableRoots
	if roots == nil {
		roots = WritableRoots(in.Sandbox, in.Cwd, os.Getenv)
	}
	for _, p := range in.Paths {
		if !isWritableAs(in.style(), in.style().Resolve(in.Cwd, p), roots) {
			return false
		}
	}
	return true
}

// isWritable: inside some root and not under one of its read-only subpaths. Paths are
// compared lexically (`..` already cleaned away) because the files may not exist yet, and
// as the file system compares them: without case on macOS and Windows (.GIT is .git there).
func isWritable(path string, roots []sandbox.WritableRoot) bool {
	return isWritableAs(pathstyle.Host(), path, roots)
}

// isWritableAs is isWritable with the paths spelled and compared in style.
func isWritableAs(style pathstyle.Style, path string, roots []sandbox.WritableRoot) bool {
	for _, r := range roots {
		if !style.Within(path, r.Root) {
			continue
		}
		blocked := false
		for _, ro := range r.ReadOnlySubpaths {
			if style.Within(path, ro) {
				blocked = true
				break
			}
		}
		if !blocked {
			return true
		}
	}
	return false
}

// WritableRoots is sandbox.WritableRoots for callers that only import safety: the
// directories a workspace-write sandbox lets commands and patches write.
func WritableRoots(p protocol.SandboxPolicy, cwd string, env func(string) string) []sandbox.WritableRoot {
	return sandbox.WritableRoots(p, cwd, env)
}

// PatchRetryMayAsk says whether a patch the sandbox refused may be put to the person for a
// write outside the sandbox (Codex's wants_no_sandbox_approval for apply_patch): always,
// but under never and under granular without sandbox_approval. Unlike a command's retry,
// on-request asks too (observed with Codex 0.169).
func PatchRetryMayAsk(approval protocol.AskForApproval) bool {
	switch approval.Effective() {
	case protocol.ApprovalModeNever:
		return false
	case protocol.ApprovalModeGranular:
		return granular(approval).SandboxApproval
	}
	return true
}

// within compares as this system's file system does: without case on macOS and Windows, where
// .GIT\config is .git\config (pathstyle.Host).
func within(path, root string) bool { return pathstyle.Host().Within(path, root) }
