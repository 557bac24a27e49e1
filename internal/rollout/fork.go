package rollout

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gocodex/gocodex/internal/prompt"
	"github.com/gocodex/gocodex/protocol"
)

// ForkOptions choose what a fork keeps.
type ForkOptions struct {
	// NewID is the fork's thread id (required).
	NewID string
	// DropLastTurns, when positive, leaves out the source's last n user turns: the fork
	// holds the thread as it was before the n-th last message the user typed.
	DropLastTurns int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Fork copies the rollout src (read with Load) into a new thread under codexHome and returns the new file's
// path. The copy's session_meta names the source in forked_from_id; everything after it is
// copied line for line (up to the cut), so the fork resumes to the same history.
func Fork(codexHome string, src *Rollout, opts ForkOptions) (string, error) {
	if opts.NewID == "" {
		return "", errors.New("fork: no thread id")
	}
	if src.Meta.HistoryBase != nil && !src.basesLoaded {
		// The copy would lose the base's history (Codex's forks point at it instead of
		// copying it): the source must come from Load.
		return "", fmt.Errorf("fork: %s was read without its history base (load it with Load)", src.Path)
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	t := now()
	lines := src.Lines
	if opts.DropLastTurns > 0 {
		lines = lines[:forkCut(lines, opts.DropLastTurns)]
	}
	meta := src.Meta
	meta.ID, meta.ForkedFromID, meta.Timestamp = opts.NewID, src.Meta.ID, FormatTimestamp(t)
	meta.HistoryBase = nil // src.Lines already hold any base's lines (Load)
	if meta.SessionID != "" {
		meta.SessionID = opts.NewID
	}
	metaJSON, err := protocol.Marshal(meta)
	if err != nil {
		return "", fmt.Errorf("fork: encode session_meta: %w", err)
	}
	ts := FormatTimestamp(t)
	out := appendLine(nil, ts, 0, TypeSessionMeta, metaJSON)
	ord := int64(1)
	for _, l := range lines {
		if l.Type == TypeSessionMeta {
			continue
		}
		out = appendLine(out, l.Timestamp, ord, l.Type, l.Payload)
		ord++
	}
	// A source caught in the middle of a turn (still running elsewhere, or killed) gives a
	// fork whose last turn is marked interrupted, as Codex does, so the model knows.
	if turnID, open := openTurn(lines); open {
		ev, err := protocol.MarshalEventMsg(protocol.TurnAbortedEvent{TurnID: turnID, Reason: protocol.AbortInterrupted})
		if err != nil {
			return "", fmt.Errorf("fork: %w", err)
		}
		msg, err := protocol.Marshal(protocol.MessageItem{Role: "user", Content: []protocol.ContentItem{{Type: protocol.ContentInputText, Text: prompt.TurnAbortedText()}}})
		if err != nil {
			return "", fmt.Errorf("fork: %w", err)
		}
		out = appendLine(out, ts, ord, TypeResponseItem, msg)
		out = appendLine(out, ts, ord+1, TypeEventMsg, ev)
	}
	path := NewPath(codexHome, t, opts.NewID)
	if err := writeNew(path, out); err != nil {
		return "", fmt.Errorf("fork: %w", err)
	}
	return path, nil
}

// forkCut is the index of the first line left out when dropping the last n user turns: the
// n-th last user message typed that is still live (turns dropped by an earlier
// thread_rolled_back do not count), moved back over the lines that opened its turn
// (task_started, turn_context, contextual items).
func forkCut(lines []Line, n int) int {
	var starts []int // line indices of the live user turns
	for i, l := range lines {
		switch l.Type {
		case TypeResponseItem:
			it, err := decodeItem(l.Payload)
			if err == nil && IsUserTurnStart(it) {
				starts = append(starts, i)
			}
		case TypeEventMsg:
			if peekType(l.Payload) == "thread_rolled_back" {
				var m struct {
					NumTurns int `json:"num_turns"`
				}
				if json.Unmarshal(l.Payload, &m) == nil && m.NumTurns > 0 {
					starts = starts[:max(0, len(starts)-m.NumTurns)]
				}
			}
		}
	}
	if len(starts) == 0 {
		return len(lines)
	}
	cut := starts[max(0, len(starts)-n)]
	for cut > 0 {
		l := lines[cut-1]
		switch {
		case l.Type == TypeTurnContext:
		case l.Type == TypeEventMsg && isTurnOpening(l):
		case l.Type == TypeResponseItem && isContextItem(l):
		case l.Type != TypeResponseItem && l.Type != TypeEventMsg && l.Type != TypeCompacted && l.Type != TypeSessionMeta:
			// world_state and other per-turn bookkeeping of newer Codex versions.
		default:
			return cut
		}
		cut--
	}
	return cut
}

// openTurn reports whether the last turn in lines started and never ended, and its id.
func openTurn(lines []Line) (string, bool) {
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].Type != TypeEventMsg {
			continue
		}
		switch peekType(lines[i].Payload) {
		case "task_complete", "turn_complete", "turn_aborted":
			return "", false
		case "task_started", "turn_started":
			var m struct {
				TurnID string `json:"turn_id"`
			}
			_ = json.Unmarshal(lines[i].Payload, &m)
			return m.TurnID, true
		}
	}
	return "", false
}

func isTurnOpening(l Line) bool {
	msg, err := protocol.DecodeEventMsg(l.Payload)
	if err != nil {
		return false
	}
	_, ok := msg.(protocol.TurnStartedEvent)
	return ok
}

// isContextItem: developer messages and contextual user messages injected at a turn's start.
func isContextItem(l Line) bool {
	it, err := protocol.DecodeResponseItem(l.Payload)
	if err != nil {
		return false
	}
	m, ok := it.(protocol.MessageItem)
	if !ok {
		return false
	}
	return m.Role == "developer" || (m.Role == "user" && !IsUserTurnStart(m))
}

// writeNew writes a new file whole and durably (mode 0600), failing if it exists.
func writeNew(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
