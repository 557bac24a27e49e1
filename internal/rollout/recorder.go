package rollout

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// SessionsDir and ArchivedDir are the folders of CODEX_HOME that hold rollouts.
const (
	SessionsDir = "sessions"
	ArchivedDir = "archived_sessions"
)

// FileName is the rollout file name of a thread created at t (local time).
func FileName(t time.Time, id string) string {
	return "rollout-" + t.Format("2006-01-02T15-04-05") + "-" + id + ".jsonl"
}

// NewPath is where a thread created at t is recorded: sessions/YYYY/MM/DD/<FileName>.
func NewPath(codexHome string, t time.Time, id string) string {
	return filepath.Join(codexHome, SessionsDir, t.Format("2006"), t.Format("01"), t.Format("02"), FileName(t, id))
}

// Settings are the turn settings written as turn_context; the recorder follows them from
// session_configured and from SetSettings.
type Settings struct {
	Cwd            string
	Model          string
	ApprovalPolicy protocol.AskForApproval
	SandboxPolicy  protocol.SandboxPolicy
	Effort         string
	Summary        string
	Timezone       string
}

// Options configure a Recorder.
type Options struct {
	// Meta is the session_meta written as the first line of a new rollout (ID required).
	Meta SessionMeta
	// Settings seed the turn_context lines.
	Settings Settings
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// NewItemID names the thread items of the paginated form; nil means a UUIDv7.
	NewItemID func() string
}

// Recorder writes one thread's rollout. It implements agent.Recorder: the engine calls it
// before an event is queued, so a line is handed to the kernel (one write per call) before
// any reader can see the event; Flush (turn end, shutdown) and turn ends fsync. The file is
// created lazily with the first persisted line, as Codex does, so a thread that never ran a
// turn leaves nothing behind. Methods are safe for concurrent use.
type Recorder struct {
	mu       sync.Mutex
	path     string
	now      func() time.Time
	meta     SessionMeta
	settings Settings
	f        *os.File
	buf      []byte // reused line buffer; written whole with one write per call
	ordinal  int64
	dirty    bool // written since the last fsync
	metaDone bool // the file exists with its session_meta (or is an existing rollout)
	closed   bool
	// paginated: messages, reasoning, commands and patches are written as item_completed
	// thread items (new threads, and resumed threads already in that form).
	paginated bool
	items     itemWriter
}

// Create prepares the rollout of a new thread at NewPath(codexHome, now, opts.Meta.ID).
func Create(codexHome string, opts Options) (*Recorder, error) {
	if opts.Meta.ID == "" {
		return nil, errors.New("rollout: no thread id")
	}
	r := newRecorder(opts)
	now := r.now()
	r.path = NewPath(codexHome, now, opts.Meta.ID)
	if r.meta.Timestamp == "" {
		r.meta.Timestamp = FormatTimestamp(now)
	}
	// New threads take the form Codex 0.169 writes by default, so its resume --last,
	// pickers and thread/list show them with their first message.
	if r.meta.SessionID == "" { // a sub-agent's is its tree's root
		r.meta.SessionID = r.meta.ID
	}
	r.meta.HistoryMode, r.paginated = HistoryModePaginated, true
	return r, nil
}

// Append opens an existing rollout (resume) to add to it. A torn last line, left by a crash
// in the middle of a write, is cut off first so new lines start on a line of their own.
func Append(path string, opts Options) (*Recorder, error) {
	f, err := openLocked(path)
	if err != nil {
		return nil, err
	}
	n, lines, size, err := validPrefix(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read rollout %s: %w", path, err)
	}
	if n != size {
		if err := f.Truncate(n); err != nil {
			f.Close()
			return nil, fmt.Errorf("repair rollout %s: %w", path, err)
		}
	}
	r := newRecorder(opts)
	r.path, r.f, r.metaDone, r.ordinal = path, f, true, nextOrdinal(f, n, lines)
	// A resumed thread keeps its form: one file is never half legacy, half paginated.
	head := readMetaHead(f)
	r.paginated, r.meta.ID = head.HistoryMode == HistoryModePaginated, head.ID
	return r, nil
}

// openLocked opens a rollout for appending under a shared lock. A migration may have
// replaced the file while we waited for the lock: then the new file is opened instead.
func openLocked(path string) (*os.File, error) {
	for range 5 {
		// O_APPEND: every write lands at the end even if another process (a second resume,
		// or Codex itself) appends to the same thread.
		f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
		if err != nil {
			return nil, fmt.Errorf("open rollout: %w", err)
		}
		// A file system without flock: the thread is written unlocked (a migration
		// running meanwhile could then replace it under us).
		_ = lockShared(f)
		if sameFile(f, path) {
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("open rollout %s: it keeps being replaced", path)
}

// nextOrdinal continues the file's numbering: one past the last line's ordinal when it has
// one (Codex's forks start theirs where the source's prefix ends), else the line count.
// The last line is looked for in the last 64 KiB, then in the last MiB.
func nextOrdinal(f *os.File, size, lines int64) int64 {
	for _, tail := range []int64{64 << 10, 1 << 20} {
		start := max(0, size-tail)
		buf := make([]byte, size-start)
		if _, err := f.ReadAt(buf, start); err != nil {
			return lines
		}
		buf = bytes.TrimRight(buf, "\n")
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		} else if start > 0 {
			continue // the last line is longer than the tail read
		}
		if l, ok := parseLine(buf); ok && l.Ordinal != nil && *l.Ordinal+1 > lines {
			return *l.Ordinal + 1
		}
		return lines
	}
	return lines
}

func newRecorder(opts Options) *Recorder {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	newID := opts.NewItemID
	if newID == nil {
		newID = newUUID
	}
	// Ordinal 0 is the session_meta line, written when the file is created.
	return &Recorder{now: now, items: itemWriter{newID: newID}, meta: opts.Meta, settings: opts.Settings, buf: make([]byte, 0, 4096), ordinal: 1}
}

// validPrefix returns the length of f up to its last newline, the number of lines in it,
// and the file's size.
func validPrefix(f *os.File) (prefix, lines, size int64, err error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, 0, 0, err
	}
	var n, lastNL int64
	buf := make([]byte, 64<<10)
	for {
		k, err := f.Read(buf)
		chunk := buf[:k]
		for {
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				break
			}
			lines++
			lastNL = n + int64(i) + 1
			n += int64(i) + 1
			chunk = chunk[i+1:]
		}
		n += int64(len(chunk))
		if err == io.EOF {
			return lastNL, lines, n, nil
		}
		if err != nil {
			return 0, 0, 0, err
		}
	}
}

// Path is the rollout file (it may not exist yet).
func (r *Recorder) Path() string { return r.path }

// SetSettings replaces the settings later turn_context lines report (a face that changes
// the model or policies between turns tells the recorder too).
func (r *Recorder) SetSettings(s Settings) {
	r.mu.Lock()
	r.settings = s
	r.mu.Unlock()
}

// Settings are the settings the next turn_context line will carry.
func (r *Recorder) Settings() Settings {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.settings
}

// RecordItems writes response items. Items of kinds protocol does not model are written as
// they came: the model produced them and a resume must give them back.
func (r *Recorder) RecordItems(items []protocol.ResponseItem) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	ts := FormatTimestamp(r.now())
	r.buf = r.buf[:0]
	for _, it := range items {
		// Appended in place (as protocol.Marshal writes it), into room made for its text: a
		// long answer is copied once, not encoded, compacted and copied again.
		r.buf = slices.Grow(r.buf, textSize(it)*17/16+256)
		line, err := protocol.AppendResponseItem(appendLineHead(r.buf, ts, r.ordinal, TypeResponseItem), it)
		if err != nil {
			return fmt.Errorf("encode %s item: %w", it.ItemType(), err)
		}
		r.next()
		r.buf = append(line, "}\n"...)
	}
	return r.writeBuf(false)
}

// RecordEvent writes the event if it is of a persisted kind; session_configured updates the
// settings, and a turn start is followed by the turn's turn_context line.
func (r *Recorder) RecordEvent(ev protocol.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch m := ev.Msg.(type) {
	case protocol.SessionConfiguredEvent:
		r.configured(m)
		return nil
	case *protocol.SessionConfiguredEvent:
		r.configured(*m)
		return nil
	}
	if !Persisted(ev.Msg) && !(r.paginated && toolEnd(ev.Msg)) {
		return nil
	}
	now := r.now()
	ts := FormatTimestamp(now)
	line, err := r.appendEventPayload(appendLineHead(r.buf[:0], ts, r.ordinal, TypeEventMsg), ev.Msg, now)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", ev.Msg.EventType(), err)
	}
	r.next()
	r.buf = append(line, "}\n"...)
	sync := false
	switch m := ev.Msg.(type) {
	case protocol.TurnStartedEvent:
		tc, err := protocol.Marshal(r.turnContext(m.TurnID, now))
		if err != nil {
			return fmt.Errorf("encode turn_context: %w", err)
		}
		r.buf = appendLine(r.buf, ts, r.next(), TypeTurnContext, tc)
	case protocol.TurnCompleteEvent, protocol.TurnAbortedEvent:
		sync = true // the turn's last line is on disk before anyone sees the turn end
	}
	return r.writeBuf(sync)
}

// RecordCompacted writes a compacted line: the summary message and the whole history that
// replaces the old one (agent.CompactionRecorder; the engine calls it before the history is
// replaced and before context_compacted goes out).
func (r *Recorder) RecordCompacted(message string, replacement []protocol.ResponseItem) error {
	c, err := NewCompacted(message, replacement)
	if err != nil {
		return fmt.Errorf("encode compacted: %w", err)
	}
	b, err := protocol.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode compacted: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = appendLine(r.buf[:0], FormatTimestamp(r.now()), r.next(), TypeCompacted, b)
	return r.writeBuf(true)
}

// eventPayload is the event_msg payload of msg: in the paginated form, messages, reasoning,
// finished commands and patches become item_completed thread items; everything else is
// written as it is.
func (r *Recorder) appendEventPayload(dst []byte, msg protocol.EventMsg, now time.Time) ([]byte, error) {
	if r.paginated {
		if it := r.items.item(msg); it != nil {
			ms := now.UnixMilli()
			line := func(it any) any {
				return itemCompletedLine{Type: "item_completed", ThreadID: r.meta.ID, TurnID: r.items.turnID,
					Item: it, StartedAtMs: &ms, CompletedAtMs: ms}
			}
			if am, ok := it.(agentMessageItem); ok && len(am.Content) == 1 {
				// An answer can be megabytes: encoded without encoding/json holding it.
				return appendWithText(dst, am.Content[0].Text, func(text string) any {
					am.Content = []agentMessagePart{{Type: am.Content[0].Type, Text: text}}
					return line(am)
				})
			}
			return appendMarshal(dst, line(it))
		}
	}
	switch m := msg.(type) {
	case protocol.UserMessageEvent:
		// Codex reads a user_message whose lists are null as malformed and drops it (the
		// thread then has no title for it); it writes [] itself.
		m.Images, m.LocalImages, m.TextElements = orEmpty(m.Images), orEmpty(m.LocalImages), orEmpty(m.TextElements)
		msg = m
	case protocol.AgentMessageEvent:
		return appendWithText(dst, m.Message, func(text string) any { m.Message = text; return m })
	case protocol.TurnCompleteEvent:
		if m.LastAgentMessage != nil {
			return appendWithText(dst, *m.LastAgentMessage, func(text string) any { m.LastAgentMessage = &text; return m })
		}
	}
	b, err := protocol.MarshalEventMsg(msg)
	return append(dst, b...), err
}

// appendWithText appends build(text) encoded, the long text copied once (see
// protocol.AppendWithTexts).
func appendWithText(dst []byte, text string, build func(string) any) ([]byte, error) {
	return protocol.AppendWithTexts(dst, []string{text}, func(ts []string) any { return build(ts[0]) })
}

func appendMarshal(dst []byte, v any) ([]byte, error) {
	b, err := protocol.Marshal(v)
	return append(dst, b...), err
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (r *Recorder) configured(m protocol.SessionConfiguredEvent) {
	s := &r.settings
	if m.Model != "" {
		s.Model = m.Model
	}
	if m.Cwd != "" {
		s.Cwd = m.Cwd
	}
	if m.ApprovalPolicy != nil {
		s.ApprovalPolicy = *m.ApprovalPolicy
	}
	if m.SandboxPolicy != nil {
		s.SandboxPolicy = *m.SandboxPolicy
	}
	// The effort is not taken from the event: it names the model's default when none was
	// asked for, and turn_context records the effort asked for (none: no "effort"), as
	// Codex 0.169's does; thread listings show it (null when unset).
}

func (r *Recorder) turnContext(turnID string, now time.Time) TurnContext {
	s := r.settings
	summary := s.Summary
	if summary == "" {
		summary = "none"
	}
	return TurnContext{
		TurnID:         turnID,
		Cwd:            s.Cwd,
		CurrentDate:    now.Format("2006-01-02"),
		Timezone:       s.Timezone,
		ApprovalPolicy: s.ApprovalPolicy,
		SandboxPolicy:  s.SandboxPolicy,
		Model:          s.Model,
		Effort:         s.Effort,
		Summary:        summary,
	}
}

func (r *Recorder) next() int64 {
	o := r.ordinal
	r.ordinal++
	return o
}

// writeBuf hands r.buf to the kernel in one write, creating the file with its session_meta
// first if needed, and fsyncs when asked.
func (r *Recorder) writeBuf(sync bool) error {
	if len(r.buf) == 0 {
		return nil
	}
	// A large buffer is kept for the lines that follow while they are large (an answer is
	// written three times over: the item, its item_completed and task_complete), and let go
	// of after a small line or the turn's end.
	defer r.trimBuf(sync)
	if r.closed {
		return errors.New("rollout recorder is closed")
	}
	if !r.metaDone {
		if err := r.createFile(); err != nil {
			return err
		}
	} else if _, err := r.f.Write(r.buf); err != nil {
		return fmt.Errorf("write rollout: %w", err)
	}
	r.dirty = true
	if sync {
		return r.syncLocked()
	}
	return nil
}

// textSize is the length of the text an item carries (its encoded line is about as long).
func textSize(it protocol.ResponseItem) int {
	n := 0
	switch it := it.(type) {
	case protocol.MessageItem:
		for _, c := range it.Content {
			n += len(c.Text) + len(c.ImageURL)
		}
	case protocol.FunctionCallOutputItem:
		n = len(it.Output.Content)
	case protocol.CustomToolCallOutputItem:
		n = len(it.Output.Content)
	case protocol.FunctionCallItem:
		n = len(it.Arguments)
	case protocol.CustomToolCallItem:
		n = len(it.Input)
	}
	return n
}

// keepBuf is the most line buffer the recorder keeps past a turn: one large item (a long
// answer, a big tool output) must not pin its size for the thread's lifetime.
const keepBuf = 256 << 10

// trimBuf lets a large line buffer go once the line written was small, or the turn ended.
func (r *Recorder) trimBuf(turnEnd bool) {
	if cap(r.buf) > keepBuf && (turnEnd || len(r.buf) <= keepBuf) {
		r.buf = nil
	}
}

// createFile creates the rollout with r.buf (its first lines) behind a session_meta line.
// The file appears under its name only once that first write is complete: it is written
// under a temporary name and hard-linked into place, so a crash can never leave a rollout
// without its session_meta (a stray temporary file is all it can leave, and listings skip
// it). The recorder keeps writing through the same descriptor.
func (r *Recorder) createFile() error {
	dir := filepath.Dir(r.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create sessions folder: %w", err)
	}
	meta := r.meta
	if len(meta.Source) == 0 {
		meta.Source = []byte(`"cli"`)
	}
	b, err := protocol.Marshal(meta)
	if err != nil {
		return fmt.Errorf("encode session_meta: %w", err)
	}
	// The meta line carries the time of the line that caused it, so timestamps never go
	// backwards; it takes ordinal 0, reserved for it by newRecorder.
	ts := string(r.buf[len(`{"timestamp":"`):][:len(TimestampFormat)])
	first := appendLine(make([]byte, 0, len(b)+len(r.buf)+96), ts, 0, TypeSessionMeta, b)
	first = append(first, r.buf...)
	// Compared with file times, which the file system stamps from the real clock.
	removeStaleTemps(dir, time.Now())
	f, err := os.CreateTemp(dir, ".rollout-*.tmp")
	if err != nil {
		return fmt.Errorf("create rollout: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(first); err != nil {
		f.Close()
		return fmt.Errorf("write rollout: %w", err)
	}
	if err := os.Link(tmp, r.path); err != nil {
		f.Close()
		return fmt.Errorf("create rollout: %w", err)
	}
	f.Close()
	// Later lines are appended through a descriptor of the real name, as in Append.
	if f, err = os.OpenFile(r.path, os.O_WRONLY|os.O_APPEND, 0); err != nil {
		return fmt.Errorf("open rollout: %w", err)
	}
	_ = lockShared(f) // marks the thread as being written (see lock.go)
	r.f, r.metaDone, r.dirty = f, true, true
	r.buf = r.buf[:0] // written with the meta line
	return nil
}

// staleTempAge is how old a creation's temporary file must be before another creation in
// the same folder removes it: a process killed between writing and linking leaves one.
const staleTempAge = 10 * time.Minute

func removeStaleTemps(dir string, now time.Time) {
	temps, _ := filepath.Glob(filepath.Join(dir, ".rollout-*.tmp"))
	for _, p := range temps {
		if st, err := os.Stat(p); err == nil && now.Sub(st.ModTime()) > staleTempAge {
			_ = os.Remove(p)
		}
	}
}

// Flush makes what was written durable (fsync). The engine calls it at the end of every
// turn and at shutdown.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.syncLocked()
}

func (r *Recorder) syncLocked() error {
	if r.f == nil || !r.dirty {
		return nil
	}
	if err := r.f.Sync(); err != nil {
		return fmt.Errorf("sync rollout: %w", err)
	}
	r.dirty = false
	return nil
}

// Close syncs and closes the file; later records fail.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	if r.f == nil {
		return nil
	}
	err := r.syncLocked()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	return err
}
