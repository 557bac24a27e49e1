package tui

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// TrustOptions are what the trust screen needs.
type TrustOptions struct {
	// Cwd is the working directory; Root the Git repository it is in, which the decision
	// is saved for.
	Cwd, Root string
	In        io.Reader
	Out       io.Writer
	Env       []string
}

// ErrTrustDeclined is returned when the person leaves the trust screen without trusting.
var ErrTrustDeclined = errors.New("the folder was not trusted: nothing was started")

// AskTrust is the first-run screen of a Git repository whose trust is undecided, as
// Codex's "Folder access": it returns nil when the person trusts the folder (the caller
// saves it) and ErrTrustDeclined when they leave. TERM=dumb asks on a plain line.
func AskTrust(ctx context.Context, o TrustOptions) error {
	t := &trustScreen{o: o, st: newStyles()}
	if isDumb(o.Env, os.Getenv) {
		return t.askPlain()
	}
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(o.In), tea.WithOutput(serialOutput(o.Out))}
	if o.Env != nil {
		opts = append(opts, tea.WithEnvironment(o.Env))
	}
	if _, err := tea.NewProgram(t, opts...).Run(); err != nil {
		return err
	}
	if !t.trusted {
		return ErrTrustDeclined
	}
	return nil
}

// trustScreen is the bubbletea model of the trust question.
type trustScreen struct {
	o        TrustOptions
	st       styles
	width    int
	sel      int
	trusted  bool
	answered bool
}

var trustChoices = []string{"Trust and continue", "Quit"}

func (t *trustScreen) Init() tea.Cmd { return nil }

func (t *trustScreen) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		t.width = msg.Width
	case tea.KeyPressMsg:
		switch msg.String() {
		case "up", "k":
			t.sel = (t.sel + len(trustChoices) - 1) % len(trustChoices)
		case "down", "j", "tab":
			t.sel = (t.sel + 1) % len(trustChoices)
		case "1", "2":
			t.sel = int(msg.String()[0] - '1')
			return t, t.answer()
		case "enter":
			return t, t.answer()
		case "esc", "ctrl+c", "q":
			t.sel = 1
			return t, t.answer()
		}
	}
	return t, nil
}

func (t *trustScreen) answer() tea.Cmd {
	t.trusted, t.answered = t.sel == 0, true
	return tea.Quit
}

func (t *trustScreen) View() tea.View {
	if t.answered {
		return tea.NewView("")
	}
	var b strings.Builder
	b.WriteString("\n  " + t.st.bold.Render("Folder access") + "\n")
	b.WriteString("  " + t.st.dim.Render(t.o.Cwd) + "\n\n")
	for _, l := range t.notice() {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString("\n")
	for i, c := range trustChoices {
		line := "  " + string(rune('1'+i)) + ". " + c
		if i == t.sel {
			line = t.st.bold.Render("› " + string(rune('1'+i)) + ". " + c)
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n  " + t.st.dim.Render("enter continue · esc quit") + "\n")
	return tea.NewView(b.String())
}

// notice is the screen's text, wrapped to the terminal.
func (t *trustScreen) notice() []string {
	width := t.width
	if width <= 0 {
		width = defaultWidth
	}
	var out []string
	if t.o.Root != "" && t.o.Root != t.o.Cwd {
		out = append(out, strings.Split(wrapWords("Note: You’re in a subdirectory of a Git project. Trusting will apply to the repository root:", width-4), "\n")...)
		out = append(out, t.st.dim.Render(t.o.Root), "")
	}
	text := "Trust this folder? gocodex can read, edit, and run files here, subject to your permission settings. " +
		"Folder settings can run code automatically, even without a model request. Continue only if you trust these files. " +
		"Your trust decision will be saved."
	return append(out, strings.Split(wrapWords(text, width-4), "\n")...)
}

// askPlain is the line-mode question (TERM=dumb).
func (t *trustScreen) askPlain() error {
	root := t.o.Root
	if root == "" {
		root = t.o.Cwd
	}
	io.WriteString(t.o.Out, "Folder access: "+root+"\nTrust this folder? gocodex can read, edit, and run files here. Your decision will be saved. [y/N] ")
	var line [64]byte
	n, _ := t.o.In.Read(line[:])
	if a := strings.ToLower(strings.TrimSpace(string(line[:n]))); a == "y" || a == "yes" {
		return nil
	}
	return ErrTrustDeclined
}

// wrapWords breaks text into lines of at most width columns at spaces.
func wrapWords(text string, width int) string {
	width = max(20, width)
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}
