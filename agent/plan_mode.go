package agent

import (
	"encoding/json"
	"strings"

	"github.com/gocodex/gocodex/internal/prompt"
	"github.com/gocodex/gocodex/protocol"
)

// The tags around a proposed plan, each alone on its line, as Codex's plan mode asks for.
const (
	planOpenTag  = "<proposed_plan>"
	planCloseTag = "</proposed_plan>"
)

// planMediumEffort is the reasoning effort of Codex 0.169's Plan preset, used when the mode
// is chosen without one.
const planMediumEffort = "medium"

// planPiece is a run of message text, inside the plan or not, or the plan opening/closing.
type planPiece struct {
	plan        bool
	text        string
	open, close bool
}

// planSplitter separates a streamed assistant message into its text and the proposed plan
// it contains. A line is held back only while it may still become a tag line.
type planSplitter struct {
	pending string // the start of a line that may still be a tag
	midLine bool   // part of the current line was passed on: it is not a tag
	inPlan  bool
	closed  bool
	opened  bool
	text    strings.Builder // the plan so far
	message strings.Builder // the message without the plan
}

func (p *planSplitter) emit(out []planPiece, s string) []planPiece {
	if s == "" {
		return out
	}
	if p.inPlan {
		p.text.WriteString(s)
	} else {
		p.message.WriteString(s)
	}
	if n := len(out); n > 0 && out[n-1].plan == p.inPlan && !out[n-1].open && !out[n-1].close {
		out[n-1].text += s
		return out
	}
	return append(out, planPiece{plan: p.inPlan, text: s})
}

// feed splits a delta of the message.
func (p *planSplitter) feed(delta string) []planPiece {
	var out []planPiece
	s := p.pending + delta
	p.pending = ""
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if p.midLine {
			if i < 0 {
				return p.emit(out, s)
			}
			out = p.emit(out, s[:i+1])
			s, p.midLine = s[i+1:], false
			continue
		}
		if i < 0 {
			if p.couldBeTag(s) {
				p.pending = s
				return out
			}
			p.midLine = true
			return p.emit(out, s)
		}
		line := s[:i+1]
		s = s[i+1:]
		out = p.line(out, line)
	}
	return out
}

// line handles one whole line: a tag changes state, anything else is text.
func (p *planSplitter) line(out []planPiece, line string) []planPiece {
	switch tag := strings.TrimSpace(line); {
	case !p.inPlan && !p.closed && tag == planOpenTag:
		p.inPlan, p.opened = true, true
		return append(out, planPiece{open: true})
	case p.inPlan && tag == planCloseTag:
		p.inPlan, p.closed = false, true
		return append(out, planPiece{close: true})
	}
	return p.emit(out, line)
}

func (p *planSplitter) couldBeTag(s string) bool {
	tag := planOpenTag
	switch {
	case p.inPlan:
		tag = planCloseTag
	case p.closed:
		return false
	}
	return strings.HasPrefix(tag, strings.TrimSpace(s))
}

// finish ends the message: a held-back line is judged as it stands, and a plan left open is
// closed.
func (p *planSplitter) finish() []planPiece {
	var out []planPiece
	if s := p.pending; s != "" {
		p.pending = ""
		out = p.line(out, s)
	}
	if p.inPlan {
		p.inPlan, p.closed = false, true
		out = append(out, planPiece{close: true})
	}
	return out
}

// splitPlan separates a whole message into its text and its plan.
func splitPlan(text string) (message, plan string, found bool) {
	var p planSplitter
	p.feed(text)
	p.finish()
	return p.message.String(), p.text.String(), p.opened
}

// planItemID is the id of a turn's plan item, as Codex names it.
func (tr *turn) planItemID() string { return tr.id + "-plan" }

func (tr *turn) planItem(text string) json.RawMessage {
	b, _ := json.Marshal(struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Text string `json:"text"`
	}{"Plan", tr.planItemID(), text})
	return b
}

// streamPlanText passes a delta of the assistant's message on in plan mode: message text as
// agent_message_delta, the proposed plan as a Plan item with its plan_delta events.
func (tr *turn) streamPlanText(delta string) {
	if tr.planText == nil {
		tr.planText = &planSplitter{}
	}
	tr.emitPlanPieces(tr.planText.feed(delta))
}

func (tr *turn) emitPlanPieces(pieces []planPiece) {
	for _, pc := range pieces {
		switch {
		case pc.open:
			tr.emit(protocol.ItemStartedEvent{ThreadID: tr.t.id, TurnID: tr.id, Item: tr.planItem("")})
		case pc.close:
			// Codex completes the plan item with the message, not at its closing tag.
		case pc.plan:
			tr.emit(protocol.PlanDeltaEvent{ThreadID: tr.t.id, TurnID: tr.id, ItemID: tr.planItemID(), Delta: pc.text})
		default:
			tr.emit(protocol.AgentMessageDeltaEvent{Delta: pc.text})
		}
	}
}

// finishPlanMessage ends an assistant message in plan mode and returns its text without the
// plan. A message that arrived whole (no deltas) gets its plan item here.
func (tr *turn) finishPlanMessage(full string) string {
	if tr.planText == nil {
		tr.planText = &planSplitter{}
		tr.emitPlanPieces(tr.planText.feed(full))
	}
	tr.emitPlanPieces(tr.planText.finish())
	if tr.planText.opened {
		tr.emit(protocol.ItemCompletedEvent{ThreadID: tr.t.id, TurnID: tr.id, Item: tr.planItem(tr.planText.text.String())})
	}
	tr.planText = nil
	message, _, _ := splitPlan(full)
	return message
}

// collaborationMessage tells the model its collaboration mode when it changed.
func collaborationMessage(s settings) protocol.ResponseItem {
	return textMessage("developer", prompt.CollaborationMode(s.mode, s.modeInstr))
}

// applyCollaborationMode switches the mode of later turns, with the model and reasoning
// effort its settings name.
func (t *Thread) applyCollaborationMode(cm *protocol.CollaborationMode) {
	if cm == nil {
		return
	}
	s := &t.settings
	s.mode = cm.Mode
	s.modeInstr = ""
	if di := cm.Settings.DeveloperInstructions; di != nil {
		s.modeInstr = *di
	}
	if m := cm.Settings.Model; m != "" && m != s.model {
		s.model = m
		if t.cfg.Catalog != nil {
			s.info = t.cfg.Catalog(m)
		}
	}
	switch {
	case cm.Settings.ReasoningEffort != nil:
		s.effort = *cm.Settings.ReasoningEffort
	case cm.Mode == protocol.ModePlan:
		s.effort = planMediumEffort
	}
}
