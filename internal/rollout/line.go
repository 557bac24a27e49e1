// Package rollout persists threads as JSONL files under CODEX_HOME/sessions, the source of
// truth for resume, fork, listing and archiving. A rollout is one file per thread; each line is
//
//	{"timestamp":"2006-01-02T15:04:05.000Z","ordinal":N,"type":T,"payload":P}
//
// with T one of session_meta (the first line), response_item, event_msg (the persisted subset
// of events, see Persisted), turn_context and compacted. Codex 0.169 writes the same shape (and
// a few line types of its own, world_state and token_usage_record, which the reader skips),
// so rollouts move between the two binaries in both directions. New threads are written in
// the "paginated" form Codex 0.169 writes by default (paginated.go): messages, reasoning,
// commands and patches as item_completed thread items, which Codex's thread index needs;
// threads of the older form are read alike, keep their form when resumed, and Migrate
// (`gocodex migrate-rollouts`) converts them.
//
// Entry points:
//   - Create / Append give a Recorder (agent.Recorder and agent.CompactionRecorder) for a new
//     thread or a resumed one; internal/app wires one into every thread that is not
//     ephemeral.
//   - Load (or ReadFile) parses a rollout; Rollout.Reconstruct rebuilds what a resume starts
//     from (history with compactions and rollbacks applied, last token usage, last turn
//     context); Rollout.InitialMessages are the recorded events for a face to replay.
//   - DropLastTurns is thread_rollback on a history; Fork copies a thread into a new id.
//   - List pages threads newest first (filters by cwd and provider), Latest is resume
//     --last, Find locates a thread by id, Archive and Unarchive move it.
package rollout

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// Line types.
const (
	TypeSessionMeta  = "session_meta"
	TypeResponseItem = "response_item"
	TypeEventMsg     = "event_msg"
	TypeTurnContext  = "turn_context"
	TypeCompacted    = "compacted"
)

// TimestampFormat is the UTC millisecond format of line and session timestamps.
const TimestampFormat = "2006-01-02T15:04:05.000Z"

// FormatTimestamp renders t as a rollout timestamp.
func FormatTimestamp(t time.Time) string { return t.UTC().Format(TimestampFormat) }

// Line is one decoded rollout line; Payload is kept raw so unknown types survive a copy.
type Line struct {
	Timestamp string          `json:"timestamp"`
	Ordinal   *int64          `json:"ordinal,omitempty"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// appendLine writes one line (with its newline) to dst. Built by hand: it is the hot path of
// the recorder and the field order is part of the format.
func appendLine(dst []byte, ts string, ordinal int64, typ string, payload []byte) []byte {
	dst = appendLineHead(dst, ts, ordinal, typ)
	dst = append(dst, payload...)
	return append(dst, "}\n"...)
}

// appendLineHead writes a line up to its payload, which the caller appends, then "}\n".
func appendLineHead(dst []byte, ts string, ordinal int64, typ string) []byte {
	dst = append(dst, `{"timestamp":"`...)
	dst = append(dst, ts...)
	dst = append(dst, `","ordinal":`...)
	dst = strconv.AppendInt(dst, ordinal, 10)
	dst = append(dst, `,"type":"`...)
	dst = append(dst, typ...)
	return append(dst, `","payload":`...)
}

// SessionMeta is the payload of the first line.
type SessionMeta struct {
	// SessionID repeats ID in the paginated form, as Codex 0.169 writes it; a sub-agent's
	// names its tree's root thread.
	SessionID    string `json:"session_id,omitempty"`
	ID           string `json:"id"`
	ForkedFromID string `json:"forked_from_id,omitempty"`
	// ParentThreadID, AgentNickname and AgentPath link a sub-agent (multi_agent_v2) to its
	// parent, as Codex 0.169 writes them; MultiAgentVersion is "v2" in such a tree.
	ParentThreadID    string            `json:"parent_thread_id,omitempty"`
	AgentNickname     string            `json:"agent_nickname,omitempty"`
	AgentPath         string            `json:"agent_path,omitempty"`
	AgentRole         string            `json:"agent_role,omitempty"`
	MultiAgentVersion string            `json:"multi_agent_version,omitempty"`
	Timestamp         string            `json:"timestamp"`
	Cwd               string            `json:"cwd"`
	Originator        string            `json:"originator"`
	CLIVersion        string            `json:"cli_version"`
	Source            json.RawMessage   `json:"source"`
	ModelProvider     string            `json:"model_provider,omitempty"`
	BaseInstructions  *BaseInstructions `json:"base_instructions,omitempty"`
	// HistoryMode is HistoryModePaginated for the form Codex 0.169 writes by default, ""
	// for the older one (see paginated.go).
	HistoryMode string   `json:"history_mode,omitempty"`
	Git         *GitInfo `json:"git,omitempty"`
	// ThreadSource is who started the thread ("user", …), as Codex 0.169 writes it; gocodex
	// writes it for sub-agents ("subagent").
	ThreadSource string `json:"thread_source,omitempty"`
	// HistoryBase is how Codex 0.169 records a fork: instead of copying, the new rollout
	// starts from a prefix of the source's (see Load). We copy, and never write it.
	HistoryBase *HistoryBase `json:"history_base,omitempty"`
}

// HistoryBase names the prefix of another thread's rollout a rollout continues.
type HistoryBase struct {
	ThreadID            string `json:"thread_id"`
	EndOrdinalExclusive int64  `json:"end_ordinal_exclusive"`
	EndByteOffset       int64  `json:"end_byte_offset"`
}

// SourceString is the session source when it is a plain string ("exec", "cli", …); Codex
// writes objects for sub-agents, which come back as "".
func (m SessionMeta) SourceString() string {
	var s string
	if json.Unmarshal(m.Source, &s) != nil {
		return ""
	}
	return s
}

// BaseInstructions is `{"text": …}`; older Codex versions wrote a bare string, which
// UnmarshalJSON accepts too.
type BaseInstructions struct {
	Text string `json:"text"`
}

func (b *BaseInstructions) UnmarshalJSON(data []byte) error {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '"' {
		return json.Unmarshal(data, &b.Text)
	}
	var obj struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(data, &obj); err != nil {
		return err
	}
	b.Text = obj.Text
	return nil
}

// GitInfo is the repository state the thread started in.
type GitInfo struct {
	CommitHash    string `json:"commit_hash,omitempty"`
	Branch        string `json:"branch,omitempty"`
	RepositoryURL string `json:"repository_url,omitempty"`
}

// TurnContext is the payload of a turn_context line: the settings a turn ran with.
type TurnContext struct {
	TurnID         string                  `json:"turn_id,omitempty"`
	Cwd            string                  `json:"cwd"`
	CurrentDate    string                  `json:"current_date,omitempty"`
	Timezone       string                  `json:"timezone,omitempty"`
	ApprovalPolicy protocol.AskForApproval `json:"approval_policy"`
	SandboxPolicy  protocol.SandboxPolicy  `json:"sandbox_policy"`
	Model          string                  `json:"model"`
	Effort         string                  `json:"effort,omitempty"`
	Summary        string                  `json:"summary"`
}

// Compacted is the payload of a compacted line. With ReplacementHistory, it is the whole
// history from then on; without, the history is rebuilt from the user messages and Message.
type Compacted struct {
	Message            string            `json:"message"`
	ReplacementHistory []json.RawMessage `json:"replacement_history,omitempty"`
}

// NewCompacted builds a compacted payload from a summary and the history that replaces the
// old one.
func NewCompacted(message string, replacement []protocol.ResponseItem) (Compacted, error) {
	c := Compacted{Message: message}
	for _, it := range replacement {
		b, err := protocol.Marshal(it)
		if err != nil {
			return Compacted{}, err
		}
		c.ReplacementHistory = append(c.ReplacementHistory, b)
	}
	return c, nil
}
