package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/protocol"
)

// reviewCheckTimeout bounds the git lookups that check a review target.
const reviewCheckTimeout = 10 * time.Second

// slashCommand runs a command typed in the composer. It reports false for text that goes to
// the model as typed: a path-like "/usr/bin/x …", or a command queued behind the running turn.
// A command nobody knows never reaches the model: it gets Codex's answer and stays in the
// composer to be corrected.
func (m *Model) slashCommand(text string) bool {
	name, args, _ := strings.Cut(strings.TrimSpace(text), " ")
	args = strings.TrimSpace(args)
	if c, ok := findBuiltin(strings.TrimPrefix(name, "/")); ok {
		if m.running && !c.whileRunning {
			return false // queued, and run when the turn ends
		}
		c.run(m, text, args)
		return true
	}
	cmd := strings.TrimPrefix(name, "/")
	if cmd == "" || strings.Contains(cmd, "/") {
		return false // a path, not a command
	}
	if _, custom, _ := m.commands.Expand(text); custom {
		if m.running {
			return false // queued as a message, expanded when it is sent
		}
		return m.customCommand(text)
	}
	m.unrecognizedCommand(text, name)
	return true
}

// unrecognizedCommand is Codex's answer to a slash command it does not know; the line goes
// back into the composer.
func (m *Model) unrecognizedCommand(text, name string) {
	m.tr.add(cell{kind: cellNote, body: fmt.Sprintf("Unrecognized command '%s'. Type \"/\" for a list of supported commands.", name)})
	if m.input.Value() == "" {
		m.input.SetValue(text)
	}
	m.refresh()
}

// customCommand runs a custom command: the person's line is shown, the prompt file's text
// with the arguments in place is what the model gets.
func (m *Model) customCommand(text string) bool {
	expanded, ok, err := m.commands.Expand(text)
	if !ok {
		return false
	}
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: text})
	defer m.refresh()
	if err != nil {
		m.tr.add(cell{kind: cellError, body: err.Error()})
		return true
	}
	m.running = true
	m.submitOp(protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput(expanded)}})
	m.submitOp(protocol.AddToHistoryOp{Text: text})
	return true
}

// listCommands is /commands: the built-in commands and the person's own.
func (m *Model) listCommands(typed string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	var b strings.Builder
	for i, c := range builtinCommands() {
		if c.hidden {
			continue
		}
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "/%s  %s", c.name, c.desc)
	}
	if m.commands != nil {
		for _, c := range m.commands.List() {
			fmt.Fprintf(&b, "\n/%s %s  %s", c.Name, c.ArgumentHint, c.Description)
		}
	}
	m.tr.add(cell{kind: cellNote, body: b.String()})
	m.refresh()
}

// startReview is /review: the uncommitted changes with no argument, `--base BRANCH`,
// `--commit SHA`, or the rest of the line as custom review instructions.
func (m *Model) startReview(typed, args string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	defer m.refresh()
	if m.running {
		m.tr.add(cell{kind: cellError, body: "A turn is running: wait for it to finish (or press Esc) before /review."})
		return
	}
	target := reviewTarget(args)
	ctx, cancel := context.WithTimeout(context.Background(), reviewCheckTimeout)
	defer cancel()
	req, err := app.ReviewRequest(ctx, m.header.Cwd, target)
	if err != nil {
		m.tr.add(cell{kind: cellError, body: "/review: " + err.Error()})
		return
	}
	if m.submitOp(protocol.ReviewOp{ReviewRequest: req}) {
		m.running = true
	}
}

func reviewTarget(args string) protocol.ReviewTarget {
	flag, value, _ := strings.Cut(args, " ")
	value = strings.TrimSpace(value)
	switch {
	case args == "":
		return protocol.ReviewTarget{Type: protocol.ReviewUncommitted}
	case flag == "--base" && value != "":
		return protocol.ReviewTarget{Type: protocol.ReviewBaseBranch, Branch: value}
	case flag == "--commit" && value != "":
		return protocol.ReviewTarget{Type: protocol.ReviewCommit, Sha: value}
	}
	return protocol.ReviewTarget{Type: protocol.ReviewCustom, Instructions: args}
}

// togglePlanMode is /plan: the next turns run in plan mode (the model explores and proposes a
// plan without changing anything), or back in the default mode.
func (m *Model) togglePlanMode() {
	mode, note := protocol.ModePlan, "Plan mode on: the agent explores and proposes a plan without changing files. /plan again to leave it."
	if m.planMode {
		mode, note = protocol.ModeDefault, "Plan mode off: back to the default mode."
	}
	op := protocol.OverrideTurnContextOp{CollaborationMode: &protocol.CollaborationMode{Mode: mode,
		Settings: protocol.CollaborationModeSettings{Model: m.header.Model}}}
	if m.submitOp(op) {
		m.planMode = mode == protocol.ModePlan
		m.tr.add(cell{kind: cellNote, body: note})
	}
	m.refresh()
}

// undoTimeout bounds the restore of one turn's files.
const undoTimeout = 2 * time.Minute

// undo is /undo: the files the last turn changed are restored from its snapshots, then the
// conversation drops that turn. Files edited by hand since are kept and listed; a hand edit
// of a file the turn changed refuses the undo, with nothing changed.
func (m *Model) undo(typed string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	defer m.refresh()
	if m.rewindFiles == nil {
		m.tr.add(cell{kind: cellError, body: "/undo: this thread keeps no snapshots of its files (an ephemeral thread)."})
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), undoTimeout)
	defer cancel()
	plan, err := m.rewindFiles(ctx, 1)
	if err != nil {
		m.tr.add(cell{kind: cellError, body: "/undo: " + err.Error()})
		return
	}
	if !m.submitOp(protocol.ThreadRollbackOp{NumTurns: 1}) {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Undid the last turn: %d file(s) restored", len(plan.Restored))
	for _, c := range plan.Restored {
		fmt.Fprintf(&b, "\n  %s %s", c.Kind, c.Path)
	}
	for _, h := range plan.HandEdits {
		fmt.Fprintf(&b, "\n  kept %s (edited by hand since)", h)
	}
	m.tr.add(cell{kind: cellNote, body: b.String()})
}
