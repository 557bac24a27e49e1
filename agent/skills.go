package agent

import (
	"github.com/gocodex/gocodex/protocol"
)

// Skills is what a thread knows of the user's skills (the host discovers them).
type Skills struct {
	// Instructions is the <skills_instructions> block; it opens the developer message's
	// sections after the developer instructions, as in Codex 0.169 ("" leaves it out).
	Instructions string
	// Warnings are shown once when the thread starts (SKILL.md files that did not load).
	Warnings []string
	// Load returns the `<skill>` messages for a turn's input (skills mentioned as `$name` and
	// explicit skill items), recorded after the user's message, and warnings for skills
	// that could not be read. Nil loads nothing.
	Load func(items []protocol.InputItem) (messages, warnings []string)
}

func (t *Thread) skillsInstructions() string {
	if t.cfg.Skills == nil {
		return ""
	}
	return t.cfg.Skills.Instructions
}

// skillMessages are the messages that bring the skills the input asks for to the model.
func (tr *turn) skillMessages(items []protocol.InputItem) []protocol.ResponseItem {
	sk := tr.t.cfg.Skills
	if sk == nil || sk.Load == nil {
		return nil
	}
	texts, warnings := sk.Load(items)
	for _, w := range warnings {
		tr.emit(protocol.WarningEvent{Message: w})
	}
	out := make([]protocol.ResponseItem, 0, len(texts))
	for _, text := range texts {
		out = append(out, textMessage("user", text))
	}
	return out
}
