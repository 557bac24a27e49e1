package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// tmuxUI is gocodex's interactive UI in a real terminal (tmux), read with capture-pane.
type tmuxUI struct {
	t    *testing.T
	pane *tmuxPane
}

// startTmuxUI runs gocodex args in a 100×40 tmux pane, in the env's work tree and CODEX_HOME.
func (e *env) startTmuxUI(args ...string) *tmuxUI {
	e.t.Helper()
	e.trustWorkdir()
	return e.startTmuxUIUntrusted(args...)
}

// trustWorkdir records the work tree as trusted in config.toml (once), so the UI starts
// without the first-run trust screen.
func (e *env) trustWorkdir() {
	e.t.Helper()
	path := filepath.Join(e.CodexHome, "config.toml")
	data, err := os.ReadFile(path)
	if err != nil {
		e.t.Fatal(err)
	}
	entry := fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n", e.Workdir)
	if strings.Contains(string(data), entry) {
		return
	}
	if err := os.WriteFile(path, append(data, entry...), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// startTmuxUIUntrusted is startTmuxUI leaving the work tree's trust undecided.
func (e *env) startTmuxUIUntrusted(args ...string) *tmuxUI {
	e.t.Helper()
	env := append(e.environ(), "TERM=xterm-256color")
	if path := os.Getenv("PATH"); path != "" {
		env = append(env, "PATH="+path) // git, for /diff and the sandbox default
	}
	return &tmuxUI{t: e.t, pane: startTmux(e.t, env, e.Workdir, 100, 40, binary, args...)}
}

// screen is the visible screen and the scrollback above it, where inline mode puts
// finished cells.
func (u *tmuxUI) screen() string { return u.pane.tmux("capture-pane", "-p", "-S", "-400") }

// waitFor waits until every want is on screen and returns the screen.
func (u *tmuxUI) waitFor(wants ...string) string {
	u.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		scr := u.screen()
		missing := ""
		for _, w := range wants {
			if !strings.Contains(scr, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return scr
		}
		if time.Now().After(deadline) {
			u.t.Fatalf("%q did not appear; screen:\n%s", missing, scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// typeLine types text and presses Enter.
func (u *tmuxUI) typeLine(text string) {
	u.pane.sendKeys(true, text)
	u.pane.sendKeys(false, "Enter")
}

// quit presses Ctrl+C twice and waits for the program to end.
func (u *tmuxUI) quit() {
	u.t.Helper()
	u.pane.sendKeys(false, "C-c")
	u.waitFor("Press Ctrl+C again to quit")
	u.pane.sendKeys(false, "C-c")
	u.waitExit()
}

// waitExit waits until the pane's process has ended.
func (u *tmuxUI) waitExit() {
	u.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for processAlive(u.pane.pid) {
		if time.Now().After(deadline) {
			u.t.Fatalf("gocodex did not exit; screen:\n%s", u.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func processAlive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// A zombie (state Z) has exited.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// /status and /diff are answered by the UI itself: the model server records no request.
func TestTUITmuxStatusAndDiffWithoutModel(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.Workdir, "fresh.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u := e.startTmuxUI("-a", "on-request", "-s", "workspace-write")
	u.waitFor("Ask gocodex to do anything")
	u.pane.sendKeys(true, "/")
	u.waitFor("/model", "choose what model and reasoning effort to use", "/permissions")
	u.pane.sendKeys(true, "stat")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("Permissions:", "Ask for approval (on-request, workspace-write)", "Collaboration mode:  Default", "Token usage:")
	u.typeLine("/diff")
	u.waitFor("new file (untracked): fresh.txt")
	u.quit()
	if n := len(e.Model.Requests()); n != 0 {
		t.Errorf("%d model requests: a UI command went to the model", n)
	}
}

// A turn with a command that asks for approval, approved in the modal; then an interrupt.
func TestTUITmuxApprovalAndInterrupt(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(
		commandCall("call_1", "touch approved-marker"),
		answer("MARKERMADE"),
		tk.Stall(3, tk.Created(), tk.AssistantMessageStream("msg_1", "HALFWAYTHERE", " and more")),
	)
	u := e.startTmuxUI("-a", "untrusted", "-s", "workspace-write")
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("make the marker")
	u.waitFor("Would you like to run the following command?", "$ touch approved-marker", "in "+e.Workdir, "Yes, proceed (y)")
	u.pane.sendKeys(true, "y")
	u.waitFor("You approved gocodex to run touch approved-marker this time", "MARKERMADE")
	if _, err := os.Stat(filepath.Join(e.Workdir, "approved-marker")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	u.typeLine("keep going")
	u.waitFor("HALFWAYTHERE", "esc to interrupt")
	u.pane.sendKeys(false, "Escape")
	u.waitFor("Conversation interrupted")
	u.quit()
}

// /compact summarizes the thread through the model; the UI says so.
func TestTUITmuxCompact(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("FIRSTANSWER"), answer("SUMMARY-OF-THE-THREAD"))
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("first question")
	u.waitFor("FIRSTANSWER")
	waitIdle(u)
	u.typeLine("/compact")
	u.waitFor("Context compacted")
	u.quit()
	reqs := e.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want the turn and the compaction", len(reqs))
	}
}

// waitIdle waits for the turn to end (the working indicator gone from the status line).
func waitIdle(u *tmuxUI) {
	u.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for strings.Contains(u.pane.capture(), "esc to interrupt)") {
		if time.Now().After(deadline) {
			u.t.Fatal("the turn did not end")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// /resume lists the directory's past threads by their first message; picking one shows its
// history, and the next message continues it.
func TestTUITmuxResumeRestoresHistory(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("FIRSTSESSIONANSWER"), answer("SECONDSESSIONANSWER"), answer("CONTINUEDANSWER"))
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("remember the word PLUM")
	u.waitFor("FIRSTSESSIONANSWER")
	waitIdle(u)
	u.typeLine("/new")
	u.waitFor("Started a new session")
	u.typeLine("an unrelated question")
	u.waitFor("SECONDSESSIONANSWER")
	waitIdle(u)
	u.quit()

	u = e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/resume")
	u.waitFor("Resume a previous session", "remember the word PLUM", "an unrelated question")
	u.pane.sendKeys(true, "plum")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("Resumed session", "› remember the word PLUM", "FIRSTSESSIONANSWER")
	u.typeLine("what was the word?")
	u.waitFor("CONTINUEDANSWER")
	u.quit()
	reqs := e.Model.Requests()
	last := strings.Join(reqs[len(reqs)-1].MessageTexts("user"), "\n")
	if !strings.Contains(last, "remember the word PLUM") || strings.Contains(last, "an unrelated question") {
		t.Errorf("the resumed turn's request lacks the thread's history (or has another's): %q", last)
	}
}

// SIGTERM, SIGHUP or a kill of the UI leave the terminal usable: raw mode off, cursor shown,
// alternate screen left.
func TestTUITmuxTerminalRestoredOnSignals(t *testing.T) {
	for _, sig := range []string{"TERM", "HUP"} {
		t.Run(sig, func(t *testing.T) {
			e := newEnv(t)
			e.trustWorkdir()
			// A shell runs the UI, then reports the terminal's state once it has ended.
			state := filepath.Join(t.TempDir(), "stty.txt")
			script := "'" + binary + "' -c 'tui.alternate_screen=\"always\"'; stty -a > '" + state + "'; echo SHELLBACK; sleep 30"
			env := append(e.environ(), "TERM=xterm-256color", "PATH="+os.Getenv("PATH"))
			pane := startTmux(t, env, e.Workdir, 100, 40, "/bin/sh", "-c", script)
			u := &tmuxUI{t: t, pane: pane}
			u.waitFor("Ask gocodex to do anything")
			if got := pane.tmux("display", "-p", "#{alternate_on}"); strings.TrimSpace(got) != "1" {
				t.Fatalf("the UI is not on the alternate screen (alternate_on=%q)", got)
			}
			out, err := exec.Command("pgrep", "-P", strconv.Itoa(pane.pid), "-f", "gocodex").Output()
			if err != nil {
				t.Fatalf("find the UI's process: %v", err)
			}
			if err := exec.Command("kill", "-"+sig, strings.Fields(string(out))[0]).Run(); err != nil {
				t.Fatal(err)
			}
			u.waitFor("SHELLBACK")
			if got := strings.TrimSpace(pane.tmux("display", "-p", "#{alternate_on} #{cursor_flag}")); got != "0 1" {
				t.Errorf("after SIG%s: alternate_on cursor_flag = %q, want \"0 1\"", sig, got)
			}
			data, err := os.ReadFile(state)
			if err != nil {
				t.Fatal(err)
			}
			for _, mode := range []string{" icanon", " echo "} {
				if !strings.Contains(" "+strings.ReplaceAll(string(data), "\n", " ")+" ", mode) {
					t.Errorf("after SIG%s the terminal is still raw (no %q):\n%s", sig, mode, data)
				}
			}
		})
	}
}

// /model picks a model and an effort; the next request asks for them.
func TestTUITmuxModelPicker(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("PICKEDANSWER"))
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/model")
	u.waitFor("Select Model and Effort", "(current)")
	scr := u.pane.capture()
	// The first model that is not the current one, and its highest effort.
	var pick string
	for _, line := range strings.Split(scr, "\n") {
		line = strings.Trim(line, "│ ›")
		if strings.HasPrefix(line, "1. ") && !strings.Contains(line, "(current)") {
			pick = strings.TrimSpace(strings.SplitN(strings.TrimPrefix(line, "1. "), "  ", 2)[0])
		}
	}
	if pick == "" {
		t.Skipf("the first listed model is the current one; screen:\n%s", scr)
	}
	u.pane.sendKeys(true, "1")
	u.waitFor("Select Reasoning Level for")
	u.pane.sendKeys(false, "Up") // from the default to the one above it
	u.pane.sendKeys(false, "Enter")
	scr = u.waitFor("Model changed to ")
	u.typeLine("hello")
	u.waitFor("PICKEDANSWER")
	u.quit()
	reqs := e.Model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	model, _ := reqs[0].JSON["model"].(string)
	if model == "gpt-5.5" || !strings.Contains(scr, "Model changed to "+model) {
		t.Errorf("the request asked for %q; screen:\n%s", model, scr)
	}
}

// /fork continues a copy of the thread: a new rollout that names its source, with its history.
func TestTUITmuxFork(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("BEFOREFORK"), answer("AFTERFORK"))
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("remember the word FIG")
	u.waitFor("BEFOREFORK")
	waitIdle(u)
	u.typeLine("/fork")
	u.waitFor("Forked into session", "› remember the word FIG")
	u.typeLine("and now?")
	u.waitFor("AFTERFORK")
	u.quit()
	reqs := e.Model.Requests()
	if last := strings.Join(reqs[len(reqs)-1].MessageTexts("user"), "\n"); !strings.Contains(last, "remember the word FIG") {
		t.Errorf("the fork's request lacks the history: %q", last)
	}
	forks := 0
	filepath.WalkDir(filepath.Join(e.CodexHome, "sessions"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), `"forked_from_id"`) {
				forks++
			}
		}
		return nil
	})
	if forks != 1 {
		t.Errorf("%d forked rollouts, want 1", forks)
	}
}

// A turn that runs a command and applies a patch, in a real terminal: the command's cell
// with its output and exit, the patch as a diff, the answer, and the file on disk.
func TestTUITmuxCommandAndPatchTurn(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(
		commandCall("call_1", "echo TMUXCMDOUT"),
		patchCall("call_2", "made-by-patch.txt"),
		answer("BOTHDONE"),
	)
	u := e.startTmuxUI("-a", "never", "-s", "workspace-write")
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("run and patch")
	u.waitFor("echo TMUXCMDOUT", "TMUXCMDOUT", "made-by-patch.txt", "+hello", "BOTHDONE")
	u.quit()
	data, err := os.ReadFile(filepath.Join(e.Workdir, "made-by-patch.txt"))
	if err != nil || string(data) != "hello\n" {
		t.Errorf("the patch did not write the file: %q %v", data, err)
	}
	if n := len(e.Model.Requests()); n != 3 {
		t.Errorf("%d model requests, want 3", n)
	}
}

// sgr matches one Select Graphic Rendition escape sequence and its parameters.
var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// colourSequences counts the SGR sequences in text that set a colour (30–38, 40–48,
// 90–97, 100–107); resets to the default colours (39, 49) and bold or dim do not count.
func colourSequences(text string) int {
	n := 0
	for _, m := range sgr.FindAllStringSubmatch(text, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			c, err := strconv.Atoi(p)
			if err == nil && ((c >= 30 && c <= 38) || (c >= 40 && c <= 48) || (c >= 90 && c <= 97) || (c >= 100 && c <= 107)) {
				n++
				break
			}
		}
	}
	return n
}

// NO_COLOR=1 draws the same UI without colours; without it the same screen has some.
func TestTUITmuxNoColor(t *testing.T) {
	colours := func(extra ...string) int {
		e := newEnv(t)
		e.ExtraEnv = append(e.ExtraEnv, extra...)
		e.Model.Enqueue(answer("COLOURCHECK"))
		u := e.startTmuxUI("-a", "never")
		u.waitFor("Ask gocodex to do anything")
		u.typeLine("hello")
		u.waitFor("COLOURCHECK")
		screen := u.pane.tmux("capture-pane", "-p", "-e", "-S", "-400")
		u.quit()
		return colourSequences(screen)
	}
	if n := colours(); n == 0 {
		t.Fatal("the coloured UI shows no colour: the check cannot see colours")
	}
	if n := colours("NO_COLOR=1"); n != 0 {
		t.Errorf("with NO_COLOR=1 the screen still has %d colour sequences", n)
	}
}
