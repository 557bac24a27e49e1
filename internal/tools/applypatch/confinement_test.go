package applypatch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/patch"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// fakeSandbox stands in for the guard's sandboxed apply_patch: it records what it was asked
// to apply and answers with run (or, when run is nil, applies the patch itself).
type fakeSandbox struct {
	calls []string
	run   *SandboxRun
	err   error
}

func (f *fakeSandbox) apply(_ context.Context, dir, text string) (SandboxRun, error) {
	f.calls = append(f.calls, dir+"|"+text)
	if f.err != nil || f.run != nil {
		if f.run == nil {
			return SandboxRun{}, f.err
		}
		return *f.run, f.err
	}
	p, err := patch.Parse(text)
	if err != nil {
		return SandboxRun{}, err
	}
	affected, err := patch.Apply(dir, p)
	if err != nil {
		return SandboxRun{Stderr: err.Error() + "\n", ExitCode: 1}, nil
	}
	return SandboxRun{Stdout: affected.Summary()}, nil
}

const (
	escapeMsg  = "Failed to write file $DIR/new.txt: it resolves through the symlink $DIR/new.txt to /elsewhere, outside the sandbox's writable roots"
	visibleMsg = "Failed to write file $DIR/old.txt: it is inside $DIR/.git, which the sandbox keeps read-only"
	successOut = "Exit code: 0\nWall time: 0.3 seconds\nOutput:\nSuccess. Updated the following files:\nA new.txt\nM old.txt\n"
)

// Under a sandboxed policy the patch goes to the sandbox; what it refuses is refused whole,
// offered to the person when the policy lets them be asked, and written in this process only
// after an approval that covered what the patch's paths do not show.
func TestConfinedPatchOutcomes(t *testing.T) {
	hidden := []BlockedWrite{{Message: escapeMsg, Hidden: true}}
	visible := []BlockedWrite{{Message: visibleMsg}}
	tests := []struct {
		name         string
		decision     Decision
		answer       protocol.ReviewDecisionKind
		sandbox      fakeSandbox
		mayAsk       bool
		output       string
		success      bool
		events       []string
		reasons      []string // of the approval requests
		applied      bool
		sandboxCalls int
		endStatus    protocol.PatchApplyStatus
	}{
		{
			name:     "nothing blocked: written by the sandbox",
			decision: Decision{Verdict: AutoApprove},
			output:   successOut, success: true, applied: true, sandboxCalls: 1, endStatus: protocol.PatchCompleted,
			events: []string{"patch_apply_begin", "patch_apply_end", "turn_diff"},
		},
		{
			name:     "a hidden escape under never is refused with the path and the reason",
			decision: Decision{Verdict: AutoApprove, Confinement: &Confinement{Blocked: hidden}},
			output:   "Exit code: 1\nWall time: 0.3 seconds\nOutput:\n" + escapeMsg + "\n", endStatus: protocol.PatchFailed,
			events: []string{"patch_apply_begin", "patch_apply_end"},
		},
		{
			name:     "a hidden escape is offered to the person, who declines",
			decision: Decision{Verdict: AutoApprove, Confinement: &Confinement{Blocked: hidden}}, mayAsk: true, answer: protocol.DecisionDenied,
			output: "patch rejected by user", endStatus: protocol.PatchDeclined,
			reasons: []string{escapeMsg + "; retry without sandbox?"},
			events:  []string{"patch_apply_begin", "apply_patch_approval_request", "patch_apply_end"},
		},
		{
			name:     "a hidden escape the person lets through is written here",
			decision: Decision{Verdict: AutoApprove, Confinement: &Confinement{Blocked: hidden}}, mayAsk: true, answer: protocol.DecisionApproved,
			output: successOut, success: true, applied: true, endStatus: protocol.PatchCompleted,
			reasons: []string{escapeMsg + "; retry without sandbox?"},
			events:  []string{"patch_apply_begin", "apply_patch_approval_request", "patch_apply_end", "turn_diff"},
		},
		{
			name:     "approved up front with the escape named: written here",
			decision: Decision{Verdict: AskUser, Reason: escapeMsg, Confinement: &Confinement{Blocked: hidden}}, answer: protocol.DecisionApproved,
			output: successOut, success: true, applied: true, endStatus: protocol.PatchCompleted,
			reasons: []string{escapeMsg},
			events:  []string{"patch_apply_begin", "apply_patch_approval_request", "patch_apply_end", "turn_diff"},
		},
		{
			name:     "approved for the session earlier does not cover a hidden escape",
			decision: Decision{Verdict: AutoApprove, UserApproved: true, Confinement: &Confinement{Blocked: hidden}},
			output:   "Exit code: 1\nWall time: 0.3 seconds\nOutput:\n" + escapeMsg + "\n", endStatus: protocol.PatchFailed,
			events: []string{"patch_apply_begin", "patch_apply_end"},
		},
		{
			name:     "approved for the session earlier covers a path the patch shows",
			decision: Decision{Verdict: AutoApprove, UserApproved: true, Confinement: &Confinement{Blocked: visible}},
			output:   successOut, success: true, applied: true, endStatus: protocol.PatchCompleted,
			events: []string{"patch_apply_begin", "patch_apply_end", "turn_diff"},
		},
		{
			name:     "approved up front with nothing blocked: still the sandbox",
			decision: Decision{Verdict: AskUser}, answer: protocol.DecisionApproved,
			output: successOut, success: true, applied: true, sandboxCalls: 1, endStatus: protocol.PatchCompleted,
			reasons: []string{""},
			events:  []string{"patch_apply_begin", "apply_patch_approval_request", "patch_apply_end", "turn_diff"},
		},
		{
			name:     "the sandbox denies: Codex's question, then written here",
			decision: Decision{Verdict: AutoApprove}, mayAsk: true, answer: protocol.DecisionApproved,
			sandbox: fakeSandbox{run: &SandboxRun{Stderr: "Failed to write file $DIR/new.txt\n", ExitCode: 1, Denied: true}},
			output:  successOut, success: true, applied: true, sandboxCalls: 1, endStatus: protocol.PatchCompleted,
			reasons: []string{"command failed; retry without sandbox?"},
			events:  []string{"patch_apply_begin", "apply_patch_approval_request", "patch_apply_end", "turn_diff"},
		},
		{
			name:     "the sandbox denies under never: its failure",
			decision: Decision{Verdict: AutoApprove},
			sandbox:  fakeSandbox{run: &SandboxRun{Stderr: "Failed to write file $DIR/new.txt\n", ExitCode: 1, Denied: true}},
			output:   "Exit code: 1\nWall time: 0.3 seconds\nOutput:\nFailed to write file $DIR/new.txt\n", sandboxCalls: 1, endStatus: protocol.PatchFailed,
			events: []string{"patch_apply_begin", "patch_apply_end"},
		},
		{
			name:     "no sandbox on this machine: refused, never written unconfined",
			decision: Decision{Verdict: AutoApprove}, mayAsk: true,
			sandbox: fakeSandbox{err: errors.New("no sandbox mechanism available")},
			output:  "Exit code: 1\nWall time: 0.3 seconds\nOutput:\nexecution error: no sandbox mechanism available\n", sandboxCalls: 1, endStatus: protocol.PatchFailed,
			events: []string{"patch_apply_begin", "patch_apply_end"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "old.txt", "a\n")
			expand := func(s string) string { return strings.ReplaceAll(s, "$DIR", dir) }
			sb := tt.sandbox
			if sb.run != nil {
				run := *sb.run
				run.Stderr = expand(run.Stderr)
				sb.run = &run
			}
			d := tt.decision
			d.Reason = expand(d.Reason)
			c := Confinement{RetryReason: "command failed; retry without sandbox?"}
			if d.Confinement != nil {
				c = *d.Confinement
				c.RetryReason = "command failed; retry without sandbox?"
				c.Blocked = nil
				for _, b := range d.Confinement.Blocked {
					c.Blocked = append(c.Blocked, BlockedWrite{Message: expand(b.Message), Hidden: b.Hidden})
				}
			}
			c.Apply, c.MayAsk = sb.apply, tt.mayAsk
			d.Confinement = &c
			rec := &recorder{decision: tt.answer}
			td := patch.NewTurnDiff()
			h := New(Options{Freeform: true, Now: fakeClock(300 * time.Millisecond),
				Decide:   func(context.Context, *tool.Env, *patch.Verified) Decision { return d },
				TurnDiff: func(*tool.Env) *patch.TurnDiff { return td }})
			res, err := h.Handle(context.Background(), rec.env(dir), tool.Call{Kind: tool.CustomCall, CallID: "c1", Arguments: addPatch})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tool.Result{Output: expand(tt.output), Success: tt.success}, res); diff != "" {
				t.Errorf("result differs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.events, rec.types()); diff != "" {
				t.Errorf("events differ (-want +got):\n%s", diff)
			}
			var reasons []string
			for _, req := range rec.asked {
				r := ""
				if req.Reason != nil {
					r = *req.Reason
				}
				reasons = append(reasons, r)
			}
			var want []string
			for _, r := range tt.reasons {
				want = append(want, expand(r))
			}
			if diff := cmp.Diff(want, reasons); diff != "" {
				t.Errorf("approval reasons differ (-want +got):\n%s", diff)
			}
			if got := read(t, dir, "old.txt") == "b\n"; got != tt.applied {
				t.Errorf("applied = %v, want %v", got, tt.applied)
			}
			if _, err := os.Stat(filepath.Join(dir, "new.txt")); (err == nil) != tt.applied {
				t.Errorf("new.txt exists = %v, want %v (no half-applied patch)", err == nil, tt.applied)
			}
			if len(sb.calls) != tt.sandboxCalls {
				t.Errorf("sandbox ran %d times, want %d", len(sb.calls), tt.sandboxCalls)
			}
			for _, call := range sb.calls {
				if !strings.HasPrefix(call, dir+"|*** Begin Patch\n") {
					t.Errorf("sandbox asked to apply %q", call)
				}
			}
			for _, e := range rec.events {
				if end, ok := e.(protocol.PatchApplyEndEvent); ok && end.Status != tt.endStatus {
					t.Errorf("patch_apply_end status = %q, want %q", end.Status, tt.endStatus)
				}
			}
		})
	}
}
