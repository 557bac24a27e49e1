package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readConfigUntil waits until config.toml holds want, as written by the UI.
func (e *env) readConfigUntil(want string) string {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(filepath.Join(e.CodexHome, "config.toml"))
		if strings.Contains(string(data), want) {
			return string(data)
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("config.toml lacks %q:\n%s", want, data)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// /theme saves the chosen syntax theme as Codex 0.171 does, `[tui] theme = "NAME"`, and a
// new UI starts in it (the picker marks it current).
func TestTUITmuxThemePersists(t *testing.T) {
	e := newEnv(t)
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/theme")
	u.waitFor("Select Syntax Theme", "catppuccin-mocha (current)")
	u.pane.sendKeys(true, "dracula")
	u.waitFor("› 1. dracula")
	u.pane.sendKeys(false, "Enter")
	cfg := e.readConfigUntil(`theme = "dracula"`)
	if !strings.Contains(cfg, "[tui]") {
		t.Fatalf("the theme is not under [tui]:\n%s", cfg)
	}
	u.quit()

	again := e.startTmuxUI()
	again.waitFor("Ask gocodex to do anything")
	again.typeLine("/theme")
	again.waitFor("dracula (current)")
	again.quit()
	if n := len(e.Model.Requests()); n != 0 {
		t.Errorf("%d model requests: /theme went to the model", n)
	}
}

// The @ file list in a real terminal leaves out what .gitignore and .ignore leave out.
func TestTUITmuxMentionHonoursIgnoreFiles(t *testing.T) {
	e := newEnv(t)
	for path, body := range map[string]string{
		".gitignore":         "out/\n",
		".ignore":            "vendor_one.go\n",
		"listed_one.go":      "x",
		"out/built_one.go":   "x",
		"vendor_one.go":      "x",
		"node_modules/m.txt": "x",
	} {
		full := filepath.Join(e.Workdir, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.pane.sendKeys(true, "@one")
	scr := u.waitFor("listed_one.go")
	for _, gone := range []string{"built_one.go", "vendor_one.go"} {
		if strings.Contains(scr, gone) {
			t.Errorf("%s is offered:\n%s", gone, scr)
		}
	}
	u.pane.sendKeys(false, "C-u")
	u.pane.sendKeys(true, "@m.txt")
	u.waitFor("node_modules/m.txt") // no folder is skipped by name
	u.quit()
}

// /copy puts the last answer, or one of its code blocks, on the clipboard through OSC 52
// (read back from tmux's paste buffer with set-clipboard on); /export writes the
// conversation as Markdown into the work folder.
func TestTUITmuxCopyAndExport(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("Run this:\n\n```sh\necho COPYME\n```\n"))
	u := e.startTmuxUI()
	u.pane.tmux("set-option", "-s", "set-clipboard", "on")
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/copy")
	u.waitFor("Nothing to copy")
	u.typeLine("how do I say it")
	u.waitFor("echo COPYME")
	waitIdle(u)

	u.typeLine("/copy")
	u.waitFor("Copy to clipboard", "Whole response", "Code block 1 (sh)")
	u.pane.sendKeys(false, "Down")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("Copied Code block 1 (sh)")
	u.waitBuffer("echo COPYME")
	u.typeLine("/copy")
	u.waitFor("Copy to clipboard")
	u.pane.sendKeys(false, "Enter")
	u.waitBuffer("Run this:\n\n```sh\necho COPYME\n```\n")

	u.typeLine("/export")
	u.waitFor("Export conversation", "Save to file")
	u.pane.sendKeys(false, "Down")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("Save conversation", "File: codex-session-")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("Saved conversation to " + e.Workdir)
	u.quit()
	matches, _ := filepath.Glob(filepath.Join(e.Workdir, "codex-session-*.md"))
	if len(matches) != 1 {
		t.Fatalf("exported files: %v", matches)
	}
	data, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	want := "# Codex conversation\n\n## User\n\nhow do I say it\n\n## Assistant\n\nRun this:\n\n```sh\necho COPYME\n```\n"
	if string(data) != want {
		t.Errorf("exported:\n%q\nwant\n%q", data, want)
	}
}

// waitBuffer waits until tmux's newest paste buffer (set by OSC 52) holds want.
func (u *tmuxUI) waitBuffer(want string) {
	u.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, _ := exec.Command("tmux", "-S", u.pane.socket, "show-buffer").Output()
		if string(out) == want {
			return
		}
		if time.Now().After(deadline) {
			u.t.Fatalf("tmux buffer %q, want %q", out, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// threadRollouts lists the rollouts under CODEX_HOME/<dir> whose name holds id.
func threadRollouts(t *testing.T, home, dir, id string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(home, dir), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(d.Name(), id) {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// threadIDOnScreen is the id /status shows for the current thread.
func threadIDOnScreen(u *tmuxUI) string {
	u.t.Helper()
	u.typeLine("/status")
	scr := u.waitFor("Session:")
	for _, l := range strings.Split(scr, "\n") {
		if _, after, ok := strings.Cut(l, "Session:"); ok {
			if f := strings.Fields(strings.Trim(after, "│ ")); len(f) > 0 {
				return f[0]
			}
		}
	}
	u.t.Fatalf("no session id on screen:\n%s", scr)
	return ""
}

// /rename writes the thread's name into session_index.jsonl; /archive, once confirmed,
// moves the rollout to archived_sessions and goes on in a new thread.
func TestTUITmuxRenameAndArchive(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("ANSWERONE"))
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("first question")
	u.waitFor("ANSWERONE")
	waitIdle(u)
	id := threadIDOnScreen(u)
	u.typeLine("/rename release checklist")
	u.waitFor("Thread renamed to release checklist")
	index, err := os.ReadFile(filepath.Join(e.CodexHome, "session_index.jsonl"))
	if err != nil || !strings.Contains(string(index), `"id":"`+id+`","thread_name":"release checklist"`) {
		t.Fatalf("session_index.jsonl (%v):\n%s", err, index)
	}
	u.typeLine("/rename")
	u.waitFor("Rename thread", "Name:")
	u.pane.sendKeys(true, "second name")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("Thread renamed to second name")

	u.typeLine("/archive")
	u.waitFor("Archive this session?", "No, don't archive")
	u.pane.sendKeys(false, "Enter") // No: nothing happens
	if got := threadRollouts(t, e.CodexHome, "archived_sessions", id); len(got) != 0 {
		t.Fatalf("archived after No: %v", got)
	}
	u.typeLine("/archive")
	u.waitFor("Archive this session?")
	u.pane.sendKeys(true, "2")
	u.waitFor("Archived session "+id, "Started a new session")
	u.quit()
	if got := threadRollouts(t, e.CodexHome, "archived_sessions", id); len(got) != 1 {
		t.Errorf("archived rollouts of %s: %v", id, got)
	}
	if got := threadRollouts(t, e.CodexHome, "sessions", id); len(got) != 0 {
		t.Errorf("still under sessions: %v", got)
	}
}

// /delete, once confirmed, removes the rollout and the thread's name; /pwd shows the work
// folder; /clear clears the terminal (its scrollback too) and starts a new thread.
func TestTUITmuxDeleteClearPwd(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("DOOMEDANSWER"), answer("SECONDANSWER"))
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/pwd")
	u.waitFor("Current working directory: " + e.Workdir)
	u.typeLine("doomed question")
	u.waitFor("DOOMEDANSWER")
	waitIdle(u)
	id := threadIDOnScreen(u)
	u.typeLine("/rename doomed")
	u.waitFor("Thread renamed to doomed")
	u.typeLine("/delete")
	u.waitFor("Delete this session?")
	u.pane.sendKeys(true, "2")
	u.waitFor("Deleted session "+id, "Started a new session")
	if got := threadRollouts(t, e.CodexHome, "", id); len(got) != 0 {
		t.Errorf("rollouts left: %v", got)
	}
	if index, _ := os.ReadFile(filepath.Join(e.CodexHome, "session_index.jsonl")); strings.Contains(string(index), id) {
		t.Errorf("the name stays in session_index.jsonl:\n%s", index)
	}

	u.typeLine("second question")
	u.waitFor("SECONDANSWER")
	waitIdle(u)
	u.typeLine("/clear")
	u.waitFor("Started a new session")
	deadline := time.Now().Add(10 * time.Second)
	for strings.Contains(u.screen(), "SECONDANSWER") {
		if time.Now().After(deadline) {
			t.Fatalf("/clear left the conversation on screen:\n%s", u.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	u.quit()
}

// /raw shows the next answers' Markdown as written; /tui saves the next launch's mode as
// `[tui] fullscreen_transcript`; /warnings gathers the session's warnings.
func TestTUITmuxRawTuiWarnings(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("**RENDEREDBOLD** plain"), answer("**RAWBOLD** plain"))
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/warnings")
	u.waitFor("Warnings", "No warnings")
	u.typeLine("first")
	scr := u.waitFor("RENDEREDBOLD plain")
	if strings.Contains(scr, "**RENDEREDBOLD**") {
		t.Fatalf("Markdown not rendered:\n%s", scr)
	}
	waitIdle(u)
	u.typeLine("/raw")
	u.waitFor("Raw output mode on")
	u.typeLine("second")
	u.waitFor("**RAWBOLD** plain")
	waitIdle(u)
	u.typeLine("/raw")
	u.waitFor("Raw output mode off: rich transcript rendering restored.")

	u.typeLine("/tui")
	u.waitFor("TUI mode for next launch", "Scrollback (current)")
	u.pane.sendKeys(true, "2")
	u.waitFor("Saved TUI mode: Fullscreen. Restart gocodex to apply")
	e.readConfigUntil("fullscreen_transcript = true")
	u.quit()

	// The next launch draws on the alternate screen: tmux says so.
	again := e.startTmuxUI()
	again.waitFor("Ask gocodex to do anything")
	if got := strings.TrimSpace(again.pane.tmux("display-message", "-p", "#{alternate_on}")); got != "1" {
		t.Errorf("alternate_on = %q after choosing Fullscreen", got)
	}
	again.quit()
}

// /vim: Normal mode in the footer, letters move and edit, i types, Enter sends.
func TestTUITmuxVimMode(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("VIMANSWER"))
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/vim")
	u.waitFor("Vim mode enabled.", "Vim: Normal")
	u.pane.sendKeys(true, "ihello wrld")
	u.waitFor("Vim: Insert", "hello wrld")
	u.pane.sendKeys(false, "Escape")
	u.waitFor("Vim: Normal")
	u.pane.sendKeys(true, "hhhio")
	u.waitFor("hello world", "Vim: Insert")
	u.pane.sendKeys(false, "Escape")
	u.waitFor("Vim: Normal")
	u.pane.sendKeys(true, "qqq") // typed in Normal mode: nothing
	u.pane.sendKeys(false, "Enter")
	u.waitFor("VIMANSWER")
	u.quit()
	reqs := e.Model.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "hello world") || strings.Contains(string(reqs[0].Body), "qqq") {
		t.Fatalf("the model got %d requests; the message was not \"hello world\":\n%s", len(reqs), u.screen())
	}
}

// /cd goes on in another folder: /pwd and the next request's environment say so; a folder
// that does not exist is refused.
func TestTUITmuxCd(t *testing.T) {
	e := newEnv(t)
	sub := filepath.Join(e.Workdir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	e.Model.Enqueue(answer("BEFORECD"), answer("AFTERCD"))
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("before")
	u.waitFor("BEFORECD")
	waitIdle(u)
	u.typeLine("/cd nowhere")
	u.waitFor("/cd: no such directory: " + filepath.Join(e.Workdir, "nowhere"))
	u.typeLine("/cd sub")
	u.waitFor("Working directory changed to: " + sub)
	u.typeLine("/pwd")
	u.waitFor("Current working directory: " + sub)
	u.typeLine("after")
	u.waitFor("AFTERCD")
	u.quit()
	reqs := e.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	body := string(reqs[1].Body)
	if !strings.Contains(body, "<cwd>"+sub+"</cwd>") || !strings.Contains(body, "BEFORECD") {
		i := strings.LastIndex(body, "<cwd>")
		t.Errorf("the request after /cd lacks the new folder or the earlier conversation:\n%s", body[max(0, i-200):min(len(body), i+400)])
	}
}

// /config lists the preferences; its Theme row opens the theme picker, whose choice is saved.
func TestTUITmuxConfigPanel(t *testing.T) {
	e := newEnv(t)
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/config")
	u.waitFor("Configuration", "Changes save automatically", "Theme", "TUI mode", "Vim mode")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("Select Syntax Theme")
	u.pane.sendKeys(true, "monokai")
	u.waitFor("› 1. monokai")
	u.pane.sendKeys(false, "Enter")
	e.readConfigUntil(`theme = "monokai"`)
	u.typeLine("/config")
	u.waitFor("monokai ›")
	u.pane.sendKeys(false, "Escape")
	u.waitFor("Ask gocodex to do anything")
	u.quit()
}

// /experimental switches a flag and saves it under [features] in config.toml, as Codex does.
func TestTUITmuxExperimental(t *testing.T) {
	e := newEnv(t)
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/experimental")
	u.waitFor("Experimental features", "[ ] Analytics plan history")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("[x] Analytics plan history")
	cfg := e.readConfigUntil("analytics_plan_history = true")
	if !strings.Contains(cfg, "[features]") {
		t.Fatalf("not under [features]:\n%s", cfg)
	}
	u.pane.sendKeys(false, "Escape")
	u.waitFor("Ask gocodex to do anything")
	u.quit()
}

// /keymap binds a key to an action and saves it as Codex 0.171 does,
// `[tui.keymap.global] toggle_vim_mode = "f7"`; the next launch honours it.
func TestTUITmuxKeymap(t *testing.T) {
	e := newEnv(t)
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/keymap")
	u.waitFor("Keymap", "Toggle Vim Mode", "unbound")
	u.pane.sendKeys(true, "vim")
	u.waitFor("› 1. Global  Toggle Vim Mode")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("press the new key now")
	u.pane.sendKeys(false, "F7")
	u.waitFor("Toggle Vim Mode is now f7.")
	cfg := e.readConfigUntil(`toggle_vim_mode = "f7"`)
	if !strings.Contains(cfg, "[tui.keymap.global]") {
		t.Fatalf("not under [tui.keymap.global]:\n%s", cfg)
	}
	u.quit()
	again := e.startTmuxUI()
	again.waitFor("Ask gocodex to do anything")
	again.pane.sendKeys(false, "F7")
	again.waitFor("Vim mode enabled.", "Vim: Normal")
	again.quit()
}
