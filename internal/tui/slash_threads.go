package tui

import (
	"context"
	"strings"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// ThreadOps change the stored thread through the host's thread service (/rename, /archive,
// /delete). Each returns a warning when the operation happened but a store mirroring the
// rollout (the session index, Codex's state database) was not updated; nil turns the
// command off with a message.
type ThreadOps struct {
	Rename  func(ctx context.Context, id, name string) (warning string, err error)
	Archive func(ctx context.Context, id string) (warning string, err error)
	Delete  func(ctx context.Context, id string) (warning string, err error)
}

// threadChangedMsg brings a thread operation's outcome back to the UI goroutine; opened is
// the thread shown next when the current one went away (archived, deleted).
type threadChangedMsg struct {
	done    string // what to say when it worked
	warning string
	err     error
	verb    string
	opened  *sessionOpenedMsg
}

// threadChanged reports an operation; when the thread went away the new one is shown first.
func (m *Model) threadChanged(msg threadChangedMsg) {
	if msg.err != nil {
		m.tr.add(cell{kind: cellError, body: "/" + msg.verb + ": " + msg.err.Error()})
		m.refresh()
		return
	}
	if msg.opened != nil {
		m.sessionOpened(*msg.opened)
	}
	m.info(msg.done)
	if msg.warning != "" {
		m.tr.add(cell{kind: cellWarning, body: msg.warning})
		m.refresh()
	}
}

// renameThread is /rename: `/rename NAME` names the thread at once; alone it asks for the
// name. The name goes into session_index.jsonl, where Codex keeps thread names.
func (m *Model) renameThread(typed, args string) {
	if m.threadOps.Rename == nil || m.threadID == "" {
		m.commandError(typed, "/rename: this thread is not recorded, so it cannot be named.")
		return
	}
	if name := strings.TrimSpace(args); name != "" {
		m.pending = m.renameCmd(name)
		return
	}
	m.picker = &picker{title: "Rename thread", searchable: true, prompt: "Name: ",
		onEnter: func(m *Model, name string) tea.Cmd {
			if strings.TrimSpace(name) == "" {
				m.info("Thread name unchanged.")
				return nil
			}
			return m.renameCmd(strings.TrimSpace(name))
		}}
}

func (m *Model) renameCmd(name string) tea.Cmd {
	id, rename := m.threadID, m.threadOps.Rename
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), sessionTimeout)
		defer cancel()
		warning, err := rename(ctx, id, name)
		return threadChangedMsg{verb: "rename", done: "Thread renamed to " + name, warning: warning, err: err}
	}
}

// archiveThread is /archive and deleteThread /delete: after a confirmation the thread is
// archived (moved to archived_sessions) or deleted for good, and a new thread takes its
// place, as in Codex.
func (m *Model) archiveThread(typed, _ string) {
	m.confirmRemoval(typed, "archive", m.threadOps.Archive, "Archive this session?",
		"Are you sure? This will archive the current session",
		pickerItem{label: "No, don't archive", desc: "Return to the current session", value: "no"},
		pickerItem{label: "Yes, archive", desc: "Archive this session now", value: "yes"})
}

func (m *Model) deleteThread(typed, _ string) {
	m.confirmRemoval(typed, "delete", m.threadOps.Delete, "Delete this session?",
		"Are you sure? This permanently deletes the current session and its history",
		pickerItem{label: "No, don't delete", desc: "Return to the current session", value: "no"},
		pickerItem{label: "Yes, delete", desc: "Delete this session permanently", value: "yes"})
}

func (m *Model) confirmRemoval(typed, verb string, op func(context.Context, string) (string, error), title, subtitle string, no, yes pickerItem) {
	if op == nil || m.threadID == "" {
		m.commandError(typed, "/"+verb+": this thread is not recorded, so there is nothing to "+verb+".")
		return
	}
	if m.hooks.NewThread == nil {
		m.commandError(typed, "/"+verb+": this session cannot open a new thread to continue in.")
		return
	}
	p := &picker{title: title, subtitle: subtitle, items: []pickerItem{no, yes}}
	p.onPick = func(m *Model, it pickerItem) tea.Cmd {
		if it.value != "yes" {
			return nil
		}
		id, open := m.threadID, m.hooks.NewThread
		done := map[string]string{"archive": "Archived session ", "delete": "Deleted session "}[verb] + id
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), sessionTimeout)
			defer cancel()
			// The stored thread goes first: when that fails the UI stays on it.
			warning, err := op(ctx, id)
			if err != nil {
				return threadChangedMsg{verb: verb, err: err}
			}
			opened := openSession("new", open)().(sessionOpenedMsg)
			return threadChangedMsg{verb: verb, done: done, warning: warning, opened: &opened}
		}
	}
	m.picker = p
}
