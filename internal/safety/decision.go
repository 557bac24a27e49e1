package safety

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gocodex/gocodex/internal/safety/execpolicy"
	"github.com/gocodex/gocodex/internal/shellquote"
	"github.com/gocodex/gocodex/protocol"
)

// SandboxPermissions is the model's `sandbox_permissions` argument to shell and exec_command.
// The zero value reads as use_default.
type SandboxPermissions string

// The values the model may send.
const (
	UseDefault                SandboxPermissions = "use_default"
	RequireEscalated          SandboxPermissions = "require_escalated"
	WithAdditionalPermissions SandboxPermissions = "with_additional_permissions"
)

// RequestsOverride is true when the model asks for more than the sandbox gives.
func (s SandboxPermissions) RequestsOverride() bool {
	return s == RequireEscalated || s == WithAdditionalPermissions
}

// Kind is the outcome of an approval decision.
type Kind int

// The outcomes.
const (
	// Allow runs the command (or patch) without asking.
	Allow Kind = iota
	// Prompt asks the person first (exec_approval_request / apply_patch_approval_request).
	Prompt
	// Forbidden refuses; Reason is the exact text the model receives.
	Forbidden
)

func (k Kind) String() string {
	switch k {
	case Allow:
		return "allow"
	case Prompt:
		return "prompt"
	case Forbidden:
		return "forbidden"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Decision is what to do with one tool call.
type Decision struct {
	Kind Kind
	// Sandboxed says whether the (first) run happens inside the sandbox: for Allow right
	// away, for Prompt once the person approves. False under danger-full-access, for
	// require_escalated, and for commands every part of which an execpolicy allow rule
	// matched.
	Sandboxed bool
	// Reason: for Prompt the reason shown with the request (empty unless a prompt rule
	// caused it); for Forbidden the message for the model.
	Reason string
	// ProposedAmendment is the command prefix offered as "don't ask again for commands
	// starting with …" (approved_execpolicy_amendment); nil when none applies.
	ProposedAmendment []string
	// ApprovedForSession marks an Allow that exists only because every approval key was
	// approved for the session earlier.
	ApprovedForSession bool
}

// ExecInput is everything the decision for one command depends on.
type ExecInput struct {
	Command []string
	Cwd     string
	// Tty is exec_command's `tty`; it only takes part in the session-cache key.
	Tty                bool
	Approval           protocol.AskForApproval
	Sandbox            protocol.SandboxPolicy
	SandboxPermissions SandboxPermissions
	// AdditionalPermissions is the model's additional_permissions argument as sent (raw
	// JSON); it only takes part in the session-cache key.
	AdditionalPermissions json.RawMessage
	// Policy holds the execpolicy rules; nil means none.
	Policy *execpolicy.Policy
	// Cache is the session's approvals; nil means nothing was approved for the session.
	Cache *ApprovalCache
	// PrefixRule is the model's suggested `prefix_rule` for an amendment, if any.
	PrefixRule []string
	// Justification is the model's `justification`; it is the reason shown with a prompt no
	// rule explains.
	Justification string
}

// Texts the model receives when a prompt cannot be shown (Codex's wording).
const (
	reasonNeverPrompts       = "approval required by policy, but AskForApproval is set to Never"
	reasonGranularNoSandbox  = "approval required by policy, but AskForApproval::Granular.sandbox_approval is false"
	reasonGranularNoRules    = "approval required by policy rule, but AskForApproval::Granular.rules is false"
	RetryWithoutSandboxQuery = "command failed; retry without sandbox?"
	reasonForcedRm           = "rm -f style commands are not permitted. Use a safer approach"
)

// bannedPrefixSuggestions are prefixes too broad to offer as "always allow": they would allow
// any program through an interpreter.
var bannedPrefixSuggestions = [][]string{
	{"python3"}, {"python3", "-"}, {"python3", "-c"}, {"python"}, {"python", "-"}, {"python", "-c"},
	{"py"}, {"py", "-3"}, {"pythonw"}, {"pyw"}, {"pypy"}, {"pypy3"}, {"git"},
	{"bash"}, {"bash", "-lc"}, {"sh"}, {"sh", "-c"}, {"sh", "-lc"}, {"zsh"}, {"zsh", "-lc"},
	{"/bin/zsh"}, {"/bin/zsh", "-lc"}, {"/bin/bash"}, {"/bin/bash", "-lc"},
	{"pwsh"}, {"pwsh", "-Command"}, {"pwsh", "-c"}, {"powershell"}, {"powershell", "-Command"},
	{"powershell", "-c"}, {"powershell.exe"}, {"powershell.exe", "-Command"}, {"powershell.exe", "-c"},
	{"env"}, {"sudo"}, {"node"}, {"node", "-e"}, {"perl"}, {"perl", "-e"}, {"ruby"}, {"ruby", "-e"},
	{"php"}, {"php", "-r"}, {"lua"}, {"lua", "-e"}, {"osascript"},
}

// EscalationRejection returns the message for a model that asks for escalated or additional
// permissions when no one could approve them (never, the deprecated on-failure, granular
// without sandbox_approval); "" when the request may go on to the approval decision. The
// check comes before anything else: the command does not run.
func EscalationRejection(approval protocol.AskForApproval, perms SandboxPermissions) string {
	if !perms.RequestsOverride() {
		return ""
	}
	switch approval.Effective() {
	case protocol.ApprovalModeNever, protocol.ApprovalModeOnFailure:
	case protocol.ApprovalModeGranular:
		if granular(approval).SandboxApproval {
			return ""
		}
	default:
		return ""
	}
	name := approvalDebugName(approval)
	if perms == WithAdditionalPermissions {
		return fmt.Sprintf("approval policy is %s; reject command — you cannot request additional permissions unless the approval policy is OnRequest", name)
	}
	return fmt.Sprintf("approval policy is %s; reject command — you cannot ask for escalated permissions if the approval policy is %s", name, name)
}

// approvalDebugName spells a policy the way Codex's messages do (its Rust debug form).
func approvalDebugName(a protocol.AskForApproval) string {
	switch a.Effective() {
	case protocol.ApprovalModeUntrusted:
		return "UnlessTrusted"
	case protocol.ApprovalModeOnFailure:
		return "OnFailure"
	case protocol.ApprovalModeOnRequest:
		return "OnRequest"
	case protocol.ApprovalModeNever:
		return "Never"
	}
	g := granular(a)
	return fmt.Sprintf("Granular(GranularApprovalConfig { sandbox_approval: %t, rules: %t, skill_approval: %t, request_permissions: %t, mcp_elicitations: %t })",
		g.SandboxApproval, g.Rules, g.SkillApproval, g.RequestPermissions, g.McpElicitations)
}

func granular(a protocol.AskForApproval) protocol.GranularApproval {
	if a.Granular == nil {
		return protocol.GranularApproval{}
	}
	return *a.Granular
}

// ExecCommands splits a command the way execpolicy sees it: the sub-commands of a plain
// `bash -lc` script, else argv itself. (Codex 0.169 does not look inside other scripts, not
// even a single command reading a here-document: `python3 <<'EOF'` matches no python3 rule.)
func ExecCommands(argv []string) [][]string {
	if cmds, ok := ParseShellPlainCommands(argv); ok {
		return cmds
	}
	return [][]string{argv}
}

// DecideExec makes Codex's approval decision for one command: the escalation guard,
// execpolicy rules with the heuristics for unmatched sub-commands, prompt suppression by the
// approval policy, and the session cache.
//
// Where the reference binary (Codex 0.169, driven through exec and app-server) and the
// written spec differ, this follows the binary: known-safe commands are not auto-approved
// (under untrusted even `ls` is asked about), a forced rm under never is refused with
// "rm -f style commands are not permitted" whatever the sandbox, a prompt for a forced rm is
// not suppressed by granular flags, and untrusted may ask for escalation.
func DecideExec(in ExecInput) Decision {
	if msg := EscalationRejection(in.Approval, in.SandboxPermissions); msg != "" {
		return Decision{Kind: Forbidden, Reason: msg}
	}
	cmds := ExecCommands(in.Command)
	dangerous := map[string]bool{} // sub-commands the heuristics judged as forced rm
	fallback := func(cmd []string) execpolicy.Decision {
		d, isDangerous := unmatchedDecision(cmd, in.Approval, in.Sandbox, in.SandboxPermissions)
		if isDangerous {
			dangerous[strings.Join(cmd, "\x00")] = true
		}
		return d
	}
	opts := execpolicy.MatchOptions{ResolveHostExecutables: true}
	ev := in.Policy.Check(cmds, fallback, opts)
	fullAccess := in.Sandbox.HasFullDiskWriteAccess()
	isDangerous := func(m execpolicy.RuleMatch) bool {
		return m.Heuristics && dangerous[strings.Join(m.Command, "\x00")]
	}

	switch ev.Decision {
	case execpolicy.Forbidden:
		return Decision{Kind: Forbidden, Reason: forbiddenReason(in.Command, ev, isDangerous)}
	case execpolicy.Prompt:
		// Which kind of prompt this is decides whether the policy lets it be shown: a rule
		// prompt answers to granular.rules, a sandbox prompt to granular.sandbox_approval,
		// and a forced-rm prompt is always shown.
		promptIsRule, sandboxPrompt := false, false
		for _, m := range ev.MatchedRules {
			switch {
			case m.Decision != execpolicy.Prompt:
			case !m.Heuristics:
				promptIsRule = true
			case !isDangerous(m):
				sandboxPrompt = true
			}
		}
		if promptIsRule || sandboxPrompt {
			if reason := promptRejection(in.Approval, promptIsRule); reason != "" {
				return Decision{Kind: Forbidden, Reason: reason}
			}
		}
		d := Decision{
			Kind:      Prompt,
			Sandboxed: !fullAccess && in.SandboxPermissions != RequireEscalated,
			Reason:    promptReason(in.Command, ev),
		}
		if d.Reason == "" {
			d.Reason = in.Justification
		}
		if sandboxPrompt || in.Approval.Effective() != protocol.ApprovalModeGranular || granular(in.Approval).SandboxApproval {
			d.ProposedAmendment = requestedAmendment(in, cmds, ev, fallback)
			if d.ProposedAmendment == nil {
				d.ProposedAmendment = promptAmendment(ev)
			}
		}
		if in.Cache != nil && in.Cache.AllApproved(in.CacheKey()) {
			d.Kind = Allow
			d.Reason = ""
			d.ApprovedForSession = true
		}
		return d
	}
	// Allow. The sandbox is skipped only when rules vouch for every part of the command.
	bypass := true
	for _, cmd := range cmds {
		explicit := false
		for _, m := range in.Policy.Matches(cmd, opts) {
			if m.Decision == execpolicy.Allow {
				explicit = true
			}
		}
		bypass = bypass && explicit
	}
	d := Decision{
		Kind:      Allow,
		Sandboxed: !fullAccess && !bypass && in.SandboxPermissions != RequireEscalated,
	}
	if !ev.IsPolicyMatch() {
		// Offered if the sandboxed run fails and the person is asked to retry without it.
		for _, m := range ev.MatchedRules {
			if m.Heuristics && m.Decision == execpolicy.Allow {
				d.ProposedAmendment = slices.Clone(m.Command)
				break
			}
		}
	}
	return d
}

// unmatchedDecision is the heuristic for a (sub-)command no rule matches; dangerous reports
// a forced rm, whose prompts and refusals are worded and suppressed differently.
func unmatchedDecision(cmd []string, approval protocol.AskForApproval, sandbox protocol.SandboxPolicy, perms SandboxPermissions) (d execpolicy.Decision, dangerous bool) {
	mode := approval.Effective()
	if IsDangerous(cmd) {
		if mode == protocol.ApprovalModeNever {
			return execpolicy.Forbidden, true
		}
		return execpolicy.Prompt, true
	}
	switch mode {
	case protocol.ApprovalModeNever, protocol.ApprovalModeOnFailure:
		return execpolicy.Allow, false // the sandbox is the protection
	case protocol.ApprovalModeUntrusted:
		return execpolicy.Prompt, false
	}
	// on-request and granular: ask only when the model wants out of a confining sandbox.
	if sandbox.HasFullDiskWriteAccess() || !perms.RequestsOverride() {
		return execpolicy.Allow, false
	}
	return execpolicy.Prompt, false
}

// promptRejection says why a prompt may not be shown under this policy, or "".
func promptRejection(approval protocol.AskForApproval, promptIsRule bool) string {
	switch approval.Effective() {
	case protocol.ApprovalModeNever:
		return reasonNeverPrompts
	case protocol.ApprovalModeGranular:
		g := granular(approval)
		if promptIsRule {
			if !g.Rules {
				return reasonGranularNoRules
			}
			return ""
		}
		if !g.SandboxApproval {
			return reasonGranularNoSandbox
		}
	}
	return ""
}

// forbiddenReason names the most specific forbidding rule and its justification.
func forbiddenReason(argv []string, ev execpolicy.Evaluation, isDangerous func(execpolicy.RuleMatch) bool) string {
	cmd := shellquote.Join(argv)
	var best *execpolicy.RuleMatch
	forcedRm := false
	for i, m := range ev.MatchedRules {
		if m.Decision != execpolicy.Forbidden {
			continue
		}
		if m.Heuristics {
			forcedRm = forcedRm || isDangerous(m)
			continue
		}
		if best == nil || len(m.MatchedPrefix) > len(best.MatchedPrefix) {
			best = &ev.MatchedRules[i]
		}
	}
	switch {
	case best == nil && forcedRm:
		return fmt.Sprintf("`%s` rejected: %s", cmd, reasonForcedRm)
	case best == nil:
		return fmt.Sprintf("`%s` rejected: blocked by policy", cmd)
	case best.Justification != "":
		return fmt.Sprintf("`%s` rejected: %s", cmd, best.Justification)
	}
	return fmt.Sprintf("`%s` rejected: policy forbids commands starting with `%s`", cmd, shellquote.Join(best.MatchedPrefix))
}

// promptReason explains a prompt a rule caused; heuristic prompts carry no reason.
func promptReason(argv []string, ev execpolicy.Evaluation) string {
	var best *execpolicy.RuleMatch
	for i, m := range ev.MatchedRules {
		if !m.Heuristics && m.Decision == execpolicy.Prompt && (best == nil || len(m.MatchedPrefix) > len(best.MatchedPrefix)) {
			best = &ev.MatchedRules[i]
		}
	}
	switch {
	case best == nil:
		return ""
	case best.Justification != "":
		return fmt.Sprintf("`%s` requires approval: %s", shellquote.Join(argv), best.Justification)
	}
	return fmt.Sprintf("`%s` requires approval by policy", shellquote.Join(argv))
}

// promptAmendment offers the first sub-command the heuristics wanted to ask about, unless a
// prompt rule matched (an allow rule would not silence it).
func promptAmendment(ev execpolicy.Evaluation) []string {
	for _, m := range ev.MatchedRules {
		if !m.Heuristics && m.Decision == execpolicy.Prompt {
			return nil
		}
	}
	for _, m := range ev.MatchedRules {
		if m.Heuristics && m.Decision == execpolicy.Prompt {
			return slices.Clone(m.Command)
		}
	}
	return nil
}

// requestedAmendment accepts the model's suggested prefix when it is not too broad, no rule
// already matched, and allowing it would let every sub-command run.
func requestedAmendment(in ExecInput, cmds [][]string, ev execpolicy.Evaluation, fallback func([]string) execpolicy.Decision) []string {
	if len(in.PrefixRule) == 0 || ev.IsPolicyMatch() {
		return nil
	}
	for _, banned := range bannedPrefixSuggestions {
		if slices.Equal(banned, in.PrefixRule) {
			return nil
		}
	}
	with := in.Policy.Clone()
	if err := with.AddPrefixRule(in.PrefixRule, execpolicy.Allow); err != nil {
		return nil
	}
	opts := execpolicy.MatchOptions{ResolveHostExecutables: true}
	for _, cmd := range cmds {
		if with.Check([][]string{cmd}, fallback, opts).Decision != execpolicy.Allow {
			return nil
		}
	}
	return slices.Clone(in.PrefixRule)
}

// ShouldEscalateOnFailure says what happens when a sandboxed run of the `shell` tool looks
// denied by the sandbox: true means retry without the sandbox, asking the person "retry
// without sandbox?" unless RetryNeedsPrompt says otherwise (on-failure, untrusted, granular
// with sandbox_approval); false means the denial goes back to the model as the result
// (on-request, never, granular without sandbox_approval). exec_command never retries: Codex
// 0.169 returns the denied run's output to the model under every policy.
func ShouldEscalateOnFailure(approval protocol.AskForApproval) bool {
	switch approval.Effective() {
	case protocol.ApprovalModeOnFailure, protocol.ApprovalModeUntrusted:
		return true
	case protocol.ApprovalModeGranular:
		return granular(approval).SandboxApproval
	}
	return false
}

// RetryNeedsPrompt says whether the unsandboxed retry must be approved first: not when the
// person already approved this command (alreadyApproved) or its keys are approved for the
// session.
func RetryNeedsPrompt(in ExecInput, alreadyApproved bool) bool {
	if alreadyApproved || in.Approval.Effective() == protocol.ApprovalModeNever {
		return false
	}
	return in.Cache == nil || !in.Cache.AllApproved(in.CacheKey())
}
