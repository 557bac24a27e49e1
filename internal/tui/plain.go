package tui

import (
	"bufio"
	"context"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// The plain line mode, for TERM=dumb (a terminal that cannot move its cursor): the same
// model, driven a line at a time. Each finished cell is printed once, as plain text; an
// approval, a question or a picker is printed when it opens and answered by the next line
// (its keys: y, a, p, n, esc, a digit, or an empty line for Enter). Nothing is redrawn.

// plainWidth is the width cells are wrapped to when the terminal does not say.
const plainWidth = 80

// isDumb reports whether env (or, when nil, the process's) names a dumb terminal.
func isDumb(env []string, getenv func(string) string) bool {
	term := getenv("TERM")
	if env != nil {
		term = ""
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "TERM="); ok {
				term = v
			}
		}
	}
	return term == "dumb"
}

func runPlain(ctx context.Context, o Options, m *Model) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := o.Out
	m.inline = true
	m.input.Blur() // no cursor to blink
	m.scrollback = func(s string) { io.WriteString(out, ansi.Strip(s)+"\n") }

	msgs := make(chan tea.Msg)
	send := func(msg tea.Msg) {
		select {
		case msgs <- msg:
		case <-ctx.Done():
		}
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	m.startPump = func(e Engine, gen int) {
		wg.Add(1)
		go func() { // ends with its thread or ctx
			defer wg.Done()
			pump(ctx, e, gen, send)
		}()
	}
	m.startPump(o.Engine, 0)
	lines := make(chan string)
	go func() { // ends at the end of input; a blocked read is left to the process's exit
		defer close(lines)
		sc := bufio.NewScanner(o.In)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()

	// run applies a message and starts the commands it returns; their messages come back
	// through msgs, as in the full-screen program.
	var run func(msg tea.Msg)
	run = func(msg tea.Msg) {
		if _, ok := msg.(tea.QuitMsg); ok {
			m.done = true
			return
		}
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				start(c, &wg, ctx, send)
			}
			return
		}
		_, cmd := m.Update(msg)
		start(cmd, &wg, ctx, send)
	}
	run(tea.WindowSizeMsg{Width: plainWidth, Height: 24})
	start(m.Init(), &wg, ctx, send)
	shown := ""
	for !m.done {
		if p := m.plainPrompt(); p != shown {
			if p != "" {
				io.WriteString(out, p+"\n")
			}
			shown = p
		}
		select {
		case msg := <-msgs:
			run(msg)
		case line, ok := <-lines:
			if !ok { // end of input: leave as two Ctrl+C would
				lines = nil
				run(tea.KeyPressMsg(tea.Key{Code: 'c', Mod: tea.ModCtrl}))
				run(tea.KeyPressMsg(tea.Key{Code: 'c', Mod: tea.ModCtrl}))
				continue
			}
			m.plainLine(line, run)
		case <-ctx.Done():
			return nil
		}
	}
	if m.usage != nil && !m.usage.TotalTokenUsage.IsZero() {
		io.WriteString(out, usageText(m.usage.TotalTokenUsage)+"\n")
	}
	return m.err
}

// start runs cmd off the loop, its message sent back.
func start(cmd tea.Cmd, wg *sync.WaitGroup, ctx context.Context, send func(tea.Msg)) {
	if cmd == nil {
		return
	}
	wg.Add(1)
	go func() { // one command: ends when it returns
		defer wg.Done()
		if msg := cmd(); msg != nil && ctx.Err() == nil {
			send(msg)
		}
	}()
}

// plainLine turns a typed line into what the person would have pressed.
func (m *Model) plainLine(line string, run func(tea.Msg)) {
	key := func(k tea.Key) { run(tea.KeyPressMsg(k)) }
	if m.ui.items != nil {
		m.plainItemsLine(strings.TrimSpace(line), key)
		return
	}
	if len(m.approvals) > 0 || m.picker != nil || m.question != nil {
		switch t := strings.TrimSpace(line); t {
		case "":
			key(tea.Key{Code: tea.KeyEnter})
		case "esc":
			key(tea.Key{Code: tea.KeyEscape})
		default:
			if n, err := strconv.Atoi(t); err == nil && m.picker != nil {
				items := m.picker.shown()
				if n >= 1 && n <= len(items) {
					m.picker.selected = n - 1
					key(tea.Key{Code: tea.KeyEnter})
				}
				return
			}
			if m.question != nil && m.question.typing || m.picker != nil && m.picker.searchable && (t[0] < '0' || t[0] > '9') {
				for _, r := range t {
					key(tea.Key{Code: r, Text: string(r)})
				}
				key(tea.Key{Code: tea.KeyEnter})
				return
			}
			for _, r := range t {
				key(tea.Key{Code: r, Text: string(r)})
			}
		}
		return
	}
	switch strings.TrimSpace(line) {
	case "":
		return
	case "esc":
		key(tea.Key{Code: tea.KeyEscape})
		return
	}
	m.input.SetValue(line)
	m.popup.items, m.mentions.items = nil, nil // a whole line is sent as typed
	key(tea.Key{Code: tea.KeyEnter})
}

// plainPrompt is what waits for an answer, as plain text: the approval, question or picker.
func (m *Model) plainPrompt() string {
	switch {
	case m.question != nil:
		return ansi.Strip(m.questionView())
	case len(m.approvals) > 0:
		return ansi.Strip(m.approvalView(m.approvals[0])) + "\nAnswer with y, a, p, n or esc:"
	case m.ui.items != nil:
		return m.plainItemsPrompt()
	case m.picker != nil:
		p := ansi.Strip(m.pickerView())
		if m.picker.searchable {
			p += "\nType a number, words to search, or esc:"
		}
		return p
	}
	return ""
}
