package e2e

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// waitFileContains waits until the file holds every want and returns its text.
func waitFileContains(t *testing.T, path string, wants ...string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		missing := ""
		for _, w := range wants {
			if !strings.Contains(string(data), w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return string(data)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %q:\n%s", path, missing, data)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// /statusline and /title save their items in config.toml under Codex 0.171's keys; the
// status line and the terminal title (tmux's pane title) show them, and a new UI reads them
// back.
func TestTUITmuxStatusLineAndTitleSaved(t *testing.T) {
	e := newEnv(t)
	config := filepath.Join(e.CodexHome, "config.toml")
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/statusline")
	u.waitFor("Configure Status Line", "[x] Use theme colors", "[x] model-with-reasoning", "[ ] model ", "space toggle · ←/→ reorder · enter save · esc cancel")
	for range 4 {
		u.pane.sendKeys(false, "Down")
	}
	u.pane.sendKeys(false, "Space") // model on
	u.pane.sendKeys(false, "Left")  // moved above thread-name
	u.waitFor("› [x] model ")
	u.pane.sendKeys(false, "Enter")
	waitFileContains(t, config, "[tui]", `status_line = ["model-with-reasoning", "current-dir", "model", "thread-name"]`, "status_line_use_colors = true")

	u.typeLine("/title")
	u.waitFor("Configure Terminal Title", "[x] activity", "[x] project-name", "[ ] app-name")
	for range 3 {
		u.pane.sendKeys(false, "Down")
	}
	u.pane.sendKeys(false, "Space") // app-name on
	u.pane.sendKeys(false, "Enter")
	waitFileContains(t, config, `terminal_title = ["activity", "thread-name", "project-name", "app-name"]`)
	wantTitle := filepath.Base(e.Workdir) + " | gocodex"
	waitPaneTitle(t, u, wantTitle)
	u.quit()

	// A new UI draws the saved line: model twice (with and without the effort), no context.
	u = e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	scr := u.waitFor(" · " + e.Workdir + " · gpt-5.5")
	if strings.Contains(scr, "context left") {
		t.Errorf("the saved status line was not used:\n%s", scr)
	}
	waitPaneTitle(t, u, wantTitle)
	u.quit()
	if n := len(e.Model.Requests()); n != 0 {
		t.Errorf("%d model requests: a UI command went to the model", n)
	}
}

func waitPaneTitle(t *testing.T, u *tmuxUI, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := strings.TrimSpace(u.pane.tmux("display-message", "-p", "-t", "0", "#{pane_title}"))
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("terminal title %q, want %q", got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sleepProcesses are the processes running `sleep arg`, found in /proc.
func sleepProcesses(arg string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range dirs {
		data, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
		if len(args) == 2 && filepath.Base(args[0]) == "sleep" && args[1] == arg {
			out = append(out, d)
		}
	}
	return out
}

// /ps lists the command the model left running; /stop kills it: the sleep is gone from /proc.
func TestTUITmuxPsAndStopEndBackgroundTerminal(t *testing.T) {
	e := newEnv(t)
	arg := fmt.Sprintf("%d.%d", 3000+os.Getpid()%1000, time.Now().UnixNano()%1000)
	e.Model.Enqueue(
		tk.SSE(tk.Created(), tk.FunctionCall("call_1", "exec_command", `{"cmd":"sleep `+arg+`","yield_time_ms":200}`), tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6})),
		answer("LEFTRUNNING"),
	)
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("start a sleeper")
	u.waitFor("LEFTRUNNING")
	waitIdle(u)
	if len(sleepProcesses(arg)) == 0 {
		t.Fatalf("no background sleep %s running", arg)
	}
	u.typeLine("/ps")
	u.waitFor("Background terminals", "• sleep "+arg)
	u.typeLine("/stop")
	u.waitFor("Stopping all background terminals.")
	deadline := time.Now().Add(20 * time.Second)
	for len(sleepProcesses(arg)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("sleep %s still runs after /stop: %v", arg, sleepProcesses(arg))
		}
		time.Sleep(50 * time.Millisecond)
	}
	u.typeLine("/ps")
	u.waitFor("• No background terminals running.")
	u.quit()
}

// /fast saves service_tier = "fast" (Codex's key) and the next request asks for priority
// processing; /fast again goes back to the default tier. A model without a priority tier
// gets a message and nothing is saved.
func TestTUITmuxFastServiceTier(t *testing.T) {
	e := newEnv(t)
	config := filepath.Join(e.CodexHome, "config.toml")
	e.Model.Enqueue(answer("FASTANSWER"), answer("SLOWANSWER"))
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/fast")
	u.waitFor("Service tier set to priority", "gpt-5.5 medium fast")
	waitFileContains(t, config, `service_tier = "fast"`)
	u.typeLine("hurry")
	u.waitFor("FASTANSWER")
	waitIdle(u)
	u.typeLine("/fast")
	u.waitFor("Service tier set to default")
	waitFileContains(t, config, `service_tier = "default"`)
	u.typeLine("relax")
	u.waitFor("SLOWANSWER")
	u.quit()
	reqs := e.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if got := reqs[0].JSON["service_tier"]; got != "priority" {
		t.Errorf("service_tier after /fast = %v, want priority", got)
	}
	if got := reqs[1].JSON["service_tier"]; got != "default" {
		t.Errorf("service_tier after the second /fast = %v, want default", got)
	}

	other := newEnv(t)
	u = other.startTmuxUI("-m", "local-llama")
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/fast")
	u.waitFor("Fast mode is not available for local-llama")
	u.quit()
	if data, _ := os.ReadFile(filepath.Join(other.CodexHome, "config.toml")); strings.Contains(string(data), "service_tier") {
		t.Errorf("service_tier saved for a model without it:\n%s", data)
	}
}

// /feedback with no upload endpoint saves a ZIP under CODEX_HOME/feedback: the report with
// the kind and note, the log and the thread's rollout.
func TestTUITmuxFeedbackSavesZIP(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("FIRSTANSWER"))
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("remember PINEAPPLE")
	u.waitFor("FIRSTANSWER")
	waitIdle(u)
	u.typeLine("/feedback the answer was slow")
	u.waitFor("How was this?", "1. bug", "5. other")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("Include logs and session history?", "1. Yes")
	u.pane.sendKeys(false, "Enter")
	scr := u.waitFor("Feedback ZIP saved to ")
	u.quit()
	zips, _ := filepath.Glob(filepath.Join(e.CodexHome, "feedback", "codex-diagnostics-*.zip"))
	if len(zips) != 1 {
		t.Fatalf("feedback ZIPs: %v\n%s", zips, scr)
	}
	if !regexp.MustCompile(`codex-diagnostics-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-[0-9a-f]{8}\.zip$`).MatchString(zips[0]) {
		t.Errorf("ZIP name %s is not Codex's", zips[0])
	}
	zr, err := zip.OpenReader(zips[0])
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(data)
	}
	if r := files["report.json"]; !strings.Contains(r, `"classification":"bug"`) || !strings.Contains(r, `"reason":"the answer was slow"`) {
		t.Errorf("report.json: %s", r)
	}
	var rollout, log bool
	for name, data := range files {
		rollout = rollout || strings.Contains(name, "/rollout-") && strings.Contains(data, "remember PINEAPPLE")
		log = log || strings.HasSuffix(name, "/gocodex-tui.log")
	}
	if !rollout || !log {
		t.Errorf("the ZIP lacks the thread's rollout (%v) or the log (%v): %v", rollout, log, files["manifest.json"])
	}
}

// /logout removes auth.json and ends the UI.
func TestTUITmuxLogoutRemovesCredentials(t *testing.T) {
	e := newEnv(t)
	auth := filepath.Join(e.CodexHome, "auth.json")
	if err := os.WriteFile(auth, []byte(`{"OPENAI_API_KEY":"sk-test-logout"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/logout")
	u.waitExit()
	if _, err := os.Stat(auth); !os.IsNotExist(err) {
		t.Errorf("auth.json still there after /logout: %v", err)
	}
}

// /side opens a conversation that knows the main thread but never reaches it: the side
// message is in no rollout and not in the main thread's next request.
func TestTUITmuxSideConversationLeavesMainThread(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("MAINANSWER"), answer("SIDEANSWER"), answer("MAINAGAIN"))
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/side")
	u.waitFor("'/side' is unavailable until the current conversation has started.")
	u.typeLine("main question APPLE")
	u.waitFor("MAINANSWER")
	waitIdle(u)
	u.typeLine("/side")
	u.waitFor("Side conversation:")
	u.typeLine("side question SIDESECRET")
	u.waitFor("SIDEANSWER")
	waitIdle(u)
	u.typeLine("/side")
	u.waitFor("Back in the main conversation", "main question APPLE")
	u.typeLine("main again")
	u.waitFor("MAINAGAIN")
	u.quit()
	reqs := e.Model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	side := strings.Join(reqs[1].MessageTexts("user"), "\n")
	if !strings.Contains(side, "main question APPLE") {
		t.Errorf("the side conversation does not know the main one: %q", side)
	}
	main := strings.Join(reqs[2].MessageTexts("user"), "\n")
	if strings.Contains(main, "SIDESECRET") || !strings.Contains(main, "main question APPLE") {
		t.Errorf("the main thread's request: %q", main)
	}
	filepath.WalkDir(filepath.Join(e.CodexHome, "sessions"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), "SIDESECRET") {
				t.Errorf("the side conversation was recorded in %s", p)
			}
		}
		return nil
	})
}

// Codex commands gocodex does not offer answer with the reason; none reaches the model.
func TestTUITmuxUnsupportedCodexCommands(t *testing.T) {
	e := newEnv(t)
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	for _, c := range []string{"daemon", "rc", "ide", "import", "pets", "plugins", "approve", "memories", "goal"} {
		u.typeLine("/" + c)
		u.waitFor("/" + c + " is not supported: ")
	}
	u.quit()
	if n := len(e.Model.Requests()); n != 0 {
		t.Errorf("%d model requests: an unsupported command went to the model", n)
	}
}

// /presets save keeps a prompt in tui.presets.<slot> (Codex's keys); picking it in /presets
// sends it; /presets delete empties the slot.
func TestTUITmuxPresets(t *testing.T) {
	e := newEnv(t)
	config := filepath.Join(e.CodexHome, "config.toml")
	e.Model.Enqueue(answer("PRESETANSWER"))
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/presets")
	u.waitFor("No presets saved.")
	u.pane.sendKeys(false, "Escape")
	waitGone(t, u, "enter select · esc back") // an Esc then "/" at once would read as Alt+/
	u.typeLine("/presets save summarize the repo")
	u.waitFor("Saved preset 1.")
	waitFileContains(t, config, "[tui.presets.1]", `input = "summarize the repo"`)
	u.typeLine("/presets")
	u.waitFor("1 · summarize the repo")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("PRESETANSWER")
	waitIdle(u)
	u.typeLine("/presets delete 1")
	u.waitFor("Deleted preset 1.")
	u.quit()
	if data, _ := os.ReadFile(config); strings.Contains(string(data), "presets") {
		t.Errorf("the preset is still in config.toml:\n%s", data)
	}
	reqs := e.Model.Requests()
	if len(reqs) != 1 || !strings.Contains(strings.Join(reqs[0].MessageTexts("user"), "\n"), "summarize the repo") {
		t.Errorf("the preset did not reach the model as a message: %d requests", len(reqs))
	}
}

// waitGone waits until text is off the visible screen.
func waitGone(t *testing.T, u *tmuxUI, text string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for strings.Contains(u.pane.capture(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("%q stayed on screen:\n%s", text, u.pane.capture())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
