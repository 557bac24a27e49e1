package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/commands"
	"github.com/gocodex/gocodex/protocol"
)

// Options configure Run. In and Out are the terminal; tests pass a pseudo-terminal.
type Options struct {
	Engine Engine
	Header Header
	// Prompt, when not empty, is sent as the first message; Images (-i/--image files) go
	// with it, or alone when there is no prompt, as in Codex.
	Prompt string
	Images []string
	In     io.Reader
	Out    io.Writer
	// Env is the environment the terminal capabilities are read from (TERM, COLORTERM…).
	Env []string
	// RewindFiles restores the files the thread's last n turns changed (/undo); nil means
	// the thread keeps no snapshots.
	RewindFiles func(ctx context.Context, n int) (*Undone, error)
	// Commands are the person's custom commands (prompt files), run as /name args; Notices
	// are shown when the UI opens (custom command files that could not be read).
	Commands *commands.Set
	Notices  []string
	// ThreadID is shown by /status.
	ThreadID string

	// NewThread (/new), ListThreads and ResumeThread (/resume) and ForkThread (/fork) open
	// other threads; the UI shuts the current one down and shows the new one. A resumed or
	// forked thread's history comes from its session_configured initial_messages. Nil turns
	// the command off with a message.
	NewThread    func(ctx context.Context) (Session, error)
	ListThreads  func(ctx context.Context) ([]ThreadEntry, error)
	ResumeThread func(ctx context.Context, id string) (Session, error)
	ForkThread   func(ctx context.Context, id string) (Session, error)
	// Models are what /model offers; Providers too when more than one is usable, switched
	// to with SwitchProvider.
	Models         []ModelChoice
	Providers      []ProviderChoice
	SwitchProvider func(ctx context.Context, id, provider string) (Session, error)
	// AgentsFiles are the AGENTS.md files the thread reads, shown by /status.
	AgentsFiles []string
	// ResumePicker opens the /resume picker when the UI starts (`resume` without an id, or
	// with one that was not found: a Notice can say so); Esc leaves the picker for Engine's
	// thread.
	ResumePicker bool
	// ForkPicker makes that picker fork the chosen thread (`fork` without an id, or with one
	// that was not found) instead of resuming it.
	ForkPicker bool
	// AltScreen draws the whole UI on the alternate screen (tui.alternate_screen); the
	// default is inline: finished cells go into the terminal's scrollback.
	AltScreen bool
	// UI is the host's side of /statusline, /title, /fast, /feedback, /logout, /ps, /stop.
	UI UIHost
	// Theme is the syntax theme of code blocks (`[tui] theme`, a chroma style name; empty or
	// unknown: the default); SaveTUISetting writes `[tui] key = value` into config.toml.
	Theme          string
	SaveTUISetting func(path []string, value any) error
	// Keymap are the custom global shortcuts (`[tui.keymap.global]`: action -> key).
	Keymap map[string]string
	// ThreadOps rename, archive and delete the stored thread.
	ThreadOps ThreadOps
	// Experimental are Codex's experimental flags; SaveFeature writes `[features] NAME`.
	Experimental []ExperimentalFeature
	SaveFeature  func(name string, on bool) error
}

// Run shows the UI until the person quits and the thread has shut down. The engine's
// events reach the program through a pump goroutine that Run owns and stops before it
// returns.
func Run(ctx context.Context, o Options) error {
	m := NewModel(o.Engine, o.Header, o.Prompt)
	m.images = o.Images
	m.rewindFiles = o.RewindFiles
	m.commands = o.Commands
	m.threadID = o.ThreadID
	m.hooks = sessionHooks{NewThread: o.NewThread, ListThreads: o.ListThreads, ResumeThread: o.ResumeThread, ForkThread: o.ForkThread, SwitchProvider: o.SwitchProvider}
	m.models = o.Models
	m.providers = o.Providers
	m.agentsFiles = o.AgentsFiles
	m.inline = !o.AltScreen
	m.startWithPicker = o.ResumePicker
	m.startPickerForks = o.ForkPicker
	m.liveClock = true
	m.setUIHost(o.UI)
	m.settings.save = o.SaveTUISetting
	m.threadOps = o.ThreadOps
	m.setKeymap(o.Keymap)
	m.experimental = o.Experimental
	m.settings.saveFeature = o.SaveFeature
	if knownTheme(o.Theme) {
		m.st.md.theme = o.Theme
	} else if o.Theme != "" {
		m.tr.add(cell{kind: cellWarning, body: "Unknown theme " + o.Theme + " in [tui] theme; using " + defaultTheme + "."})
	}
	for _, n := range o.Notices {
		m.tr.add(cell{kind: cellWarning, body: n})
	}
	if isDumb(o.Env, os.Getenv) {
		return runPlain(ctx, o, m)
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(o.In), tea.WithOutput(serialOutput(o.Out))}
	if o.Env != nil {
		opts = append(opts, tea.WithEnvironment(o.Env))
	}
	p := tea.NewProgram(m, opts...)
	m.print = func(s string) { p.Send(tea.Println(s)()) }
	m.ui.send = p.Send
	if w := m.ui.host.WatchSubagents; w != nil {
		w(func(childID, parentID string, ev protocol.Event) {
			p.Send(subagentMsg{childID: childID, parentID: parentID, ev: ev})
		})
	}

	// One pump per engine: a pump ends when its thread closes or ctx is cancelled, and
	// Run waits for all of them.
	var wg sync.WaitGroup
	var pumpPanic atomic.Value
	m.startPump = func(e Engine, gen int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A panic here is outside bubbletea's own recovery: end the program so the
			// terminal is restored, and report it.
			defer func() {
				if r := recover(); r != nil {
					pumpPanic.Store(fmt.Errorf("terminal UI: the event pump panicked: %v", r))
					cancel()
				}
			}()
			pump(ctx, e, gen, p.Send)
		}()
	}
	m.startPump(o.Engine, 0)
	var hungUp atomic.Bool
	stopHangup := onHangup(func() { hungUp.Store(true); cancel() })
	defer stopHangup()
	_, err := p.Run()
	cancel()
	wg.Wait()
	if perr, ok := pumpPanic.Load().(error); ok {
		return perr
	}
	// Killed by the caller's context (SIGTERM) or a hangup: a normal end. A panic is not.
	if errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, tea.ErrProgramPanic) && (parent.Err() != nil || hungUp.Load()) {
		err = nil
	}
	if err != nil {
		return err
	}
	// The alternate screen is gone with the program: leave the conversation in the
	// terminal's scrollback, as a plain transcript. (Inline, it is there already.)
	if !m.inline && len(m.tr.cells) > 0 {
		io.WriteString(o.Out, m.tr.render(m.width, m.st)+"\n\n")
	}
	if m.usage != nil && !m.usage.TotalTokenUsage.IsZero() {
		io.WriteString(o.Out, usageText(m.usage.TotalTokenUsage)+"\n")
	}
	return m.err
}

// pump moves engine events into the program until the stream ends or ctx is cancelled.
func pump(ctx context.Context, e Engine, gen int, send func(tea.Msg)) {
	for {
		ev, err := e.NextEvent(ctx)
		if err != nil {
			if ctx.Err() == nil {
				send(engineClosedMsg{err: closedReason(err), gen: gen})
			}
			return
		}
		send(eventMsg{ev: ev, gen: gen})
	}
}

// closedReason is nil for a thread that shut down normally.
func closedReason(err error) error {
	if errors.Is(err, app.ErrThreadClosed) {
		return nil
	}
	return err
}
