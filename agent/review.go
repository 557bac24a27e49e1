package agent

import (
	"errors"
	"strings"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/internal/review"
	"github.com/gocodex/gocodex/internal/review/reviewout"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// reviewTools are the only tools a reviewer gets, as in Codex 0.169: it reads the change
// with commands and may ask the person, nothing else.
var reviewTools = map[string]bool{"exec_command": true, "write_stdin": true, "request_user_input": true, "apply_patch": true, "view_image": true}

// Codex 0.169 runs every review at medium effort with terse output.
const (
	reviewEffort    = "medium"
	reviewVerbosity = "low"
)

// interruptedReview is what the thread keeps when a review is cut short.
const interruptedReview = "Review was interrupted. Please re-run /review and wait for it to complete."

// startReview runs a review as a turn of its own, replacing a running turn as Codex does.
func (t *Thread) startReview(id string, req protocol.ReviewRequest) {
	t.interrupt(protocol.AbortReplaced)
	if req.UserFacingHint == "" {
		req.UserFacingHint = review.Hint(req.Target)
	}
	tr := t.newTurn(id, t.settings)
	t.launch(tr, func() { tr.runReview(req) })
}

// runReview is a review turn: a reviewer thread of its own (the rubric, the environment and
// the review prompt, a few tools) reviews the target; its tool activity is shown as part of
// this turn, and this thread keeps only the result: the printed findings as a user action and
// an assistant message, with entered/exited review mode around them.
func (tr *turn) runReview(req protocol.ReviewRequest) {
	t := tr.t
	if !tr.emit(tr.startedEvent()) || !tr.emit(protocol.EnteredReviewModeEvent(req)) {
		return
	}
	// The reviewer runs commands and may patch: its turn is recorded as one with tools.
	tr.ensureSnapshot()
	mergeBase, err := review.Check(tr.ctx, tr.s.cwd, req.Target)
	if err != nil {
		tr.fail(err)
		return
	}
	child, err := t.newReviewer(tr.s)
	if err != nil {
		tr.fail(err)
		return
	}
	t.setReviewer(child)
	defer t.setReviewer(nil)
	defer child.stop()
	if _, err := child.Submit(protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput(review.Prompt(req.Target, mergeBase))}}); err != nil {
		tr.fail(err)
		return
	}
	last, failure := tr.relayReviewer(child)
	if tr.ctx.Err() != nil {
		return // interrupted: the loop reports turn_aborted
	}
	var out *protocol.ReviewOutputEvent
	printed := reviewout.NoOutput
	if last != nil && strings.TrimSpace(*last) != "" {
		parsed := reviewout.Parse(*last)
		out, printed = &parsed, reviewout.Render(parsed)
	}
	if failure != nil && out == nil {
		tr.emit(protocol.ErrorEvent{Message: failure.Message, CodexErrorInfo: failure.CodexErrorInfo})
		tr.emit(protocol.ExitedReviewModeEvent{})
		tr.completeWith(nil, true, failure)
		return
	}
	if !tr.record(textMessage("user", review.UserAction(printed))) || !tr.emit(protocol.ExitedReviewModeEvent{ReviewOutput: out}) {
		return
	}
	answer := protocol.MessageItem{Role: "assistant", Content: []protocol.ContentItem{{Type: protocol.ContentOutputText, Text: printed}}}
	if tr.record(answer) {
		tr.emit(protocol.AgentMessageEvent{Message: printed})
	}
	tr.complete(&printed, true)
}

// relayReviewer shows the reviewer's work as this turn's and waits for its turn to end. It
// returns the reviewer's last message, and its error when its turn failed.
func (tr *turn) relayReviewer(child *Thread) (last *string, failure *protocol.TurnError) {
	for {
		ev, err := child.NextEvent(tr.ctx)
		if err != nil {
			if !errors.Is(err, ErrThreadClosed) && tr.ctx.Err() == nil {
				return nil, &protocol.TurnError{Message: err.Error()}
			}
			return nil, nil
		}
		switch msg := ev.Msg.(type) {
		case protocol.TurnCompleteEvent:
			return msg.LastAgentMessage, msg.Error
		case protocol.TurnAbortedEvent:
			return nil, &protocol.TurnError{Message: interruptedReview}
		case protocol.ItemStartedEvent:
			// The reviewer's raw answer is its own; other items it starts are shown.
			if _, isMessage := agentMessageItemID(msg.Item); !isMessage {
				tr.emit(msg)
			}
		case protocol.SessionConfiguredEvent, protocol.TurnStartedEvent, protocol.TokenCountEvent,
			protocol.AgentMessageEvent, protocol.AgentMessageDeltaEvent, protocol.ErrorEvent,
			protocol.AgentReasoningEvent, protocol.AgentReasoningDeltaEvent,
			protocol.AgentReasoningRawContentEvent, protocol.AgentReasoningRawContentDeltaEvent,
			protocol.AgentReasoningSectionBreakEvent:
			// The reviewer's raw answer, usage and lifecycle stay its own; its failure is
			// reported once, with this turn's end.
		default:
			tr.emit(msg)
		}
	}
}

// newReviewer starts the thread a review runs on: this thread's model (or review_model),
// place and permissions, the rubric as its instructions, the review tools only.
func (t *Thread) newReviewer(s settings) (*Thread, error) {
	u, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	cfg := t.cfg
	cfg.Model, cfg.ModelInfo = s.model, s.info
	if m := t.cfg.ReviewModel; m != "" && m != s.model {
		cfg.Model = m
		if t.cfg.Catalog != nil {
			cfg.ModelInfo = t.cfg.Catalog(m)
		}
	}
	cfg.ModelInfo.Tools.PlanTool = false
	cfg.ModelInfo.Tools.Hosted = nil
	cfg.Cwd, cfg.ApprovalPolicy, cfg.SandboxPolicy = s.cwd, s.approval, s.sandbox
	cfg.ReasoningEffort, cfg.ReasoningSummary, cfg.Verbosity = reviewEffort, s.summary, reviewVerbosity
	cfg.BaseInstructions, cfg.DeveloperInstructions, cfg.UserInstructions, cfg.Agents = review.Rubric(), "", "", nil
	cfg.ToolHandlers = map[string]tool.Handler{}
	for name, h := range t.cfg.ToolHandlers {
		if reviewTools[name] {
			cfg.ToolHandlers[name] = h
		}
	}
	cfg.ExtraTools, cfg.ExtraToolsFunc, cfg.OutputSchema = nil, nil, nil
	cfg.RequestHeaders = map[string]string{"x-openai-subagent": "review", "x-codex-parent-thread-id": t.id}
	// The reviewer has no rollout, history or start-up hooks of its own: what the person sees
	// of it is relayed and recorded by this thread.
	cfg.ThreadID, cfg.InitialHistory, cfg.InitialMessages, cfg.InitialUsage = "", nil, nil, nil
	cfg.Hooks, cfg.Skills = nil, nil // the reviewer neither runs hooks nor uses skills
	cfg.Recorder, cfg.History, cfg.OnStarted, cfg.RolloutPath, cfg.ForkedFromID, cfg.TurnTrigger = nil, nil, nil, "", "", ""
	cfg.TurnSnapshots = nil // the reviewed thread's turn records the tree
	child := newThread(cfg, u.String(), t.log)
	child.isReviewer = true
	go child.run()
	return child, nil
}

// stop shuts a reviewer down and waits for its loop to end.
func (t *Thread) stop() {
	if _, err := t.Submit(protocol.ShutdownOp{}); err == nil {
		<-t.done
	}
}

func (t *Thread) setReviewer(child *Thread) {
	t.apMu.Lock()
	t.reviewer = child
	t.apMu.Unlock()
}

// forwardToReviewer passes an answer (an approval, a question's answer) meant for a request
// of the running reviewer on to it.
func (t *Thread) forwardToReviewer(op protocol.Op) bool {
	t.apMu.Lock()
	child := t.reviewer
	t.apMu.Unlock()
	if child == nil {
		return false
	}
	_, err := child.Submit(op)
	return err == nil
}
