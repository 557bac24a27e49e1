package applypatch

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/patch"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// fakeClock advances by step on every reading, so the wall time is deterministic.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Unix(0, 0)
	return func() time.Time {
		t = t.Add(step)
		return t
	}
}

type recorder struct {
	events   []protocol.EventMsg
	asked    []*protocol.ApplyPatchApprovalRequestEvent
	decision protocol.ReviewDecisionKind
}

func (r *recorder) env(cwd string) *tool.Env {
	return &tool.Env{
		TurnID: "turn-1",
		Cwd:    cwd,
		Emit:   func(e protocol.EventMsg) { r.events = append(r.events, e) },
		RequestApproval: func(_ context.Context, req tool.ApprovalRequest) (protocol.ReviewDecision, error) {
			r.asked = append(r.asked, req.Patch)
			r.events = append(r.events, *req.Patch)
			return protocol.ReviewDecision{Kind: r.decision}, nil
		},
	}
}

func (r *recorder) types() []string {
	var out []string
	for _, e := range r.events {
		out = append(out, e.EventType())
	}
	return out
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(data)
}

const addPatch = "*** Begin Patch\n*** Add File: new.txt\n+hello\n*** Update File: old.txt\n@@\n-a\n+b\n*** End Patch"

func decide(v Verdict) DecideFunc {
	return func(context.Context, *tool.Env, *patch.Verified) Decision {
		return Decision{Verdict: v, Reason: "outside the workspace"}
	}
}

func TestHandleOutcomes(t *testing.T) {
	tests := []struct {
		name      string
		verdict   Verdict
		decision  protocol.ReviewDecisionKind
		call      tool.Call
		output    string
		success   bool
		endTurn   bool
		events    []string
		applied   bool
		endStatus protocol.PatchApplyStatus
	}{
		{
			name: "freeform, auto-approved", verdict: AutoApprove,
			call:    tool.Call{Kind: tool.CustomCall, CallID: "c1", Name: "apply_patch", Arguments: addPatch},
			output:  "Exit code: 0\nWall time: 0.3 seconds\nOutput:\nSuccess. Updated the following files:\nA new.txt\nM old.txt\n",
			success: true, applied: true, endStatus: protocol.PatchCompleted,
			events: []string{"patch_apply_begin", "patch_apply_end", "turn_diff"},
		},
		{
			name: "function form", verdict: AutoApprove,
			call:    tool.Call{Kind: tool.FunctionCall, CallID: "c1", Name: "apply_patch", Arguments: mustJSON(map[string]string{"input": addPatch})},
			output:  "Exit code: 0\nWall time: 0.3 seconds\nOutput:\nSuccess. Updated the following files:\nA new.txt\nM old.txt\n",
			success: true, applied: true, endStatus: protocol.PatchCompleted,
			events: []string{"patch_apply_begin", "patch_apply_end", "turn_diff"},
		},
		{
			name: "function form with bad arguments", verdict: AutoApprove,
			call:   tool.Call{Kind: tool.FunctionCall, CallID: "c1", Name: "apply_patch", Arguments: `{"patch": "x"}`},
			output: "failed to parse function arguments: missing field `input`",
		},
		{
			name: "asked and approved", verdict: AskUser, decision: protocol.DecisionApproved,
			call:    tool.Call{Kind: tool.CustomCall, CallID: "c1", Arguments: addPatch},
			output:  "Exit code: 0\nWall time: 0.3 seconds\nOutput:\nSuccess. Updated the following files:\nA new.txt\nM old.txt\n",
			success: true, applied: true, endStatus: protocol.PatchCompleted,
			events: []string{"patch_apply_begin", "apply_patch_approval_request", "patch_apply_end", "turn_diff"},
		},
		{
			name: "approved for session", verdict: AskUser, decision: protocol.DecisionApprovedForSession,
			call:    tool.Call{Kind: tool.CustomCall, CallID: "c1", Arguments: addPatch},
			output:  "Exit code: 0\nWall time: 0.3 seconds\nOutput:\nSuccess. Updated the following files:\nA new.txt\nM old.txt\n",
			success: true, applied: true, endStatus: protocol.PatchCompleted,
			events: []string{"patch_apply_begin", "apply_patch_approval_request", "patch_apply_end", "turn_diff"},
		},
		{
			name: "denied", verdict: AskUser, decision: protocol.DecisionDenied,
			call:   tool.Call{Kind: tool.CustomCall, CallID: "c1", Arguments: addPatch},
			output: "patch rejected by user", endStatus: protocol.PatchDeclined,
			events: []string{"patch_apply_begin", "apply_patch_approval_request", "patch_apply_end"},
		},
		{
			name: "abort ends the turn", verdict: AskUser, decision: protocol.DecisionAbort,
			call:   tool.Call{Kind: tool.CustomCall, CallID: "c1", Arguments: addPatch},
			output: "patch rejected by user", endTurn: true,
			events: []string{"patch_apply_begin", "apply_patch_approval_request"},
		},
		{
			name: "policy rejects", verdict: Reject,
			call:   tool.Call{Kind: tool.CustomCall, CallID: "c1", Arguments: addPatch},
			output: "patch rejected: outside the workspace",
		},
		{
			name: "empty patch", verdict: AutoApprove,
			call:   tool.Call{Kind: tool.CustomCall, CallID: "c1", Arguments: "*** Begin Patch\n*** End Patch"},
			output: "patch rejected: empty patch",
		},
		{
			name: "not a patch", verdict: AutoApprove,
			call:   tool.Call{Kind: tool.CustomCall, CallID: "c1", Arguments: "just text"},
			output: "apply_patch verification failed: invalid patch: The first line of the patch must be '*** Begin Patch'",
		},
		{
			name: "heredoc-wrapped patch", verdict: AutoApprove,
			call:    tool.Call{Kind: tool.CustomCall, CallID: "c1", Arguments: "<<'EOF'\n" + addPatch + "\nEOF"},
			output:  "Exit code: 0\nWall time: 0.3 seconds\nOutput:\nSuccess. Updated the following files:\nA new.txt\nM old.txt\n",
			success: true, applied: true, endStatus: protocol.PatchCompleted,
			events: []string{"patch_apply_begin", "patch_apply_end", "turn_diff"},
		},
		{
			name: "two hunks on one file", verdict: AutoApprove,
			call:   tool.Call{Kind: tool.CustomCall, CallID: "c1", Arguments: "*** Begin Patch\n*** Delete File: old.txt\n*** Delete File: ./old.txt\n*** End Patch"},
			output: "apply_patch verification failed: invalid patch: multiple operations target $DIR/old.txt",
		},
		{
			name: "parse error", verdict: AutoApprove,
			call:   tool.Call{Kind: tool.CustomCall, CallID: "c1", Arguments: "*** Begin Patch\n*** Frob: x\n*** End Patch"},
			output: "apply_patch verification failed: invalid hunk at line 2, '*** Frob: x' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
		},
		{
			name: "context not found", verdict: AutoApprove,
			call:   tool.Call{Kind: tool.CustomCall, CallID: "c1", Arguments: "*** Begin Patch\n*** Update File: old.txt\n@@\n-zzz\n+b\n*** End Patch"},
			output: "apply_patch verification failed: Failed to find expected lines in $DIR/old.txt:\nzzz",
		},
		{
			name: "apply-time failure", verdict: AutoApprove,
			call:   tool.Call{Kind: tool.CustomCall, CallID: "c1", Arguments: "*** Begin Patch\n*** Add File: sub\n+x\n*** End Patch"},
			output: "Exit code: 1\nWall time: 0.3 seconds\nOutput:\nFailed to write file $DIR/sub\n", endStatus: protocol.PatchFailed,
			events: []string{"patch_apply_begin", "patch_apply_end"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "old.txt", "a\n")
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			rec := &recorder{decision: tt.decision}
			td := patch.NewTurnDiff()
			h := New(Options{Freeform: true, Decide: decide(tt.verdict), Now: fakeClock(300 * time.Millisecond),
				TurnDiff: func(*tool.Env) *patch.TurnDiff { return td }})
			res, err := h.Handle(context.Background(), rec.env(dir), tt.call)
			if err != nil {
				t.Fatal(err)
			}
			want := tool.Result{Output: strings.ReplaceAll(tt.output, "$DIR", dir), Success: tt.success, EndTurn: tt.endTurn}
			if diff := cmp.Diff(want, res); diff != "" {
				t.Errorf("result differs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.events, rec.types()); diff != "" {
				t.Errorf("events differ (-want +got):\n%s", diff)
			}
			if got := read(t, dir, "old.txt") == "b\n"; got != tt.applied {
				t.Errorf("applied = %v, want %v", got, tt.applied)
			}
			for _, e := range rec.events {
				if end, ok := e.(protocol.PatchApplyEndEvent); ok && end.Status != tt.endStatus {
					t.Errorf("patch_apply_end status = %q, want %q", end.Status, tt.endStatus)
				}
			}
		})
	}
}

func TestEventContents(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "old.txt", "a\n")
	rec := &recorder{decision: protocol.DecisionApproved}
	h := New(Options{Freeform: true, Decide: func(context.Context, *tool.Env, *patch.Verified) Decision {
		return Decision{Verdict: AskUser, Reason: "why", GrantRoot: dir}
	}, Now: fakeClock(time.Second)})
	if _, err := h.Handle(context.Background(), rec.env(dir), tool.Call{Kind: tool.CustomCall, CallID: "call-9", Arguments: addPatch}); err != nil {
		t.Fatal(err)
	}
	changes := map[string]protocol.FileChange{
		filepath.Join(dir, "new.txt"): {Kind: protocol.FileAdd, Content: "hello\n"},
		filepath.Join(dir, "old.txt"): {Kind: protocol.FileUpdate, UnifiedDiff: "@@ -1 +1 @@\n-a\n+b\n"},
	}
	reason, root := "why", dir
	want := []protocol.EventMsg{
		protocol.PatchApplyBeginEvent{CallID: "call-9", TurnID: "turn-1", AutoApproved: false, Changes: changes},
		protocol.ApplyPatchApprovalRequestEvent{CallID: "call-9", TurnID: "turn-1", Changes: changes, Reason: &reason, GrantRoot: &root},
		protocol.PatchApplyEndEvent{CallID: "call-9", TurnID: "turn-1", Stdout: "Success. Updated the following files:\nA new.txt\nM old.txt\n",
			Success: true, Changes: changes, Status: protocol.PatchCompleted},
	}
	if diff := cmp.Diff(want, rec.events); diff != "" {
		t.Errorf("events differ (-want +got):\n%s", diff)
	}
}

func TestRunFromShellInvocation(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	inv, err := patch.ParseInvocation([]string{"bash", "-lc", "cd sub && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x.txt\n+x\n*** End Patch\nEOF\n"})
	if err != nil || inv == nil {
		t.Fatalf("ParseInvocation = %v, %v", inv, err)
	}
	rec := &recorder{}
	res, err := New(Options{Now: fakeClock(0)}).Run(context.Background(), rec.env(dir), "c", dir, inv)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^Exit code: 0\nWall time: [0-9]+(\.[0-9]+)? seconds\nOutput:\nSuccess. Updated the following files:\nA x.txt\n$`).MatchString(res.Output) {
		t.Errorf("output = %q", res.Output)
	}
	if got := read(t, dir, "sub/x.txt"); got != "x\n" {
		t.Errorf("sub/x.txt = %q", got)
	}
}

func TestSpec(t *testing.T) {
	for _, tt := range []struct {
		freeform bool
		typ      string
	}{{true, "custom"}, {false, "function"}} {
		var spec struct {
			Type string `json:"type"`
			Name string `json:"name"`
		}
		if err := json.Unmarshal(New(Options{Freeform: tt.freeform}).Spec(), &spec); err != nil {
			t.Fatal(err)
		}
		if spec.Type != tt.typ || spec.Name != "apply_patch" {
			t.Errorf("freeform=%v: spec %+v", tt.freeform, spec)
		}
	}
}

func TestDisplaySeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0", 40 * time.Millisecond: "0", 50 * time.Millisecond: "0.1", 1234 * time.Millisecond: "1.2", 2 * time.Second: "2"} {
		if got := displaySeconds(d); got != want {
			t.Errorf("displaySeconds(%v) = %q, want %q", d, got, want)
		}
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestIntercept follows what the Codex binary answered to exec_command calls that carry a
// patch.
func TestIntercept(t *testing.T) {
	const body = "*** Begin Patch\n*** Add File: x.txt\n+x\n*** End Patch"
	tests := []struct {
		name    string
		script  string
		handled bool
		output  string
		file    string
	}{
		{"heredoc", "apply_patch <<'EOF'\n" + body + "\nEOF\n", true, "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA x.txt\n", "x.txt"},
		{"cd first", "cd sub && apply_patch <<'EOF'\n" + body + "\nEOF\n", true, "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA x.txt\n", "sub/x.txt"},
		{"more commands", "apply_patch <<'EOF'\n" + body + "\nEOF\necho done\n", false, "", ""},
		{"cd with ||", "cd sub || apply_patch <<'EOF'\n" + body + "\nEOF\n", false, "", ""},
		{"raw patch", body, true, `apply_patch verification failed: patch detected without explicit call to apply_patch. Rerun as ["apply_patch", "<patch>"]`, ""},
		{"bad patch", "apply_patch <<'EOF'\nnot a patch\nEOF\n", true, "apply_patch verification failed: invalid patch: The first line of the patch must be '*** Begin Patch'", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			rec := &recorder{}
			res, handled, err := New(Options{Now: fakeClock(0)}).Intercept(context.Background(), rec.env(dir), "c", dir, []string{"bash", "-lc", tt.script})
			if err != nil {
				t.Fatal(err)
			}
			if handled != tt.handled || res.Output != tt.output {
				t.Errorf("got handled=%v output %q, want %v %q", handled, res.Output, tt.handled, tt.output)
			}
			if tt.file != "" && read(t, dir, tt.file) != "x\n" {
				t.Errorf("%s not written", tt.file)
			}
		})
	}
}

func TestApprovalInterrupted(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "old.txt", "a\n")
	var events []string
	env := &tool.Env{
		Cwd:  dir,
		Emit: func(e protocol.EventMsg) { events = append(events, e.EventType()) },
		RequestApproval: func(ctx context.Context, _ tool.ApprovalRequest) (protocol.ReviewDecision, error) {
			return protocol.ReviewDecision{}, context.Canceled
		},
	}
	_, err := New(Options{Decide: decide(AskUser)}).Handle(context.Background(), env, tool.Call{Kind: tool.CustomCall, Arguments: addPatch})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if diff := cmp.Diff([]string{"patch_apply_begin"}, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if got := read(t, dir, "old.txt"); got != "a\n" {
		t.Errorf("old.txt = %q, the patch must not be applied", got)
	}
}
