package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/internal/prompt"
	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

// Compaction replaces a history that fills the context window with a short one: the model
// is asked for a checkpoint of the conversation, and the new history is the initial
// context, the user's most recent messages (what they asked for, in their words) and that
// checkpoint. It runs on request (the compact op, as a turn of its own) and on its own when
// the tokens in use reach the model's auto-compact limit: before a turn samples, and within
// a turn when the model still has work to do.

// contextPlacement says where the initial context goes in a rebuilt history.
type contextPlacement int

const (
	// contextFirst opens the history with it (compact op, before a turn).
	contextFirst contextPlacement = iota
	// contextBeforeLastUser puts it just before the last user message, so the turn in
	// progress still ends with what the user asked (within a turn).
	contextBeforeLastUser
)

// compactUserMessageTokens bounds the user messages a compacted history keeps; older ones
// are dropped and the oldest kept one is cut in the middle.
const compactUserMessageTokens = 20000

// maxCompactTrim bounds how many of the oldest items are left out of the summarisation
// request when it does not fit the context window.
const maxCompactTrim = 1000

// runCompact is the body of the compact op's turn.
func (tr *turn) runCompact(prelude []protocol.ResponseItem) {
	if !tr.emit(tr.startedEvent()) {
		return
	}
	tr.registry = tr.t.buildRegistry(tr.s)
	tr.record(prelude...)
	err := tr.compact(contextFirst)
	if tr.ctx.Err() != nil {
		return
	}
	if err != nil {
		tr.emit(protocol.ErrorEvent{Message: err.Error()})
	}
	// Input that arrived meanwhile starts a turn of its own.
	tr.complete(nil, true)
}

// overCompactLimit reports whether the context is full enough to compact.
func (tr *turn) overCompactLimit() bool {
	limit := tr.s.info.autoCompactLimit()
	return limit > 0 && tr.t.tokensInUse() >= limit
}

// compact summarises the history and replaces it. The summary request goes out with the
// same instructions and tools as a normal request, so the model sees what it always sees.
func (tr *turn) compact(place contextPlacement) error {
	t := tr.t
	itemID, err := uuid.NewV7()
	if err != nil {
		return fmt.Errorf("compaction item id: %w", err)
	}
	item, _ := json.Marshal(struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}{"ContextCompaction", itemID.String()})
	tr.emit(protocol.ItemStartedEvent{ThreadID: t.id, TurnID: tr.id, Item: item})
	// Codex 0.169 reports the usage the compaction starts from.
	tr.emit(t.addUsage(nil, tr.s.info.window()))

	hist := t.hist.snapshot()
	summary, trimmed, err := tr.summarize(hist)
	if err != nil {
		return err
	}
	message := prompt.SummaryMessage(summary)
	replacement := buildCompacted(hist, t.initialContext(tr.s), message, place)
	if !tr.replaceHistory(message, replacement) {
		return nil
	}
	tr.emit(t.estimateUsage(tr.s.info.window()))
	tr.emit(protocol.ItemCompletedEvent{ThreadID: t.id, TurnID: tr.id, Item: item})
	tr.emit(protocol.ContextCompactedEvent{})
	if trimmed > 0 {
		tr.emit(protocol.WarningEvent{Message: fmt.Sprintf(
			"The %d oldest history item(s) were left out of the compaction request so it would fit the context window.", trimmed)})
	}
	return nil
}

// summarize asks the model for the checkpoint. When the request itself overflows the
// context window, the oldest items are left out one at a time until it fits.
func (tr *turn) summarize(hist []protocol.ResponseItem) (summary string, trimmed int, err error) {
	ask := tr.t.cfg.CompactPrompt
	if ask == "" {
		ask = prompt.CompactPrompt()
	}
	for {
		input := make([]protocol.ResponseItem, 0, len(hist)+1)
		input = append(append(input, hist...), textMessage("user", ask))
		summary, err = tr.streamSummary(tr.promptFor(input))
		if errors.Is(err, model.ErrContextWindowExceeded) && len(hist) > 1 && trimmed < maxCompactTrim && tr.ctx.Err() == nil {
			hist = hist[1:]
			trimmed++
			continue
		}
		return summary, trimmed, err
	}
}

// streamSummary runs the summary request. Its deltas are not shown; its items are recorded
// (the rollout keeps them, as Codex's does) just before the history is replaced.
func (tr *turn) streamSummary(p modelstream.Prompt) (string, error) {
	stream, err := tr.t.cfg.Streamer.Stream(tr.ctx, p, tr.retryObserver)
	if err != nil {
		return "", err
	}
	defer stream.Close()
	var items []protocol.ResponseItem
	var summary string
	for {
		ev, err := stream.Next(tr.ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
		switch ev := ev.(type) {
		case modelstream.OutputItemDone:
			items = append(items, ev.Item)
			if m, ok := ev.Item.(protocol.MessageItem); ok && m.Role == "assistant" {
				summary = messageText(m)
			}
		case modelstream.ServerTurnState:
			if tr.turnState == "" {
				tr.turnState = ev.Token
			}
		case modelstream.RateLimits:
			tr.t.setRateLimits(ev.Snapshot)
		case modelstream.Completed:
			tr.emit(tr.t.addUsage(ev.Usage, tr.s.info.window()))
		}
	}
	tr.record(items...)
	return summary, nil
}

// replaceHistory records the compaction marker and swaps the history, unless the turn has
// ended meanwhile.
func (tr *turn) replaceHistory(message string, replacement []protocol.ResponseItem) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.ended {
		return false
	}
	t := tr.t
	if rec, ok := t.cfg.Recorder.(CompactionRecorder); ok {
		t.recMu.Lock()
		err := rec.RecordCompacted(message, replacement)
		t.recMu.Unlock()
		t.recorderFailed(tr.id, err)
	}
	t.hist.replace(replacement)
	return true
}

// buildCompacted lays out the new history: the initial context, the most recent messages
// the user typed (within compactUserMessageTokens) and the summary message.
func buildCompacted(hist, initial []protocol.ResponseItem, summaryMessage string, place contextPlacement) []protocol.ResponseItem {
	var texts []string
	for _, it := range hist {
		if text, ok := userTurnText(it); ok && text != "" {
			texts = append(texts, text)
		}
	}
	kept := keepRecent(texts, compactUserMessageTokens)
	out := make([]protocol.ResponseItem, 0, len(initial)+len(kept)+1)
	if place == contextFirst || len(kept) == 0 {
		out = append(out, initial...)
		for _, text := range kept {
			out = append(out, textMessage("user", text))
		}
	} else {
		for _, text := range kept[:len(kept)-1] {
			out = append(out, textMessage("user", text))
		}
		out = append(out, initial...)
		out = append(out, textMessage("user", kept[len(kept)-1]))
	}
	return append(out, textMessage("user", summaryMessage))
}

// keepRecent keeps the newest texts that fit in budget tokens, oldest first; the oldest one
// kept is cut in the middle when only part of it fits.
func keepRecent(texts []string, budget int) []string {
	start := len(texts)
	var cut string
	for i := len(texts) - 1; i >= 0 && budget > 0; i-- {
		n := process.ApproxTokenCount(texts[i])
		if n <= budget {
			budget -= n
			start = i
			continue
		}
		cut = process.TruncateMiddle(texts[i], process.Tokens(budget))
		break
	}
	out := make([]string, 0, len(texts)-start+1)
	if cut != "" {
		out = append(out, cut)
	}
	return append(out, texts[start:]...)
}
