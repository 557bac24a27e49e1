package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/protocol"
)

// Session is a thread the UI shows: /new, /resume and /fork replace the current one.
type Session struct {
	Engine   Engine
	ThreadID string
	// Provider is the thread's model provider when it differs from the UI's (/model).
	Provider string
	// RewindFiles restores the files of the thread's last n turns (/undo); nil when the
	// thread keeps no snapshots.
	RewindFiles func(ctx context.Context, n int) (*Undone, error)
	// Cwd is the thread's folder when it differs from the UI's (/worktree).
	Cwd string
}

// Undone is what rewinding a thread's files did (/undo): the files restored, and those left
// as they are because they were edited by hand since.
type Undone struct {
	Restored  []UndoneFile
	HandEdits []string
}

// UndoneFile is one file a rewind restored; Kind is what it did (create, modify, delete).
type UndoneFile struct{ Kind, Path string }

// ThreadEntry is one past thread of the /resume picker.
type ThreadEntry struct {
	ID        string
	Preview   string // the first message the person typed
	Cwd       string
	UpdatedAt time.Time
}

// sessionTimeout bounds opening a thread (reading its rollout, starting its tools).
const sessionTimeout = 30 * time.Second

// sessionOpenedMsg brings a thread opened off the UI goroutine back to it.
type sessionOpenedMsg struct {
	s    Session
	err  error
	verb string // "new", "resume", "fork"
}

// threadsListedMsg carries the picker's entries: the /resume picker's, or with fork set
// those of the picker that forks the chosen thread (`gocodex fork` without an id).
type threadsListedMsg struct {
	threads []ThreadEntry
	err     error
	fork    bool
}

// openSession runs open in a command and reports the result as a sessionOpenedMsg.
func openSession(verb string, open func(ctx context.Context) (Session, error)) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), sessionTimeout)
		defer cancel()
		s, err := guarded(func() (Session, error) { return open(ctx) })
		return sessionOpenedMsg{s: s, err: err, verb: verb}
	}
}

// guarded runs f, turning a panic into an error: f runs in a command goroutine, where a
// panic would end the whole UI for one failed thread lookup.
func guarded[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return f()
}

// newThread is /new: a fresh thread with the same settings; the old one shuts down.
func (m *Model) newThread(typed, _ string) {
	if m.hooks.NewThread == nil {
		m.commandError(typed, "/new: this session cannot open new threads.")
		return
	}
	m.pending = openSession("new", m.hooks.NewThread)
}

// forkThread is /fork: a copy of this thread to continue in another direction.
func (m *Model) forkThread(typed, _ string) {
	if m.hooks.ForkThread == nil || m.threadID == "" {
		m.commandError(typed, "/fork: this thread is not recorded, so it cannot be forked.")
		return
	}
	id := m.threadID
	m.pending = openSession("fork", func(ctx context.Context) (Session, error) { return m.hooks.ForkThread(ctx, id) })
}

// openResumePicker is /resume: the past threads, newest first, searchable.
func (m *Model) openResumePicker(typed, _ string) {
	if m.hooks.ListThreads == nil || m.hooks.ResumeThread == nil {
		m.commandError(typed, "/resume: this session cannot open saved threads.")
		return
	}
	m.listThreads(false)
}

// openForkPicker is the picker `gocodex fork` opens without an id: the same list as
// /resume's, and the chosen thread is forked instead of continued.
func (m *Model) openForkPicker() {
	if m.hooks.ListThreads == nil || m.hooks.ForkThread == nil {
		m.tr.add(cell{kind: cellError, body: "fork: this session cannot open saved threads."})
		m.refresh()
		return
	}
	m.listThreads(true)
}

// listThreads reads the saved threads off the UI goroutine for a picker.
func (m *Model) listThreads(fork bool) {
	list := m.hooks.ListThreads
	m.pending = func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), sessionTimeout)
		defer cancel()
		threads, err := guarded(func() ([]ThreadEntry, error) { return list(ctx) })
		return threadsListedMsg{threads: threads, err: err, fork: fork}
	}
}

func (m *Model) threadsListed(msg threadsListedMsg) {
	if msg.err != nil {
		what := "/resume: "
		if msg.fork {
			what = "fork: "
		}
		m.tr.add(cell{kind: cellError, body: what + msg.err.Error()})
		m.refresh()
		return
	}
	m.picker = sessionPicker(msg.threads, m.threadID, m.now(), msg.fork)
}

// sessionPicker lists threads by their first message and age; the chosen one is resumed, or
// with fork copied into a new thread.
func sessionPicker(threads []ThreadEntry, current string, now time.Time, fork bool) *picker {
	title := "Resume a previous session"
	if fork {
		title = "Fork a previous session"
	}
	p := &picker{title: title, searchable: true, empty: "No saved sessions here yet."}
	for _, t := range threads {
		preview := strings.Join(strings.Fields(t.Preview), " ")
		if preview == "" {
			preview = "(no message)"
		}
		p.items = append(p.items, pickerItem{label: preview, desc: ago(now, t.UpdatedAt), value: t.ID, current: t.ID == current})
	}
	p.onPick = func(m *Model, it pickerItem) tea.Cmd {
		id := it.value
		if fork {
			return openSession("fork", func(ctx context.Context) (Session, error) { return m.hooks.ForkThread(ctx, id) })
		}
		if id == m.threadID {
			return nil
		}
		return openSession("resume", func(ctx context.Context) (Session, error) { return m.hooks.ResumeThread(ctx, id) })
	}
	return p
}

// ago says how long ago t was, in the largest whole unit.
func ago(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	default:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	}
}

// sessionOpened switches the UI to a thread /new, /resume or /fork opened. The old thread
// is shut down; its late events are dropped by generation.
func (m *Model) sessionOpened(msg sessionOpenedMsg) {
	if msg.err != nil {
		m.tr.add(cell{kind: cellError, body: "/" + msg.verb + ": " + msg.err.Error()})
		m.refresh()
		return
	}
	if m.engine != nil {
		m.engine.Submit(protocol.ShutdownOp{}) // best effort: the old thread may be gone already
	}
	previous := m.threadID
	m.engine = msg.s.Engine
	m.gen++
	m.threadID = msg.s.ThreadID
	m.rewindFiles = msg.s.RewindFiles
	if msg.s.Provider != "" {
		m.header.Provider = msg.s.Provider
	}
	if msg.s.Cwd != "" {
		m.header.Cwd = msg.s.Cwd
		m.refreshGitBranch()
	}
	m.running, m.approvals, m.question, m.queued, m.steers = false, nil, nil, nil, nil
	m.usage, m.planMode = nil, false
	m.clearTranscript()
	if m.startPump != nil {
		m.startPump(m.engine, m.gen)
	}
	if m.sideOpened(msg.verb, previous) {
		m.refresh()
		return
	}
	m.ui.sideMain = "" // /new, /resume, /fork leave a side conversation behind
	switch msg.verb {
	case "resume":
		m.tr.add(cell{kind: cellInfo, body: "Resumed session " + m.threadID})
	case "fork":
		m.tr.add(cell{kind: cellInfo, body: "Forked into session " + m.threadID})
	case "model":
		m.tr.add(cell{kind: cellNote, body: "Model provider changed to " + msg.s.Provider + " (continuing in session " + m.threadID + ")"})
	default:
		m.tr.add(cell{kind: cellInfo, body: "Started a new session " + m.threadID})
	}
	m.refresh()
}

// clearTranscript starts the conversation area afresh for another thread.
func (m *Model) clearTranscript() {
	m.tr = newTranscript()
	m.agents = agentsState{}
	m.vp = scroller{}
	m.flushed = 0
}

// replayHistory draws a resumed or forked thread's earlier conversation, which the engine
// hands over in session_configured: what the person typed (also kept for Up/Down recall),
// the answers, commands and patches, and the last token usage. Messages come as events
// (user_message, agent_message) in older rollouts and as completed items in the form Codex
// 0.169 writes; a message recorded both ways is shown once.
func (m *Model) replayHistory(msgs []protocol.EventMsgJSON) {
	for _, e := range msgs {
		switch ev := e.Msg.(type) {
		case protocol.UserMessageEvent:
			m.replayMessage(cellUser, ev.Message)
			m.remember(ev.Message)
		case protocol.AgentMessageEvent:
			m.replayMessage(cellAgent, ev.Message)
		case protocol.ItemCompletedEvent:
			if kind, text, ok := messageItem(ev.Item); ok {
				m.replayMessage(kind, text)
				if kind == cellUser {
					m.remember(text)
				}
			}
		case protocol.TokenCountEvent:
			if ev.Info != nil {
				m.usage = ev.Info
			}
			m.tr.apply(ev)
		default:
			m.tr.apply(ev)
		}
	}
	m.tr.closeStreams()
	for id, i := range m.tr.calls { // calls the history never finished are over now
		m.tr.cells[i].open = false
		delete(m.tr.calls, id)
	}
}

// quitCommand is /quit and /exit: the thread shuts down and the UI ends.
func (m *Model) quitCommand(_, _ string) {
	m.shuttingDown = true
	if !m.submitOp(protocol.ShutdownOp{}) {
		m.pending = m.quit()
	}
}

// commandError shows the typed command and why it could not run.
func (m *Model) commandError(typed, text string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	m.tr.add(cell{kind: cellError, body: text})
	m.refresh()
}
