package rollout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// MigrateStatus is what the migration found or did for one rollout; the values are those
// of `codex migrate-rollouts --json`.
type MigrateStatus string

const (
	MigrateEligible         MigrateStatus = "eligible"
	MigrateMigrated         MigrateStatus = "migrated"
	MigrateAlreadyPaginated MigrateStatus = "already_paginated"
	MigrateSkippedEmpty     MigrateStatus = "skipped_empty"
	MigrateSkippedBusy      MigrateStatus = "skipped_busy"
	MigrateFailed           MigrateStatus = "failed"
)

// MigrateOutcome is one rollout's line of the report, with Codex's JSON keys.
type MigrateOutcome struct {
	ThreadID       string        `json:"thread_id"`
	RolloutPath    string        `json:"rollout_path"`
	Status         MigrateStatus `json:"status"`
	FailureReason  string        `json:"failure_reason,omitempty"`
	BytesProcessed int64         `json:"bytes_processed"`
	Message        *string       `json:"message"`
}

// MigrateOptions are `migrate-rollouts`' flags.
type MigrateOptions struct {
	// Apply rewrites the eligible rollouts; without it they are only reported.
	Apply bool
	// Threads, when set, restricts the run to these thread ids.
	Threads []string
	// MaxBytesPerSecond, when positive, limits what is read and written per second.
	MaxBytesPerSecond int64
	// Sleep waits (throttling); nil means time.Sleep.
	Sleep func(time.Duration)
}

// MigrateReport is the run's result.
type MigrateReport struct {
	Outcomes []MigrateOutcome `json:"outcomes"`
	// Checked counts every rollout looked at, the ones --thread left out included.
	Checked int `json:"-"`
	// BytesBefore and BytesAfter are the sizes of all rollouts before and after the run.
	BytesBefore int64 `json:"-"`
	BytesAfter  int64 `json:"-"`
}

// Count is the number of outcomes with status st.
func (r MigrateReport) Count(st MigrateStatus) int {
	n := 0
	for _, o := range r.Outcomes {
		if o.Status == st {
			n++
		}
	}
	return n
}

// Migrate finds the rollouts under codexHome (sessions, newest first, then
// archived_sessions) in the older form and, with Apply, rewrites them in the paginated form
// Codex 0.169 writes by default: session_meta gains session_id and history_mode, and the
// user_message, agent_message and agent_reasoning events become item_completed thread
// items, as `codex migrate-rollouts --apply` does. Every other line is kept as it is;
// lines are numbered again from 0. A file is replaced atomically (a new file renamed over
// it) and only when no recorder is writing it (see lock.go): a thread in use is
// skipped as busy. An error is returned only when the folders cannot be read; a rollout
// that cannot be migrated is a failed outcome.
func Migrate(codexHome string, opts MigrateOptions) (MigrateReport, error) {
	var paths []string
	collect := func(p string) (bool, error) {
		paths = append(paths, p)
		return false, nil
	}
	if err := walkDated(filepath.Join(codexHome, SessionsDir), "", collect); err != nil {
		return MigrateReport{}, err
	}
	if err := walkFlat(filepath.Join(codexHome, ArchivedDir), "", collect); err != nil && !errors.Is(err, errStop) {
		return MigrateReport{}, err
	}
	rep := MigrateReport{Outcomes: []MigrateOutcome{}}
	throttle := newThrottle(opts)
	for _, p := range paths {
		rep.Checked++
		before := fileSize(p)
		rep.BytesBefore += before
		id := idFromName(p)
		if len(opts.Threads) > 0 && !slices.Contains(opts.Threads, id) {
			rep.BytesAfter += before
			continue
		}
		o := migrateFile(p, id, opts.Apply)
		rep.Outcomes = append(rep.Outcomes, o)
		rep.BytesAfter += fileSize(p)
		throttle.account(o.BytesProcessed * 2) // read once, written once
	}
	return rep, nil
}

// idFromName is the thread id in a rollout's file name (rollout-<time>-<id>.jsonl).
func idFromName(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if len(name) >= 36 {
		return name[len(name)-36:]
	}
	return name
}

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

// migrateFile classifies one rollout and, with apply, rewrites it.
func migrateFile(path, id string, apply bool) MigrateOutcome {
	o := MigrateOutcome{ThreadID: id, RolloutPath: path}
	fail := func(reason, msg string) MigrateOutcome {
		o.Status, o.FailureReason, o.Message = MigrateFailed, reason, &msg
		return o
	}
	f, err := os.Open(path)
	if err != nil {
		return fail("io_error", err.Error())
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fail("io_error", err.Error())
	}
	if st.Size() == 0 {
		o.Status = MigrateSkippedEmpty
		return o
	}
	head := readMetaHead(f)
	if head.ID == "" {
		return fail("invalid_session_metadata", fmt.Sprintf("rollout at %s does not start with a session_meta line", path))
	}
	if head.HistoryMode == HistoryModePaginated {
		o.Status = MigrateAlreadyPaginated
		return o
	}
	// Without flock (err) nobody can be seen writing; the file is treated as free.
	busy, err := tryLockExclusive(f)
	if busy {
		o.Status = MigrateSkippedBusy
		return o
	}
	if err == nil {
		defer unlock(f)
	}
	if !apply {
		o.Status = MigrateEligible
		return o
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fail("io_error", err.Error())
	}
	out, err := paginate(data)
	if err != nil {
		return fail("invalid_session_metadata", err.Error())
	}
	if err := replaceFile(path, out, st.Mode().Perm()); err != nil {
		return fail("io_error", err.Error())
	}
	// The folder's listing cache knows the file in its older form: rebuilt on next use.
	_ = os.Remove(filepath.Join(filepath.Dir(path), IndexFileName))
	o.Status, o.BytesProcessed = MigrateMigrated, int64(len(data))
	return o
}

// paginate rewrites a rollout of the older form in the paginated one.
func paginate(data []byte) ([]byte, error) {
	out := make([]byte, 0, len(data)+len(data)/4)
	w := itemWriter{newID: itemSeq()}
	threadID := ""
	ord := int64(0)
	for len(data) > 0 {
		var raw []byte
		raw, data = cutLine(data)
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		l, ok := parseLine(raw)
		if !ok {
			if raw[len(raw)-1] != '\n' {
				continue // a torn last line (a crash mid-write): a resume would cut it too
			}
			out = append(out, raw...) // garbage is kept as it is; readers skip it
			continue
		}
		payload := l.Payload
		switch {
		case ord == 0:
			if l.Type != TypeSessionMeta {
				return nil, errors.New("the first line is not a session_meta line")
			}
			var m metaHead
			if err := json.Unmarshal(payload, &m); err != nil || m.ID == "" {
				return nil, fmt.Errorf("session_meta: %v", err)
			}
			threadID = m.ID
			var err error
			if payload, err = paginatedMeta(payload, m.ID); err != nil {
				return nil, err
			}
		case l.Type == TypeEventMsg:
			payload = w.migrateEvent(payload, threadID, l.Timestamp)
		}
		out = appendLine(out, l.Timestamp, ord, l.Type, payload)
		ord++
	}
	return out, nil
}

// migrateEvent is the payload an event line of the older form has in the paginated one.
func (w *itemWriter) migrateEvent(payload []byte, threadID, ts string) []byte {
	switch peekType(payload) {
	case "user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content", "task_started", "turn_started":
	default:
		w.reasoning = nil // any other event ends a run of reasoning
		return payload
	}
	msg, err := protocol.DecodeEventMsg(payload)
	if err != nil {
		w.reasoning = nil
		return payload
	}
	it := w.item(msg)
	if it == nil {
		return payload
	}
	// As Codex's migration writes them: the line's time as completed_at_ms, no start.
	b, err := protocol.Marshal(itemCompletedLine{Type: "item_completed", ThreadID: threadID, TurnID: w.turnID, Item: it, CompletedAtMs: lineMillis(ts)})
	if err != nil {
		return payload
	}
	return b
}

// paginatedMeta adds session_id (first) and history_mode to a session_meta payload, keeping
// every other member as it is.
func paginatedMeta(payload []byte, id string) ([]byte, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(payload, &members); err != nil {
		return nil, fmt.Errorf("session_meta: %w", err)
	}
	body := bytes.TrimSpace(payload)
	body = bytes.TrimSpace(body[1 : len(body)-1]) // inside the braces
	var b bytes.Buffer
	b.WriteByte('{')
	if _, ok := members["session_id"]; !ok {
		b.WriteString(`"session_id":` + strconv.Quote(id))
		if len(body) > 0 {
			b.WriteByte(',')
		}
	}
	if _, ok := members["history_mode"]; ok {
		// An explicit "legacy" is replaced; the members come out sorted then.
		members["history_mode"] = json.RawMessage(`"` + HistoryModePaginated + `"`)
		if _, ok := members["session_id"]; !ok {
			members["session_id"] = json.RawMessage(strconv.Quote(id))
		}
		return protocol.Marshal(members)
	}
	b.Write(body)
	b.WriteString(`,"history_mode":"` + HistoryModePaginated + `"}`)
	return b.Bytes(), nil
}

// lineMillis is a line timestamp in Unix milliseconds (0 when it does not parse).
func lineMillis(ts string) int64 {
	t, err := time.Parse(TimestampFormat, ts)
	if err != nil {
		if t, err = time.Parse(time.RFC3339Nano, ts); err != nil {
			return 0
		}
	}
	return t.UnixMilli()
}

// itemSeq names migrated items item-1, item-2, … as Codex's migration does.
func itemSeq() func() string {
	n := 0
	return func() string {
		n++
		return "item-" + strconv.Itoa(n)
	}
}

// replaceFile writes data to a new file beside path and renames it over path, durably.
func replaceFile(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".rollout-migrate-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename there is nothing left to remove
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// throttle keeps the run under MaxBytesPerSecond by sleeping between files.
type throttle struct {
	limit int64
	bytes int64
	start time.Time
	sleep func(time.Duration)
}

func newThrottle(o MigrateOptions) *throttle {
	sleep := o.Sleep
	if sleep == nil {
		sleep = time.Sleep
	}
	return &throttle{limit: o.MaxBytesPerSecond, start: time.Now(), sleep: sleep}
}

func (t *throttle) account(n int64) {
	if t.limit <= 0 || n <= 0 {
		return
	}
	t.bytes += n
	due := time.Duration(float64(t.bytes) / float64(t.limit) * float64(time.Second))
	if wait := due - time.Since(t.start); wait > 0 {
		t.sleep(wait)
	}
}
