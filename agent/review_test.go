package agent

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

const reviewJSON = `{"findings":[{"title":"[P1] Fix it","body":"Because.","confidence_score":0.8,"priority":1,` +
	`"code_location":{"absolute_file_path":"/x/a.go","line_range":{"start":1,"end":2}}}],` +
	`"overall_correctness":"patch is incorrect","overall_explanation":"It breaks.","overall_confidence_score":0.7}`

// A review runs on a reviewer of its own (rubric, environment, the review prompt, the review
// tools, x-openai-subagent), its tool activity shown in this thread's turn; this thread keeps
// only the user action and the printed findings, between entered and exited review mode.
func TestReviewRunsOnAReviewer(t *testing.T) {
	var ran []string
	cmdTool := fakeTool{name: "exec_command", handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		ran = append(ran, call.Arguments)
		env.Emit(protocol.ExecCommandBeginEvent{CallID: call.CallID, Command: []string{"git", "diff"}})
		env.Emit(protocol.ExecCommandEndEvent{CallID: call.CallID, Command: []string{"git", "diff"}})
		return tool.Result{Output: "diff --git a/x b/x"}, nil
	}}
	rec := &memRecorder{}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.ToolHandlers = map[string]tool.Handler{"exec_command": cmdTool, "shell": cmdTool}
		c.ModelInfo.Tools.ShellType = tools.ShellTypeUnifiedExec
		c.ModelInfo.SupportsReasoning = true
		c.Recorder = rec
	}})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.FunctionCall("call_1", "exec_command", `{"cmd":"git diff"}`), testkit.Completed(testkit.Usage{})),
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "```json\n"+reviewJSON+"\n```"), testkit.Completed(testkit.Usage{})))
	h.submit(protocol.ReviewOp{ReviewRequest: protocol.ReviewRequest{Target: protocol.ReviewTarget{Type: protocol.ReviewCustom, Instructions: "look at x"}}})
	evs := h.until(turnEnd)
	got := compact(types(evs))
	want := []string{"session_configured", "task_started", "entered_review_mode", "user_message", "exec_command_begin", "exec_command_end",
		"exited_review_mode", "agent_message", "task_complete"}
	if diff := cmp.Diff(want, filterOut(got, "exec_command_output_delta", "terminal_interaction")); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	entered, _ := find[protocol.EnteredReviewModeEvent](evs)
	if entered.UserFacingHint != "look at x" {
		t.Errorf("hint %q", entered.UserFacingHint)
	}
	exited, _ := find[protocol.ExitedReviewModeEvent](evs)
	if exited.ReviewOutput == nil || len(exited.ReviewOutput.Findings) != 1 || exited.ReviewOutput.OverallExplanation != "It breaks." {
		t.Fatalf("review output %+v", exited.ReviewOutput)
	}
	msg, _ := find[protocol.AgentMessageEvent](evs)
	if msg.Message != "It breaks.\n\nReview comment:\n\n- [P1] Fix it — /x/a.go:1-2\n  Because." {
		t.Errorf("printed %q", msg.Message)
	}
	if len(ran) != 1 {
		t.Errorf("commands %v", ran)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if reqs[0].Header.Get("x-openai-subagent") != "review" || reqs[0].Header.Get("x-codex-parent-thread-id") != h.thread.ID() {
		t.Errorf("headers %v", reqs[0].Header)
	}
	body := string(reqs[0].Body)
	for _, w := range []string{`"effort":"medium"`, `"verbosity":"low"`, "# Review guidelines:", `"text":"look at x"`} {
		if !strings.Contains(body, w) {
			t.Errorf("request lacks %s", w)
		}
	}
	if strings.Contains(body, "update_plan") || strings.Contains(body, "<permissions") {
		t.Errorf("reviewer got the thread's plan tool or permissions: %s", body)
	}
	// The reviewed thread's history: the user action and the printed answer, nothing of
	// the reviewer's own conversation.
	var roles []string
	for _, it := range h.thread.hist.snapshot() {
		if m, ok := it.(protocol.MessageItem); ok {
			roles = append(roles, m.Role+": "+strings.SplitN(m.Content[0].Text, "\n", 2)[0])
		} else {
			roles = append(roles, it.ItemType())
		}
	}
	if diff := cmp.Diff([]string{"user: <user_action>", "assistant: It breaks."}, roles); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

// A reviewer that answers prose, not JSON: the text is shown as it is and the turn completes.
func TestReviewProseAnswerIsShownAsIs(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "Looks fine to me."), testkit.Completed(testkit.Usage{})))
	h.submit(protocol.ReviewOp{ReviewRequest: protocol.ReviewRequest{Target: protocol.ReviewTarget{Type: protocol.ReviewCustom, Instructions: "x"}}})
	evs := h.until(turnEnd)
	if _, ok := evs[len(evs)-1].Msg.(protocol.TurnCompleteEvent); !ok {
		t.Fatalf("turn ended with %s", evs[len(evs)-1].Msg.EventType())
	}
	msg, _ := find[protocol.AgentMessageEvent](evs)
	if msg.Message != "Looks fine to me." {
		t.Errorf("printed %q", msg.Message)
	}
}

// An unknown commit is refused before any model call, with a reason.
func TestReviewUnknownCommitIsRefused(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) { c.Cwd = dir }})
	h.submit(protocol.ReviewOp{ReviewRequest: protocol.ReviewRequest{Target: protocol.ReviewTarget{Type: protocol.ReviewCommit, Sha: "deadbeef"}}})
	evs := h.until(turnEnd)
	e, ok := find[protocol.ErrorEvent](evs)
	if !ok || !strings.Contains(e.Message, `cannot review commit "deadbeef"`) {
		t.Errorf("error %+v", e)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
}

func filterOut(ts []string, drop ...string) []string {
	var out []string
	for _, t := range ts {
		keep := true
		for _, d := range drop {
			keep = keep && t != d
		}
		if keep {
			out = append(out, t)
		}
	}
	return out
}

// review_model, when set, is the model the reviewer runs on; the thread keeps its own.
func TestReviewModel(t *testing.T) {
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) { c.ReviewModel = "review-model" }})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", reviewJSON), testkit.Completed(testkit.Usage{})), answer("m2", "ok", 5))
	h.submit(protocol.ReviewOp{ReviewRequest: protocol.ReviewRequest{Target: protocol.ReviewTarget{Type: protocol.ReviewCustom, Instructions: "x"}}})
	h.until(turnEnd)
	h.say("next")
	h.until(turnEnd)
	reqs := h.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), `"model":"review-model"`) || !strings.Contains(string(reqs[1].Body), `"model":"test-model"`) {
		t.Fatalf("models: %d requests", len(reqs))
	}
}
