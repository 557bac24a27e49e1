package items

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

// step is one input of the fold: an event, or (decline set) a refused approval.
type step struct {
	msg     protocol.EventMsg
	decline string
}

// stepsFrom reads a sequence of events from fuzz bytes: each byte picks an event kind, the
// next one its call id and text. The sequence ends with a turn that is interrupted, which
// must leave no item open.
func stepsFrom(data []byte) []step {
	var out []step
	for i := 0; i+1 < len(data); i += 2 {
		op, arg := data[i]%36, data[i+1]
		call := "c" + strconv.Itoa(int(arg%3))
		text := strings.Repeat(string(rune('a'+arg%26)), int(arg%4))
		out = append(out, step{msg: eventFor(op, arg, call, text)})
		if op == 33 {
			out[len(out)-1] = step{decline: call}
		}
	}
	return append(out, step{msg: protocol.TurnStartedEvent{TurnID: "last"}}, step{msg: protocol.TurnAbortedEvent{Reason: protocol.AbortInterrupted}})
}

func eventFor(op, arg byte, call, text string) protocol.EventMsg {
	argv := []string{"echo", text}
	changes := map[string]protocol.FileChange{"/" + text: {Kind: protocol.FileAdd}}
	inv := protocol.McpInvocation{Server: "s", Tool: "t"}
	switch op {
	case 0:
		return protocol.AgentMessageDeltaEvent{Delta: text}
	case 1:
		return protocol.AgentMessageEvent{Message: text}
	case 2:
		return protocol.AgentReasoningDeltaEvent{Delta: text}
	case 3:
		return protocol.AgentReasoningSectionBreakEvent{}
	case 4:
		return protocol.AgentReasoningEvent{Text: text}
	case 5:
		return protocol.AgentReasoningRawContentDeltaEvent{Delta: text}
	case 6:
		return protocol.AgentReasoningRawContentEvent{Text: text}
	case 7:
		return protocol.ExecApprovalRequestEvent{CallID: call, Command: argv}
	case 8:
		pid := ""
		if arg%2 == 1 {
			pid = "p" + call
		}
		return protocol.ExecCommandBeginEvent{CallID: call, Command: argv, ProcessID: pid}
	case 9:
		return protocol.ExecCommandOutputDeltaEvent{CallID: call, Chunk: []byte(text)}
	case 10:
		return protocol.ExecCommandEndEvent{CallID: call, Command: argv, ExitCode: int(arg % 2)}
	case 11:
		return protocol.ApplyPatchApprovalRequestEvent{CallID: call, Changes: changes}
	case 12:
		return protocol.PatchApplyBeginEvent{CallID: call, Changes: changes}
	case 13:
		return protocol.PatchApplyEndEvent{CallID: call, Success: arg%2 == 0}
	case 14:
		return protocol.McpToolCallBeginEvent{CallID: call, Invocation: inv}
	case 15:
		return protocol.McpToolCallEndEvent{CallID: call, Invocation: inv}
	case 16:
		return protocol.WebSearchBeginEvent{CallID: call}
	case 17:
		return protocol.WebSearchEndEvent{CallID: call, Query: text}
	case 18:
		return protocol.PlanUpdateEvent{Plan: []protocol.PlanItem{{Step: text, Status: protocol.PlanPending}}}
	case 19:
		return protocol.ItemStartedEvent{Item: json.RawMessage(`{"type":"AgentMessage","id":"m` + call + `"}`)}
	case 20, 21:
		kind := "Plan"
		if arg%2 == 1 {
			kind = "contextCompaction"
		}
		item := json.RawMessage(`{"type":"` + kind + `","id":"i` + call + `","text":"` + text + `"}`)
		if op == 20 {
			return protocol.ItemStartedEvent{Item: item}
		}
		return protocol.ItemCompletedEvent{Item: item}
	case 22:
		return protocol.PlanDeltaEvent{ItemID: "i" + call, Delta: text}
	case 23:
		return protocol.TurnStartedEvent{TurnID: call}
	case 24:
		if arg%2 == 1 {
			return protocol.TurnCompleteEvent{Error: &protocol.TurnError{Message: text}}
		}
		return protocol.TurnCompleteEvent{}
	case 25:
		return protocol.TurnAbortedEvent{Reason: protocol.AbortInterrupted}
	case 26:
		return protocol.StreamErrorEvent{Message: text}
	case 27:
		return protocol.ErrorEvent{Message: text}
	case 28:
		return protocol.WarningEvent{Message: text}
	case 29:
		return protocol.UserMessageEvent{Message: text}
	case 30:
		return protocol.ViewImageToolCallEvent{CallID: call, Path: text}
	case 31:
		if arg%2 == 1 {
			return protocol.ExitedReviewModeEvent{}
		}
		return protocol.EnteredReviewModeEvent{UserFacingHint: text}
	case 32:
		return protocol.RequestUserInputEvent{}
	case 34:
		return protocol.HookStartedEvent{Run: protocol.HookRunSummary{ID: call}}
	case 35:
		return protocol.HookCompletedEvent{Run: protocol.HookRunSummary{ID: call}}
	}
	return protocol.TokenCountEvent{}
}

// lifeChecker holds the fold to its item model while changes come in.
type lifeChecker struct {
	t    testing.TB
	open map[string]Body
	// streamed is what the deltas said so far, by item id (message text, command output,
	// reasoning summary parts).
	streamed map[string]*strings.Builder
	parts    map[string][]string
}

func newLifeChecker(t testing.TB) *lifeChecker {
	return &lifeChecker{t: t, open: map[string]Body{}, streamed: map[string]*strings.Builder{}, parts: map[string][]string{}}
}

func (c *lifeChecker) check(ch Change) {
	c.t.Helper()
	if _, plan := ch.Body.(*ProposedPlan); plan && ch.Phase == Updated {
		return // plan deltas name the engine's item, open or not
	}
	if ch.Body == nil {
		c.t.Fatalf("change %+v has no body", ch)
	}
	_, isOpen := c.open[ch.ID]
	switch ch.Phase {
	case Started:
		if isOpen {
			c.t.Fatalf("%s started twice without an end", ch.ID)
		}
		c.open[ch.ID] = ch.Body
		c.streamed[ch.ID] = &strings.Builder{}
		c.parts[ch.ID] = nil
	case Updated:
		if !isOpen {
			c.t.Fatalf("%s updated while not open: %+v", ch.ID, ch.Delta)
		}
		c.delta(ch)
	case Completed, Dropped:
		if ch.Phase == Dropped && !isOpen {
			c.t.Fatalf("%s dropped while not open", ch.ID)
		}
		if isOpen {
			c.coalesced(ch)
		}
		delete(c.open, ch.ID)
	default:
		c.t.Fatalf("unknown phase %q", ch.Phase)
	}
}

func (c *lifeChecker) delta(ch Change) {
	d := ch.Delta
	switch d.Kind {
	case DeltaText:
		c.streamed[ch.ID].WriteString(d.Text)
	case DeltaOutput:
		c.streamed[ch.ID].Write(d.Chunk)
	case DeltaSummary, DeltaSummaryDone:
		parts := c.parts[ch.ID]
		for len(parts) <= d.Index {
			parts = append(parts, "")
		}
		if d.Kind == DeltaSummary {
			parts[d.Index] += d.Text
		} else {
			parts[d.Index] = d.Text
		}
		c.parts[ch.ID] = parts
	}
}

// coalesced checks that what the item holds is what its deltas said.
func (c *lifeChecker) coalesced(ch Change) {
	c.t.Helper()
	want := c.streamed[ch.ID].String()
	switch b := ch.Body.(type) {
	case *AgentMessage:
		if b.Streamed() != want {
			c.t.Fatalf("message %s streamed %q, deltas said %q", ch.ID, b.Streamed(), want)
		}
	case *Command:
		if _, began := c.open[ch.ID].(*Command); began && b.Output() != want {
			c.t.Fatalf("command %s output %q, deltas said %q", ch.ID, b.Output(), want)
		}
	case *Reasoning:
		got, parts := b.Summary(), c.parts[ch.ID]
		if len(got) != len(parts) {
			c.t.Fatalf("reasoning %s has %d summary parts, deltas made %d", ch.ID, len(got), len(parts))
		}
		for i := range got {
			if got[i] != parts[i] {
				c.t.Fatalf("reasoning %s part %d is %q, deltas said %q", ch.ID, i, got[i], parts[i])
			}
		}
	}
}

// runFold feeds steps through a fold and checks every change; at the end no item is open.
func runFold(t testing.TB, steps []step) {
	f := NewFold(FoldOptions{})
	c := newLifeChecker(t)
	for _, s := range steps {
		var changes []Change
		if s.decline != "" {
			changes = f.Decline(s.decline)
		} else {
			changes = f.Apply(s.msg)
		}
		for _, ch := range changes {
			c.check(ch)
		}
	}
	if len(c.open) != 0 {
		t.Fatalf("items never completed: %v", c.open)
	}
	if len(f.open) != 0 || f.agent != nil || f.reason != nil || f.todo != nil || len(f.order) != 0 {
		t.Fatalf("the fold still holds items after an interrupted turn: open %v order %v", f.open, f.order)
	}
}

// FuzzFold: whatever the engine sends, every started item completes (or is dropped) exactly
// once, updates come only between start and end, and the coalesced text is what the deltas
// said.
func FuzzFold(f *testing.F) {
	f.Add([]byte{23, 0, 2, 1, 3, 0, 2, 5, 0, 7, 0, 1, 1, 2, 24, 0})
	f.Add([]byte{23, 0, 7, 0, 8, 1, 9, 3, 9, 4, 10, 0, 11, 1, 33, 1, 14, 2, 24, 0, 10, 1})
	f.Add([]byte{23, 0, 19, 0, 0, 1, 26, 0, 0, 2, 20, 0, 22, 0, 21, 0, 20, 1, 25, 0})
	f.Add([]byte{18, 0, 18, 1, 28, 2, 29, 3, 30, 0, 31, 0, 31, 1, 32, 0, 6, 2, 5, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		runFold(t, stepsFrom(data))
	})
}

// TestFoldProperties runs the fuzz property over many random event sequences (fixed seeds,
// so a failure repeats).
func TestFoldProperties(t *testing.T) {
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 30))
		data := make([]byte, 2*(1+r.IntN(120)))
		for i := range data {
			data[i] = byte(r.UintN(256))
		}
		runFold(t, stepsFrom(data))
	}
}
