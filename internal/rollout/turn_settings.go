package rollout

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
)

// TurnSettings are the model and reasoning effort a turn ran with, from its turn_context
// line ("" when the line has none). Codex 0.169's thread listings show a thread's latest.
type TurnSettings struct {
	Model  string
	Effort string
}

// tailWindows are how much of a rollout's end LatestTurnSettings reads, one after the
// other: the last turn's turn_context is usually in the last 64 KiB; a turn with long
// command outputs may push it further back. The file is never read whole.
var tailWindows = []int64{64 << 10, 1 << 20}

// LatestTurnSettings returns the settings of the last turn_context line in the rollout at
// path, reading only its tail; ok is false when the tail holds none (the caller falls back
// on the head's, ThreadSummary.Model and ReasoningEffort).
func LatestTurnSettings(path string) (TurnSettings, bool) {
	f, err := os.Open(path)
	if err != nil {
		return TurnSettings{}, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return TurnSettings{}, false
	}
	size := st.Size()
	for _, w := range tailWindows {
		start := max(size-w, 0)
		buf := make([]byte, size-start)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return TurnSettings{}, false
		}
		if start > 0 { // the first line is cut: it starts before the window
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				buf = nil
			} else {
				buf = buf[i+1:]
			}
		}
		if ts, ok := lastTurnSettings(buf); ok {
			return ts, true
		}
		if start == 0 {
			break
		}
	}
	return TurnSettings{}, false
}

// turnContextTag is how a turn_context line names its type, as this package and Codex
// write it; lines without it are not decoded.
var turnContextTag = []byte(`"type":"turn_context"`)

// lastTurnSettings finds the last turn_context line among whole lines.
func lastTurnSettings(buf []byte) (TurnSettings, bool) {
	for len(buf) > 0 {
		end := len(buf)
		if buf[end-1] == '\n' {
			end--
		}
		i := bytes.LastIndexByte(buf[:end], '\n')
		line := buf[i+1 : end]
		buf = buf[:i+1]
		if !bytes.Contains(line, turnContextTag) {
			continue
		}
		if l, ok := parseLine(line); ok && l.Type == TypeTurnContext {
			if ts, ok := turnSettingsOf(l.Payload); ok {
				return ts, true
			}
		}
	}
	return TurnSettings{}, false
}

// turnSettingsOf decodes a turn_context payload's model and effort.
func turnSettingsOf(payload []byte) (TurnSettings, bool) {
	var tc struct {
		Model  string `json:"model"`
		Effort string `json:"effort"`
	}
	if json.Unmarshal(payload, &tc) != nil {
		return TurnSettings{}, false
	}
	return TurnSettings{Model: tc.Model, Effort: tc.Effort}, true
}
