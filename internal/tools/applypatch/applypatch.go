// Package applypatch is the apply_patch tool: it parses and verifies the model's patch,
// asks the person when the policy says so, applies it, and reports patch_apply_begin/end and
// the turn's diff. The patch format itself lives in internal/patch.
package applypatch

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/patch"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// Verdict is the policy's answer for a verified patch.
type Verdict int

const (
	// AutoApprove applies the patch without asking.
	AutoApprove Verdict = iota
	// AskUser asks the person through env.RequestApproval first.
	AskUser
	// Reject refuses the patch; Decision.Reason says why.
	Reject
)

// Decision is what the safety policy says about a patch.
type Decision struct {
	Verdict Verdict
	// Reason is told to the model on Reject, or shown to the person on AskUser.
	Reason string
	// GrantRoot, on AskUser, is a directory the person may allow writes under for the rest
	// of the session.
	GrantRoot string
	// UserApproved marks an AutoApprove that comes from the person's earlier approval
	// (approved_for_session), which patch_apply_begin reports as not auto-approved.
	UserApproved bool
	// Confinement writes the patch inside the sandbox; nil writes it in this process (the
	// policy confines nothing: danger-full-access).
	Confinement *Confinement
}

// Confinement is how a patch is written under a sandboxed policy: its paths are checked
// where they lead, then the binary's own apply_patch writes it inside the sandbox, where the
// kernel enforces the policy. The patch is written in this process only once the person
// approved writing what the sandbox refuses.
type Confinement struct {
	// Blocked are the writes the sandbox would refuse, found by resolving every path of the
	// patch (symlinks, `..`) before anything is written. A patch with any is refused whole
	// unless the person approves writing it outside the sandbox.
	Blocked []BlockedWrite
	// Apply applies the patch text in dir inside the sandbox.
	Apply func(ctx context.Context, dir, patchText string) (SandboxRun, error)
	// MayAsk lets a patch the sandbox refused be put to the person (Codex's retry without
	// the sandbox); their approval writes it in this process.
	MayAsk bool
	// RetryReason is the question for a sandboxed run that failed as a denial looks.
	RetryReason string
}

// BlockedWrite is one write the sandbox would refuse.
type BlockedWrite struct {
	// Message names the path, where it leads and why it is refused.
	Message string
	// Hidden is set when only a symlink takes the path out of what the sandbox allows: the
	// path as the patch spells it gives the person no hint, so an approval given without
	// this message does not cover it.
	Hidden bool
}

// SandboxRun is what the sandboxed apply_patch did.
type SandboxRun struct {
	Stdout, Stderr string
	ExitCode       int
	// Denied is set when the failure looks like the sandbox's refusal.
	Denied bool
}

// written is the outcome of writing a patch: the apply_patch command's output and, for a
// write the sandbox refused, the question that may put it to the person.
type written struct {
	stdout, stderr string
	exitCode       int
	retryReason    string
}

// DecideFunc is the safety policy for patches (internal/safety provides it). It sees the
// turn's settings in env and the absolute paths the patch writes in v.
type DecideFunc func(ctx context.Context, env *tool.Env, v *patch.Verified) Decision

// Options configure the tool.
type Options struct {
	// Freeform offers the tool as a `custom` tool with the Lark grammar; otherwise it is a
	// function taking `{input: string}`.
	Freeform bool
	// Decide is the safety policy; nil approves every patch.
	Decide DecideFunc
	// TurnDiff returns the turn's diff tracker, or nil for none; after each patch the
	// handler emits turn_diff from it.
	TurnDiff func(env *tool.Env) *patch.TurnDiff
	// Now is the clock for the wall time in the output; time.Now when nil.
	Now func() time.Time
	// AfterWrite, when set, runs after a patch was written and returns text to append to the
	// patch's output (the language servers' diagnostics for the written files, or "").
	AfterWrite func(ctx context.Context, env *tool.Env, paths []string) string
}

// Handler is the apply_patch tool.
type Handler struct {
	opts Options
}

// New returns the handler.
func New(opts Options) *Handler {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Decide == nil {
		opts.Decide = func(context.Context, *tool.Env, *patch.Verified) Decision { return Decision{} }
	}
	return &Handler{opts: opts}
}

// Spec is the tool as offered to the model.
func (h *Handler) Spec() tool.Spec {
	if h.opts.Freeform {
		return tools.ApplyPatchFreeformSpec()
	}
	return tools.ApplyPatchFunctionSpec()
}

// Handle runs one apply_patch call.
func (h *Handler) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	input := call.Arguments
	if call.Kind == tool.FunctionCall {
		var args struct {
			Input *string `json:"input"`
		}
		if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil || args.Input == nil {
			if err == nil {
				err = fmt.Errorf("missing field `input`")
			}
			return failure(fmt.Sprintf("failed to parse function arguments: %v", err)), nil
		}
		input = *args.Input
	}
	inv, err := patch.ParseInvocation([]string{"apply_patch", input})
	if err != nil {
		return failure("apply_patch verification failed: " + err.Error()), nil
	}
	return h.Run(ctx, env, call.CallID, env.Cwd, inv)
}

// Intercept handles a command from the shell or exec tools that is really an apply_patch
// call (`apply_patch PATCH`, or `bash -lc "[cd DIR && ]apply_patch <<'EOF' … EOF"`), the way
// Codex does: the patch is verified and applied here, with patch events instead of exec
// events. cwd is the command's working directory (the patch's paths resolve against it);
// env.Cwd stays the session's, which the sandbox policy's roots are relative to. handled is
// false for any other command, which then runs as usual. The Output is apply_patch's own
// text; Codex's exec_command puts it after its own "Wall time: …\nOutput:\n" header.
func (h *Handler) Intercept(ctx context.Context, env *tool.Env, callID, cwd string, argv []string) (res tool.Result, handled bool, err error) {
	inv, perr := patch.ParseInvocation(argv)
	if perr != nil {
		return failure("apply_patch verification failed: " + perr.Error()), true, nil
	}
	if inv == nil {
		return tool.Result{}, false, nil
	}
	res, err = h.Run(ctx, env, callID, cwd, inv)
	return res, true, err
}

// Run applies a recognised invocation whose command runs in cwd; the shell tools call it for
// a command that patch.ParseInvocation identified as apply_patch.
func (h *Handler) Run(ctx context.Context, env *tool.Env, callID, cwd string, inv *patch.Invocation) (tool.Result, error) {
	dir := inv.Dir(cwd)
	v, err := patch.Verify(dir, inv.Patch)
	if err != nil {
		return failure("apply_patch verification failed: " + err.Error()), nil
	}
	if len(v.Changes) == 0 {
		// Codex's safety check refuses a patch without hunks before anything is announced.
		return failure("patch rejected: empty patch"), nil
	}
	d := h.opts.Decide(ctx, env, v)
	if d.Verdict == Reject {
		return failure("patch rejected: " + d.Reason), nil
	}
	changes := v.FileChanges()
	env.Emit(protocol.PatchApplyBeginEvent{
		CallID: callID, TurnID: env.TurnID,
		AutoApproved: d.Verdict == AutoApprove && !d.UserApproved,
		Changes:      changes,
	})
	if d.Verdict == AskUser {
		refused, proceed, err := h.ask(ctx, env, callID, d, changes)
		if err != nil {
			return tool.Result{}, err
		}
		if !proceed {
			return h.declined(env, callID, refused, changes), nil
		}
	}
	var tracker *patch.TurnDiff
	if h.opts.TurnDiff != nil {
		tracker = h.opts.TurnDiff(env)
	}
	if tracker != nil {
		tracker.SetCwd(cwd) // names files outside git, as Codex does
		tracker.Track(v)
	}
	// The wall time covers the apply only, as Codex times its apply_patch process.
	start := h.opts.Now()
	out := h.write(ctx, dir, inv.Patch, d, d.Verdict == AskUser)
	if out.retryReason != "" && d.Confinement.MayAsk {
		retry := Decision{Reason: out.retryReason}
		refused, proceed, err := h.ask(ctx, env, callID, retry, changes)
		if err != nil {
			return tool.Result{}, err
		}
		if !proceed {
			return h.declined(env, callID, refused, changes), nil
		}
		start = h.opts.Now()
		out = applyHere(dir, inv.Patch)
	}
	elapsed := h.opts.Now().Sub(start)
	status := protocol.PatchCompleted
	if out.exitCode != 0 {
		status = protocol.PatchFailed
	} else if h.opts.AfterWrite != nil {
		if note := h.opts.AfterWrite(ctx, env, v.Paths()); note != "" {
			out.stdout += "\n" + note
		}
	}
	h.end(env, callID, out.stdout, out.stderr, status, changes)
	if tracker != nil {
		if diff := tracker.UnifiedDiff(); diff != "" {
			env.Emit(protocol.TurnDiffEvent{UnifiedDiff: diff})
		}
	}
	stdout, stderr, exitCode := out.stdout, out.stderr, out.exitCode
	return tool.Result{
		Output:  execOutput(exitCode, elapsed, stdout+stderr),
		Success: exitCode == 0,
	}, nil
}

// write applies the patch where the decision says: in this process when nothing confines
// it or the person approved writing what the sandbox refuses (approvedNow: they answered
// this call's request, which named every hidden escape), otherwise inside the sandbox after
// checking where every path leads.
func (h *Handler) write(ctx context.Context, dir string, p *patch.Patch, d Decision, approvedNow bool) written {
	c := d.Confinement
	if c == nil || (len(c.Blocked) > 0 && (approvedNow || d.UserApproved && !anyHidden(c.Blocked))) {
		return applyHere(dir, p)
	}
	if len(c.Blocked) > 0 {
		msgs := make([]string, len(c.Blocked))
		for i, b := range c.Blocked {
			msgs[i] = b.Message
		}
		return written{
			stderr:      strings.Join(msgs, "\n") + "\n",
			exitCode:    1,
			retryReason: strings.Join(msgs, "; ") + "; retry without sandbox?",
		}
	}
	run, err := c.Apply(ctx, dir, p.Text)
	if err != nil {
		// No sandbox to write in: fail closed, as a command would.
		return written{stderr: fmt.Sprintf("execution error: %v\n", err), exitCode: 1}
	}
	out := written{stdout: run.Stdout, stderr: run.Stderr, exitCode: run.ExitCode}
	if run.Denied {
		out.retryReason = c.RetryReason
	}
	return out
}

// applyHere applies the patch in this process.
func applyHere(dir string, p *patch.Patch) written {
	affected, err := patch.Apply(dir, p)
	if err != nil {
		return written{stderr: err.Error() + "\n", exitCode: 1}
	}
	return written{stdout: affected.Summary()}
}

func anyHidden(blocked []BlockedWrite) bool {
	for _, b := range blocked {
		if b.Hidden {
			return true
		}
	}
	return false
}

// ask puts the patch to the person. Unless they approve, it returns the result for the model
// and proceed false.
func (h *Handler) ask(ctx context.Context, env *tool.Env, callID string, d Decision, changes map[string]protocol.FileChange) (refused tool.Result, proceed bool, err error) {
	req := &protocol.ApplyPatchApprovalRequestEvent{CallID: callID, TurnID: env.TurnID, Changes: changes}
	if d.Reason != "" {
		req.Reason = &d.Reason
	}
	if d.GrantRoot != "" {
		req.GrantRoot = &d.GrantRoot
	}
	decision, err := env.RequestApproval(ctx, tool.ApprovalRequest{Patch: req})
	if err != nil {
		// Typically ctx ended (interrupt); the engine decides what that means for the turn.
		return tool.Result{}, false, fmt.Errorf("apply_patch approval: %w", err)
	}
	switch decision.Kind {
	case protocol.DecisionApproved, protocol.DecisionApprovedForSession, protocol.DecisionApprovedExecpolicyAmendment:
		return tool.Result{}, true, nil
	}
	refused = failure("patch rejected by user")
	// Abort ends the turn; denied (and timed_out) let the model carry on.
	refused.EndTurn = decision.Kind == protocol.DecisionAbort
	return refused, false, nil
}

// declined reports a patch the person did not let through. Codex reports it with
// patch_apply_end, but on abort the turn is interrupted with the patch left open (no end
// event), and so are we.
func (h *Handler) declined(env *tool.Env, callID string, refused tool.Result, changes map[string]protocol.FileChange) tool.Result {
	if !refused.EndTurn {
		h.end(env, callID, "", refused.Output, protocol.PatchDeclined, changes)
	}
	return refused
}

func (h *Handler) end(env *tool.Env, callID, stdout, stderr string, status protocol.PatchApplyStatus, changes map[string]protocol.FileChange) {
	env.Emit(protocol.PatchApplyEndEvent{
		CallID: callID, TurnID: env.TurnID,
		Stdout: stdout, Stderr: stderr,
		Success: status == protocol.PatchCompleted,
		Changes: changes, Status: status,
	})
}

func failure(text string) tool.Result { return tool.Result{Output: text} }

// execOutput is Codex's freeform exec text, which apply_patch answers with because Codex
// runs the patch as a command: `Exit code: N\nWall time: X seconds\nOutput:\n…`.
func execOutput(exitCode int, d time.Duration, output string) string {
	return fmt.Sprintf("Exit code: %d\nWall time: %s seconds\nOutput:\n%s", exitCode, displaySeconds(d), output)
}

// displaySeconds prints a duration like Rust's `{}` of an f32 rounded to one decimal.
func displaySeconds(d time.Duration) string {
	secs := float32(d.Seconds())
	rounded := float32(math.Round(float64(secs*10))) / 10
	return strconv.FormatFloat(float64(rounded), 'f', -1, 32)
}
