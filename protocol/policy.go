package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ApprovalMode is the string form of an approval policy.
type ApprovalMode string

// The approval modes Codex knows; granular is written as an object, the others as strings.
const (
	ApprovalModeUntrusted ApprovalMode = "untrusted"
	ApprovalModeOnFailure ApprovalMode = "on-failure"
	ApprovalModeOnRequest ApprovalMode = "on-request"
	ApprovalModeNever     ApprovalMode = "never"
	ApprovalModeGranular  ApprovalMode = "granular"
)

// GranularApproval says, per kind of prompt, whether Codex may ask the person (true) or must
// decide on its own (false, the request is rejected).
type GranularApproval struct {
	SandboxApproval    bool `json:"sandbox_approval"`
	Rules              bool `json:"rules"`
	SkillApproval      bool `json:"skill_approval"`
	RequestPermissions bool `json:"request_permissions"`
	McpElicitations    bool `json:"mcp_elicitations"`
}

// AskForApproval decides when the person is consulted before a command runs. The zero value
// is on-request, Codex's default.
type AskForApproval struct {
	Mode     ApprovalMode
	Granular *GranularApproval
}

// The plain approval policies.
var (
	ApprovalUntrusted = AskForApproval{Mode: ApprovalModeUntrusted}
	ApprovalOnFailure = AskForApproval{Mode: ApprovalModeOnFailure}
	ApprovalOnRequest = AskForApproval{Mode: ApprovalModeOnRequest}
	ApprovalNever     = AskForApproval{Mode: ApprovalModeNever}
)

// Effective returns the mode with the zero value read as on-request.
func (a AskForApproval) Effective() ApprovalMode {
	if a.Mode == "" {
		if a.Granular != nil {
			return ApprovalModeGranular
		}
		return ApprovalModeOnRequest
	}
	return a.Mode
}

// String returns the kebab-case name ("granular" for the object form).
func (a AskForApproval) String() string { return string(a.Effective()) }

// MarshalJSON writes the kebab-case string, or {"granular":{...}}.
func (a AskForApproval) MarshalJSON() ([]byte, error) {
	mode := a.Effective()
	if mode == ApprovalModeGranular {
		g := GranularApproval{}
		if a.Granular != nil {
			g = *a.Granular
		}
		return Marshal(struct {
			Granular GranularApproval `json:"granular"`
		}{g})
	}
	return Marshal(string(mode))
}

// UnmarshalJSON accepts the kebab-case strings, the granular object and the older
// `{"reject":{...}}` object and `unless-trusted` spelling.
func (a *AskForApproval) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			return err
		}
		for _, key := range []string{"granular", "reject"} {
			raw, ok := obj[key]
			if !ok {
				continue
			}
			var g GranularApproval
			if err := json.Unmarshal(raw, &g); err != nil {
				return fmt.Errorf("approval policy %s: %w", key, err)
			}
			*a = AskForApproval{Mode: ApprovalModeGranular, Granular: &g}
			return nil
		}
		return fmt.Errorf("unknown approval policy object %s", truncateForError(data))
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	mode, err := ParseApprovalMode(s)
	if err != nil {
		return err
	}
	*a = AskForApproval{Mode: mode}
	return nil
}

// ParseApprovalMode reads the string forms of an approval policy (as config.toml and the
// --ask-for-approval flag spell them).
func ParseApprovalMode(s string) (ApprovalMode, error) {
	switch s {
	case "untrusted", "unless-trusted", "unlessTrusted":
		return ApprovalModeUntrusted, nil
	case "on-failure", "onFailure":
		return ApprovalModeOnFailure, nil
	case "on-request", "onRequest":
		return ApprovalModeOnRequest, nil
	case "never":
		return ApprovalModeNever, nil
	}
	return "", fmt.Errorf("unknown variant `%s`, expected one of `untrusted`, `on-failure`, `on-request`, `granular`, `never`", s)
}

// SandboxMode names a sandbox policy.
type SandboxMode string

// The sandbox modes.
const (
	SandboxReadOnly         SandboxMode = "read-only"
	SandboxWorkspaceWrite   SandboxMode = "workspace-write"
	SandboxDangerFullAccess SandboxMode = "danger-full-access"
)

// SandboxPolicy restricts what commands the model runs may touch. The zero value is
// read-only.
type SandboxPolicy struct {
	Mode SandboxMode
	// The rest only apply to workspace-write.
	WritableRoots       []string
	NetworkAccess       bool
	ExcludeTmpdirEnvVar bool
	ExcludeSlashTmp     bool
}

// NewReadOnlyPolicy returns the read-only policy.
func NewReadOnlyPolicy() SandboxPolicy { return SandboxPolicy{Mode: SandboxReadOnly} }

// NewWorkspaceWritePolicy returns workspace-write with no extra roots and no network.
func NewWorkspaceWritePolicy() SandboxPolicy { return SandboxPolicy{Mode: SandboxWorkspaceWrite} }

// EffectiveMode reads the zero value as read-only.
func (p SandboxPolicy) EffectiveMode() SandboxMode {
	if p.Mode == "" {
		return SandboxReadOnly
	}
	return p.Mode
}

// HasFullDiskWriteAccess is true only for danger-full-access.
func (p SandboxPolicy) HasFullDiskWriteAccess() bool {
	return p.EffectiveMode() == SandboxDangerFullAccess
}

// HasFullNetworkAccess is true for danger-full-access, and for workspace-write with
// network_access.
func (p SandboxPolicy) HasFullNetworkAccess() bool {
	switch p.EffectiveMode() {
	case SandboxDangerFullAccess:
		return true
	case SandboxWorkspaceWrite:
		return p.NetworkAccess
	}
	return false
}

// String returns the mode name.
func (p SandboxPolicy) String() string { return string(p.EffectiveMode()) }

type workspaceWriteWire struct {
	WritableRoots       []string `json:"writable_roots,omitempty"`
	NetworkAccess       bool     `json:"network_access"`
	ExcludeTmpdirEnvVar bool     `json:"exclude_tmpdir_env_var"`
	ExcludeSlashTmp     bool     `json:"exclude_slash_tmp"`
}

// MarshalJSON writes Codex's `{"type":"<mode>",...}` form.
func (p SandboxPolicy) MarshalJSON() ([]byte, error) {
	mode := p.EffectiveMode()
	switch mode {
	case SandboxWorkspaceWrite:
		return marshalTagged(sandboxTagKey, string(mode), workspaceWriteWire{
			WritableRoots:       p.WritableRoots,
			NetworkAccess:       p.NetworkAccess,
			ExcludeTmpdirEnvVar: p.ExcludeTmpdirEnvVar,
			ExcludeSlashTmp:     p.ExcludeSlashTmp,
		})
	case SandboxReadOnly, SandboxDangerFullAccess:
		return marshalTagged(sandboxTagKey, string(mode), struct{}{})
	}
	return nil, fmt.Errorf("unknown sandbox mode %q", mode)
}

// sandboxTagKey is the key Codex 0.169 writes the mode under.
const sandboxTagKey = "type"

// UnmarshalJSON accepts the tag under "type" (0.169) or "mode" (older), kebab-case or
// camelCase, and the bare string form.
func (p *SandboxPolicy) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		mode, err := ParseSandboxMode(s)
		if err != nil {
			return err
		}
		*p = SandboxPolicy{Mode: mode}
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return err
	}
	raw, ok := obj["type"]
	if !ok {
		raw, ok = obj["mode"]
	}
	if !ok {
		return fmt.Errorf("sandbox policy: missing field `type`")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("sandbox policy type: %w", err)
	}
	mode, err := ParseSandboxMode(s)
	if err != nil {
		return err
	}
	out := SandboxPolicy{Mode: mode}
	if mode == SandboxWorkspaceWrite {
		var w struct {
			WritableRoots         []string `json:"writable_roots"`
			WritableRootsCamel    []string `json:"writableRoots"`
			NetworkAccess         *bool    `json:"network_access"`
			NetworkAccessCamel    *bool    `json:"networkAccess"`
			ExcludeTmpdirEnvVar   bool     `json:"exclude_tmpdir_env_var"`
			ExcludeTmpdirEnvCamel bool     `json:"excludeTmpdirEnvVar"`
			ExcludeSlashTmp       bool     `json:"exclude_slash_tmp"`
			ExcludeSlashTmpCamel  bool     `json:"excludeSlashTmp"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return fmt.Errorf("sandbox policy: %w", err)
		}
		out.WritableRoots = append(w.WritableRoots, w.WritableRootsCamel...)
		if len(out.WritableRoots) == 0 {
			out.WritableRoots = nil
		}
		out.NetworkAccess = (w.NetworkAccess != nil && *w.NetworkAccess) || (w.NetworkAccessCamel != nil && *w.NetworkAccessCamel)
		out.ExcludeTmpdirEnvVar = w.ExcludeTmpdirEnvVar || w.ExcludeTmpdirEnvCamel
		out.ExcludeSlashTmp = w.ExcludeSlashTmp || w.ExcludeSlashTmpCamel
	}
	*p = out
	return nil
}

// ParseSandboxMode reads a sandbox mode name in kebab-case or camelCase.
func ParseSandboxMode(s string) (SandboxMode, error) {
	switch s {
	case "read-only", "readOnly":
		return SandboxReadOnly, nil
	case "workspace-write", "workspaceWrite":
		return SandboxWorkspaceWrite, nil
	case "danger-full-access", "dangerFullAccess":
		return SandboxDangerFullAccess, nil
	}
	return "", fmt.Errorf("unknown variant `%s`, expected one of `danger-full-access`, `read-only`, `workspace-write`", s)
}

// ReviewDecisionKind is the person's answer to an approval request.
type ReviewDecisionKind string

// The review decisions. The zero value reads as denied.
const (
	DecisionApproved                    ReviewDecisionKind = "approved"
	DecisionApprovedForSession          ReviewDecisionKind = "approved_for_session"
	DecisionApprovedExecpolicyAmendment ReviewDecisionKind = "approved_execpolicy_amendment"
	DecisionDenied                      ReviewDecisionKind = "denied"
	DecisionAbort                       ReviewDecisionKind = "abort"
	DecisionTimedOut                    ReviewDecisionKind = "timed_out"
	DecisionNetworkPolicyAmendment      ReviewDecisionKind = "network_policy_amendment"
	DecisionApprovedMcpPolicyAmendment  ReviewDecisionKind = "approved_mcp_policy_amendment"
)

// NetworkPolicyAmendment allows or denies a host from now on.
type NetworkPolicyAmendment struct {
	Host   string `json:"host"`
	Action string `json:"action"` // "allow" or "deny"
}

// ReviewDecision is the person's answer to an exec or patch approval request.
// ExecpolicyAmendment is only used with approved_execpolicy_amendment: the command prefix to
// allow from now on.
type ReviewDecision struct {
	Kind                ReviewDecisionKind
	ExecpolicyAmendment []string
	// NetworkPolicyAmendment is only used with network_policy_amendment.
	NetworkPolicyAmendment *NetworkPolicyAmendment
	// Rejection is the person's reason for a denial; when set, denied is written in
	// 0.169's object form {"denied":{"rejection":…}}, otherwise as the plain "denied".
	Rejection string
}

// EffectiveKind reads the zero value as denied.
func (d ReviewDecision) EffectiveKind() ReviewDecisionKind {
	if d.Kind == "" {
		return DecisionDenied
	}
	return d.Kind
}

// IsApproved is true for every approving decision.
func (d ReviewDecision) IsApproved() bool {
	switch d.EffectiveKind() {
	case DecisionApproved, DecisionApprovedForSession, DecisionApprovedExecpolicyAmendment, DecisionApprovedMcpPolicyAmendment:
		return true
	case DecisionNetworkPolicyAmendment:
		return d.NetworkPolicyAmendment != nil && d.NetworkPolicyAmendment.Action == "allow"
	}
	return false
}

// MarshalJSON writes the snake_case string or the amendment object.
func (d ReviewDecision) MarshalJSON() ([]byte, error) {
	kind := d.EffectiveKind()
	if kind == DecisionApprovedExecpolicyAmendment {
		amend := d.ExecpolicyAmendment
		if amend == nil {
			amend = []string{}
		}
		type inner struct {
			Proposed []string `json:"proposed_execpolicy_amendment"`
		}
		return Marshal(struct {
			V inner `json:"approved_execpolicy_amendment"`
		}{inner{amend}})
	}
	if kind == DecisionDenied && d.Rejection != "" {
		type inner struct {
			Rejection string `json:"rejection"`
		}
		return Marshal(struct {
			V inner `json:"denied"`
		}{inner{d.Rejection}})
	}
	if kind == DecisionNetworkPolicyAmendment {
		amend := NetworkPolicyAmendment{}
		if d.NetworkPolicyAmendment != nil {
			amend = *d.NetworkPolicyAmendment
		}
		type inner struct {
			A NetworkPolicyAmendment `json:"network_policy_amendment"`
		}
		return Marshal(struct {
			V inner `json:"network_policy_amendment"`
		}{inner{amend}})
	}
	return Marshal(string(kind))
}

// UnmarshalJSON reads the string and object forms.
func (d *ReviewDecision) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var obj struct {
			V *struct {
				Proposed []string `json:"proposed_execpolicy_amendment"`
			} `json:"approved_execpolicy_amendment"`
			N *struct {
				A NetworkPolicyAmendment `json:"network_policy_amendment"`
			} `json:"network_policy_amendment"`
			D *struct {
				Rejection string `json:"rejection"`
			} `json:"denied"`
		}
		if err := json.Unmarshal(data, &obj); err != nil {
			return err
		}
		switch {
		case obj.V != nil:
			*d = ReviewDecision{Kind: DecisionApprovedExecpolicyAmendment, ExecpolicyAmendment: obj.V.Proposed}
		case obj.N != nil:
			a := obj.N.A
			*d = ReviewDecision{Kind: DecisionNetworkPolicyAmendment, NetworkPolicyAmendment: &a}
		case obj.D != nil:
			*d = ReviewDecision{Kind: DecisionDenied, Rejection: obj.D.Rejection}
		default:
			return fmt.Errorf("unknown review decision %s", truncateForError(data))
		}
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	switch k := ReviewDecisionKind(s); k {
	case DecisionApproved, DecisionApprovedForSession, DecisionApprovedMcpPolicyAmendment, DecisionDenied, DecisionAbort, DecisionTimedOut:
		*d = ReviewDecision{Kind: k}
		return nil
	}
	return fmt.Errorf("unknown variant `%s`, expected one of `approved`, `approved_execpolicy_amendment`, `approved_for_session`, `approved_mcp_policy_amendment`, `network_policy_amendment`, `denied`, `timed_out`, `abort`", s)
}

func truncateForError(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}
