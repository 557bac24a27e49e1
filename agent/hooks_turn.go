package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// hookInput is the part of a hook's input every event shares.
func (tr *turn) hookInput(ev HookEvent) HookInput {
	return HookInput{Event: ev, SessionID: tr.t.id, TurnID: tr.id, TranscriptPath: tr.t.cfg.RolloutPath,
		Cwd: tr.s.cwd, Model: tr.s.model, PermissionMode: permissionMode(tr.s.approval)}
}

// permissionMode is how Codex names the approval policy to hooks: exec's never is
// bypassPermissions.
func permissionMode(a protocol.AskForApproval) string {
	if a.Effective() == protocol.ApprovalModeNever {
		return "bypassPermissions"
	}
	return "default"
}

// runHooks runs the thread's hooks for in; their events go out as the turn's.
func (tr *turn) runHooks(in HookInput, emit func(protocol.EventMsg)) HookOutcome {
	if tr.t.cfg.Hooks == nil {
		return HookOutcome{}
	}
	if emit == nil {
		emit = func(m protocol.EventMsg) { tr.emit(m) }
	}
	return tr.t.cfg.Hooks.Run(tr.ctx, in, emit)
}

// recordHookContext adds what the hooks said as developer messages, one per text.
func (tr *turn) recordHookContext(texts []string) {
	for _, c := range texts {
		tr.record(textMessage("developer", c))
	}
}

// sessionStartHooks runs SessionStart once per thread, in its first turn, before the
// prompt: Codex puts the context after the environment and before the user's message.
func (tr *turn) sessionStartHooks() {
	if tr.t.cfg.Hooks == nil || !tr.t.sessionHooksRan.CompareAndSwap(false, true) {
		return
	}
	in := tr.hookInput(HookSessionStart)
	in.Source = "startup"
	if len(tr.t.cfg.InitialHistory) > 0 {
		in.Source = "resume"
	}
	tr.recordHookContext(tr.runHooks(in, nil).Context)
}

// userPromptHooks runs UserPromptSubmit on the turn's input; false means a hook blocked it
// and the prompt must not reach the model.
func (tr *turn) userPromptHooks(items []protocol.InputItem) (HookOutcome, bool) {
	if tr.t.cfg.Hooks == nil {
		return HookOutcome{}, true
	}
	var texts []string
	for _, it := range items {
		if it.Type == protocol.InputText {
			texts = append(texts, it.Text)
		}
	}
	in := tr.hookInput(HookUserPromptSubmit)
	in.Prompt = strings.Join(texts, "\n")
	out := tr.runHooks(in, nil)
	return out, !out.Blocked
}

// stopHooks runs Stop at the end of a turn. When a hook blocks (the first time in the turn)
// its reason becomes the next prompt and the turn goes on: true.
func (tr *turn) stopHooks(last *string) bool {
	if tr.t.cfg.Hooks == nil {
		return false
	}
	in := tr.hookInput(HookStop)
	in.StopHookActive = tr.stopHookActive
	in.LastAssistantMessage = last
	out := tr.runHooks(in, nil)
	if !out.Blocked || tr.stopHookActive {
		return false
	}
	tr.stopHookActive = true
	prompt := fmt.Sprintf("<hook_prompt hook_run_id=%q>%s</hook_prompt>", out.BlockedBy, out.Reason)
	return tr.record(textMessage("user", prompt))
}

// hookToolName is how hooks see a tool: the shell tools are "Bash", as in Claude Code.
// Tools without a hook name get no tool hooks.
func hookToolName(call tool.Call) (string, bool) {
	switch call.Name {
	case tools.NameShell, tools.NameShellCommand, tools.NameExecCommand, tools.NameLocalShell:
		return "Bash", true
	}
	return "", false
}

// hookCommand is the command string of a shell tool call.
func hookCommand(call tool.Call) string {
	var args struct {
		Cmd     string          `json:"cmd"`
		Command json.RawMessage `json:"command"`
	}
	if json.Unmarshal([]byte(call.Arguments), &args) != nil {
		return call.Arguments
	}
	if args.Cmd != "" {
		return args.Cmd
	}
	var s string
	if json.Unmarshal(args.Command, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(args.Command, &argv) == nil {
		if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
			return argv[2]
		}
		return strings.Join(argv, " ")
	}
	return call.Arguments
}

// toolHookInput is the input of Pre/PostToolUse for a call.
func (tr *turn) toolHookInput(ev HookEvent, call tool.Call, name string) HookInput {
	in := tr.hookInput(ev)
	in.ToolName = name
	in.ToolInput, _ = json.Marshal(map[string]string{"command": hookCommand(call)})
	in.ToolUseID = call.CallID
	return in
}

// preToolHooks runs PreToolUse; a deny answers the call with the reason instead of running
// it (true).
func (tr *turn) preToolHooks(run *callRun) bool {
	name, ok := hookToolName(run.call)
	if !ok || tr.t.cfg.Hooks == nil {
		return false
	}
	out := tr.runHooks(tr.toolHookInput(HookPreToolUse, run.call, name), func(m protocol.EventMsg) { tr.emitFromCall(run, m) })
	if !out.Blocked {
		return false
	}
	run.result = tool.Result{Output: fmt.Sprintf("Command blocked by PreToolUse hook: %s. Command: %s", out.Reason, hookCommand(run.call))}
	tr.t.log.Error("Command blocked by PreToolUse hook", "reason", out.Reason, "call_id", run.call.CallID)
	return true
}

// postToolHooks runs PostToolUse with what the command printed. As in Codex, added context
// is recorded at once (before the call's output, which is recorded when the call ends), and
// a block replaces the output the model gets with the hook's reason.
func (tr *turn) postToolHooks(run *callRun) {
	name, ok := hookToolName(run.call)
	if !ok || tr.t.cfg.Hooks == nil {
		return
	}
	in := tr.toolHookInput(HookPostToolUse, run.call, name)
	if r := run.hookResponse.Load(); r != nil {
		in.ToolResponse = *r
	}
	out := tr.runHooks(in, func(m protocol.EventMsg) { tr.emitFromCall(run, m) })
	tr.recordHookContext(out.Context)
	if out.Blocked {
		run.result = tool.Result{Output: out.Reason}
		tr.t.log.Error("tool output replaced by PostToolUse hook", "reason", out.Reason, "call_id", run.call.CallID)
	}
}

// watchForHooks wraps a call's env so PostToolUse learns what the command printed.
func (tr *turn) watchForHooks(run *callRun, env *tool.Env) {
	if tr.t.cfg.Hooks == nil {
		return
	}
	emit := env.Emit
	env.Emit = func(m protocol.EventMsg) {
		switch e := m.(type) {
		case protocol.ExecCommandEndEvent:
			run.hookResponse.Store(&e.AggregatedOutput)
		case *protocol.ExecCommandEndEvent:
			run.hookResponse.Store(&e.AggregatedOutput)
		}
		emit(m)
	}
}
