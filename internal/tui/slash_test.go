package tui

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/internal/commands"
	"github.com/gocodex/gocodex/protocol"
)

// runCmd executes cmd and feeds what it returns back through Update, as the program would.
func (h *harness) runCmd(cmd tea.Cmd) {
	h.t.Helper()
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			h.runCmd(c)
		}
	case nil:
	default:
		h.runCmd(h.send(msg))
	}
}

// command types a slash command, presses Enter and runs what it started.
func (h *harness) command(text string) {
	h.t.Helper()
	h.typeText(text)
	h.runCmd(h.key(keyEnter))
}

func (h *harness) resize(w, ht int) { h.send(tea.WindowSizeMsg{Width: w, Height: ht}) }

var fixedNow = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// codexSlashCommands reads the popup recorded from Codex 0.169.
func codexSlashCommands(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "codex_slash_commands.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{"quit": "exit Codex"} // a hidden alias, shown once typed
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		name, desc, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		out[strings.TrimPrefix(name, "/")] = desc
	}
	return out
}

// Where gocodex has a command Codex has, the popup shows Codex's name and description.
func TestSlashCommandsMatchCodex(t *testing.T) {
	codex := codexSlashCommands(t)
	ours := map[string]bool{"undo": true, "commands": true, "approvals": true} // gocodex's own
	for _, c := range builtinCommands() {
		want, ok := codex[c.name]
		if !ok {
			if !ours[c.name] {
				t.Errorf("/%s is neither Codex's nor listed as gocodex's own", c.name)
			}
			continue
		}
		if c.desc != want && !ours[c.name] {
			t.Errorf("/%s: description %q, Codex says %q", c.name, c.desc, want)
		}
	}
	for _, name := range []string{"model", "permissions", "new", "resume", "fork", "init", "compact", "diff", "mention", "status", "mcp", "exit", "quit", "review", "plan"} {
		if _, ok := findBuiltin(name); !ok {
			t.Errorf("/%s is missing", name)
		}
	}
}

func TestSlashPopupFiltersAndRuns(t *testing.T) {
	h := newHarness(t, "")
	h.typeText("/")
	if got := len(h.m.popup.items); got < 10 || h.m.popup.items[0].name != "model" {
		t.Fatalf("popup after '/' has %d items starting %v", got, h.m.popup.items)
	}
	h.golden("slash_popup")
	h.typeText("st")
	if names := popupNames(h.m); strings.Join(names, ",") != "status,statusline,stop" {
		t.Errorf("'/st' offers %v, want [status statusline stop]", names)
	}
	h.key(tea.Key{Code: tea.KeyBackspace})
	h.key(tea.Key{Code: tea.KeyBackspace})
	h.typeText("qu")
	if names := popupNames(h.m); strings.Join(names, ",") != "quit" {
		t.Errorf("'/qu' offers %v, want the hidden alias quit", names)
	}
	h.key(keyEsc)
	if len(h.m.popup.items) != 0 {
		t.Error("Esc left the popup open")
	}
	h.m.input.Reset()
	h.typeText("/di")
	h.key(tea.Key{Code: tea.KeyTab})
	if got := h.m.input.Value(); got != "/diff " {
		t.Errorf("Tab completed to %q", got)
	}
	h.m.input.Reset()
	// Enter runs the selected command: /status needs no model request.
	h.typeText("/sta")
	h.runCmd(h.key(keyEnter))
	checkOps(t, h, nil)
	if !strings.Contains(h.screen(), "Collaboration mode:") {
		t.Errorf("/status did not show its card:\n%s", h.screen())
	}
}

func popupNames(m *Model) []string {
	var out []string
	for _, it := range m.popup.items {
		out = append(out, it.name)
	}
	return out
}

func TestStatusCard(t *testing.T) {
	for _, w := range []int{80, 120} {
		h := newHarness(t, "")
		h.m.header.Provider, h.m.header.Effort, h.m.header.Account = "openai", "medium", "dev@example.com (plus)"
		h.m.threadID = "0199a213-81c0-7800-8aa1-bbab2a035a53"
		h.m.agentsFiles = []string{"/work/project/AGENTS.md"}
		h.resize(w, 40)
		window := int64(272000)
		h.event(protocol.TokenCountEvent{Info: &protocol.TokenUsageInfo{ModelContextWindow: &window,
			TotalTokenUsage: protocol.TokenUsage{InputTokens: 52000, OutputTokens: 1800, TotalTokens: 53800},
			LastTokenUsage:  protocol.TokenUsage{InputTokens: 40000, OutputTokens: 900, TotalTokens: 40900}}})
		h.command("/status")
		checkOps(t, h, nil)
		h.golden("status_" + itoa(w))
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestModelPicker(t *testing.T) {
	h := newHarness(t, "")
	h.m.models = []ModelChoice{
		{Slug: "gpt-test", DisplayName: "GPT Test", Description: "the one in use", Efforts: []string{"low", "medium", "high"}, DefaultEffort: "medium"},
		{Slug: "gpt-mini", DisplayName: "GPT Mini", Description: "fast and small"},
	}
	h.command("/model")
	if h.m.picker == nil {
		t.Fatal("/model opened no picker")
	}
	h.golden("model_picker")
	h.key(tea.Key{Code: tea.KeyEnter}) // GPT Test (current) → effort picker
	h.key(tea.Key{Code: tea.KeyDown})  // medium → high
	h.key(tea.Key{Code: tea.KeyEnter})
	model, effort := "gpt-test", "high"
	checkOps(t, h, []protocol.Op{protocol.OverrideTurnContextOp{Model: &model, Effort: &effort}})
	if h.m.header.Effort != "high" || !strings.Contains(h.screen(), "Model changed to gpt-test high") {
		t.Errorf("the choice is not shown:\n%s", h.screen())
	}
	// A model without efforts is chosen at once; a digit picks a row.
	h.command("/model")
	h.key(runeKey('2'))
	mini := "gpt-mini"
	checkOps(t, h, []protocol.Op{protocol.OverrideTurnContextOp{Model: &mini}})
	// While a turn runs /model waits in the queue, and opens when the turn ends.
	h.typeText("work")
	h.key(keyEnter)
	h.eng.takeOps()
	h.event(protocol.TurnStartedEvent{TurnID: "t1"})
	h.command("/model")
	if h.m.picker != nil || len(h.m.queued) != 1 {
		t.Errorf("/model during a turn: picker %v, queued %q", h.m.picker != nil, h.m.queued)
	}
	h.event(protocol.TurnCompleteEvent{TurnID: "t1"})
	if h.m.picker == nil {
		t.Error("the queued /model did not open its picker when the turn ended")
	}
	checkOps(t, h, nil)
}

func TestPermissionsPicker(t *testing.T) {
	h := newHarness(t, "")
	h.command("/approvals")
	if h.m.picker == nil || h.m.picker.title != "Update Model Permissions" {
		t.Fatal("/approvals opened no permissions picker")
	}
	h.golden("permissions_picker")
	h.key(runeKey('3')) // Read Only
	ro := protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}
	ap := protocol.ApprovalOnRequest
	checkOps(t, h, []protocol.Op{protocol.OverrideTurnContextOp{ApprovalPolicy: &ap, SandboxPolicy: &ro}})
	if h.m.header.Sandbox != "read-only" {
		t.Errorf("sandbox shown as %q", h.m.header.Sandbox)
	}
}

func TestCompactMcpInitMentionQuit(t *testing.T) {
	h := newHarness(t, "")
	h.command("/compact")
	checkOps(t, h, []protocol.Op{protocol.CompactOp{}})
	h.event(protocol.TurnCompleteEvent{})
	h.command("/mcp")
	checkOps(t, h, []protocol.Op{protocol.ListMcpToolsOp{}})

	dir := t.TempDir()
	h.m.header.Cwd = dir
	h.command("/init")
	ops := h.eng.takeOps()
	if len(ops) != 1 || !strings.Contains(ops[0].(protocol.UserInputOp).Items[0].Text, "AGENTS.md") {
		t.Errorf("/init sent %v", ops)
	}
	h.event(protocol.TurnCompleteEvent{})
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("x"), 0o644)
	h.command("/init")
	checkOps(t, h, nil)
	if !strings.Contains(h.screen(), "AGENTS.md already exists here.") {
		t.Errorf("/init over an AGENTS.md:\n%s", h.screen())
	}

	h.command("/mention")
	if got := h.m.input.Value(); got != "@" {
		t.Errorf("/mention left %q in the composer", got)
	}
	h.m.input.Reset()
	h.command("/quit")
	checkOps(t, h, []protocol.Op{protocol.ShutdownOp{}})
	if !isQuit(h.event(protocol.ShutdownCompleteEvent{})) {
		t.Error("shutdown_complete after /quit did not end the program")
	}
}

// sessionEngines serves /new, /resume and /fork from fake engines.
type sessionEngines struct {
	opened []*fakeEngine
	calls  []string
}

func (s *sessionEngines) open(call string) (Session, error) {
	s.calls = append(s.calls, call)
	e := newFakeEngine()
	s.opened = append(s.opened, e)
	return Session{Engine: e, ThreadID: "thread-" + itoa(len(s.opened))}, nil
}

func TestNewResumeFork(t *testing.T) {
	h := newHarness(t, "")
	h.m.threadID = "thread-0"
	h.m.now = func() time.Time { return fixedNow }
	se := &sessionEngines{}
	var pumped []int
	h.m.startPump = func(_ Engine, gen int) { pumped = append(pumped, gen) }
	h.m.hooks = sessionHooks{
		NewThread: func(context.Context) (Session, error) { return se.open("new") },
		ListThreads: func(context.Context) ([]ThreadEntry, error) {
			return []ThreadEntry{
				{ID: "thread-0", Preview: "the thread in use", UpdatedAt: fixedNow.Add(-30 * time.Second)},
				{ID: "old-1", Preview: "fix the flaky test in\nthe parser", UpdatedAt: fixedNow.Add(-2 * time.Hour)},
				{ID: "old-2", Preview: "write the release notes", UpdatedAt: fixedNow.Add(-50 * time.Hour)},
			}, nil
		},
		ResumeThread: func(_ context.Context, id string) (Session, error) { return se.open("resume " + id) },
		ForkThread:   func(_ context.Context, id string) (Session, error) { return se.open("fork " + id) },
	}
	old := h.eng
	h.command("/new")
	checkOps(t, h, []protocol.Op{protocol.ShutdownOp{}}) // the old thread shuts down
	if h.m.threadID != "thread-1" || len(pumped) != 1 || pumped[0] != 1 {
		t.Fatalf("after /new: thread %q, pumps %v", h.m.threadID, pumped)
	}
	h.event(protocol.AgentMessageEvent{Message: "LATE FROM THE OLD THREAD"}) // generation 0: dropped
	if strings.Contains(h.screen(), "LATE") {
		t.Error("an event of the replaced thread was shown")
	}
	h.eng = se.opened[0]
	h.typeText("hello")
	h.key(keyEnter)
	checkOps(t, h, userInput("hello"))
	h.send(eventMsg{ev: protocol.Event{Msg: protocol.TurnCompleteEvent{}}, gen: 1})
	_ = old

	for _, w := range []int{80, 120} {
		h.resize(w, 32)
		h.command("/resume")
		if h.m.picker == nil {
			t.Fatal("/resume opened no picker")
		}
		h.golden("resume_picker_" + itoa(w))
		h.key(keyEsc)
	}
	h.command("/resume")
	h.typeText("release")
	if got := h.m.picker.shown(); len(got) != 1 || got[0].value != "old-2" {
		t.Fatalf("search 'release' shows %v", got)
	}
	h.runCmd(h.key(keyEnter))
	if h.m.threadID != "thread-2" || se.calls[1] != "resume old-2" {
		t.Fatalf("resume opened %v, thread %q", se.calls, h.m.threadID)
	}
	// The resumed thread's history arrives in session_configured.
	h.send(eventMsg{gen: 2, ev: protocol.Event{Msg: protocol.SessionConfiguredEvent{SessionID: "old-2", Model: "gpt-test",
		InitialMessages: []protocol.EventMsgJSON{
			{Msg: protocol.UserMessageEvent{Message: "write the release notes"}},
			{Msg: protocol.AgentMessageEvent{Message: "Here are the notes."}},
		}}}})
	scr := h.screen()
	if !strings.Contains(scr, "› write the release notes") || !strings.Contains(scr, "• Here are the notes.") {
		t.Errorf("resumed history not shown:\n%s", scr)
	}
	h.command("/fork")
	if se.calls[2] != "fork old-2" || h.m.threadID != "thread-3" {
		t.Errorf("fork: calls %v, thread %q", se.calls, h.m.threadID)
	}
}

func TestSessionCommandsWithoutHooks(t *testing.T) {
	h := newHarness(t, "")
	h.command("/new")
	h.command("/resume")
	h.command("/fork")
	scr := h.screen()
	for _, want := range []string{"/new: this session cannot open new threads.", "/resume: this session cannot open saved threads.", "/fork: this thread is not recorded"} {
		if !strings.Contains(scr, want) {
			t.Errorf("missing %q in:\n%s", want, scr)
		}
	}
	// A failing open is reported, and the current thread stays.
	h.m.hooks.NewThread = func(context.Context) (Session, error) { return Session{}, errors.New("disk full") }
	h.command("/new")
	if !strings.Contains(h.screen(), "/new: disk full") || h.m.engine != Engine(h.eng) {
		t.Errorf("failed /new:\n%s", h.screen())
	}
}

// A request that proposes an execpolicy amendment offers it; arrows and Enter answer too.
func TestApprovalWithExecpolicyAmendment(t *testing.T) {
	for _, w := range []int{80, 120} {
		h := newHarness(t, "")
		h.resize(w, 32)
		h.event(protocol.TurnStartedEvent{TurnID: "t1"})
		reason := "runs the test suite"
		h.event(protocol.ExecApprovalRequestEvent{CallID: "c1", TurnID: "t1", Command: []string{"bash", "-lc", "npm test"},
			Cwd: "/work/project", Reason: &reason, ProposedExecpolicyAmendment: []string{"npm", "test"}})
		h.golden("approval_amendment_" + itoa(w))
		h.key(tea.Key{Code: tea.KeyDown})
		h.key(tea.Key{Code: tea.KeyDown})
		h.key(keyEnter)
		checkOps(t, h, []protocol.Op{protocol.ExecApprovalOp{ID: "c1", TurnID: "t1", Decision: protocol.ReviewDecision{
			Kind: protocol.DecisionApprovedExecpolicyAmendment, ExecpolicyAmendment: []string{"npm", "test"}}}})
		if !strings.Contains(strings.Join(strings.Fields(h.screen()), " "), "commands that start with `npm test` from now on") {
			t.Errorf("the answer is not shown:\n%s", h.screen())
		}
	}
}

// A patch cell shows the diff, coloured.
func TestPatchCellShowsDiff(t *testing.T) {
	h := newHarness(t, "")
	h.resize(120, 24)
	changes := map[string]protocol.FileChange{"main.go": {Kind: protocol.FileUpdate, UnifiedDiff: "--- a/main.go\n+++ b/main.go\n@@ -1,2 +1,2 @@\n package main\n-var x = 1\n+var x = 2\n"}}
	h.event(protocol.PatchApplyBeginEvent{CallID: "p1", Changes: changes})
	h.event(protocol.PatchApplyEndEvent{CallID: "p1", Success: true, Changes: changes})
	h.golden("diff_120")
	h.resize(80, 24)
	h.golden("diff_80")
	if view := h.m.View().Content; !strings.Contains(view, "\x1b[") {
		t.Error("the diff is not coloured")
	}
}

// A panic while opening a thread is reported as that command's error; the UI goes on.
func TestSessionOpenPanicIsAnError(t *testing.T) {
	h := newHarness(t, "")
	h.m.hooks.ListThreads = func(context.Context) ([]ThreadEntry, error) { panic("listing exploded") }
	h.m.hooks.ResumeThread = func(context.Context, string) (Session, error) { return Session{}, nil }
	h.command("/resume")
	if !strings.Contains(h.screen(), "/resume: internal error: listing exploded") {
		t.Errorf("screen:\n%s", h.screen())
	}
}

func TestMcpListShown(t *testing.T) {
	h := newHarness(t, "")
	h.command("/mcp")
	h.event(protocol.McpListToolsResponseEvent{
		Tools:        map[string]json.RawMessage{"mcp__docs__search": json.RawMessage(`{}`), "mcp__docs__fetch": json.RawMessage(`{}`)},
		AuthStatuses: map[string]json.RawMessage{"docs": json.RawMessage(`"unsupported"`), "idle": json.RawMessage(`"unsupported"`)}})
	scr := h.screen()
	for _, want := range []string{"MCP Tools", "• docs", "• Tools: fetch, search", "• idle", "• Tools: (none)"} {
		if !strings.Contains(scr, want) {
			t.Errorf("missing %q:\n%s", want, scr)
		}
	}
	h.command("/mcp")
	h.event(protocol.McpListToolsResponseEvent{})
	if !strings.Contains(h.screen(), "No MCP servers configured.") {
		t.Errorf("no servers:\n%s", h.screen())
	}
}

// Up goes past this session's messages into history.jsonl's, fetched one at a time.
func TestComposerHistoryAcrossSessions(t *testing.T) {
	h := newHarness(t, "")
	h.event(protocol.SessionConfiguredEvent{SessionID: "s", Model: "gpt-test", HistoryLogID: 77, HistoryEntryCount: 2})
	h.typeText("this session")
	h.key(keyEnter)
	h.eng.takeOps()
	h.event(protocol.TurnCompleteEvent{})
	up := tea.Key{Code: tea.KeyUp}
	h.key(up)
	if got := h.m.input.Value(); got != "this session" {
		t.Fatalf("first Up shows %q", got)
	}
	h.key(up)
	checkOps(t, h, []protocol.Op{protocol.GetHistoryEntryRequestOp{Offset: 1, LogID: 77}})
	h.event(protocol.GetHistoryEntryResponseEvent{Offset: 1, LogID: 77, Entry: &protocol.HistoryEntry{Text: "from yesterday"}})
	if got := h.m.input.Value(); got != "from yesterday" {
		t.Fatalf("second Up shows %q", got)
	}
	h.key(up)
	checkOps(t, h, []protocol.Op{protocol.GetHistoryEntryRequestOp{Offset: 0, LogID: 77}})
	h.event(protocol.GetHistoryEntryResponseEvent{Offset: 0, LogID: 77, Entry: &protocol.HistoryEntry{Text: "from last week"}})
	h.key(tea.Key{Code: tea.KeyDown})
	if got := h.m.input.Value(); got != "from yesterday" {
		t.Errorf("Down shows %q (cached, no new request)", got)
	}
	checkOps(t, h, nil)
	h.key(tea.Key{Code: tea.KeyDown})
	h.key(tea.Key{Code: tea.KeyDown})
	if got := h.m.input.Value(); got != "" {
		t.Errorf("past the newest the composer is %q", got)
	}
}

// A large paste is a placeholder in the composer and the whole text in the request; binary
// bytes are dropped.
func TestLargePasteCollapsed(t *testing.T) {
	h := newHarness(t, "")
	big := strings.Repeat("0123456789", 200*1024) // 2 MB
	h.typeText("see ")
	h.send(tea.PasteMsg{Content: big + "\x00\x1b[31m"})
	want := "see [Pasted Content 2048004 chars]"
	if got := h.m.input.Value(); got != want {
		t.Fatalf("composer = %.80q", got)
	}
	h.send(tea.PasteMsg{Content: "small\x07 paste"})
	h.key(keyEnter)
	ops := h.eng.takeOps()
	sent := ops[0].(protocol.UserInputOp).Items[0].Text
	if sent != "see "+big+"[31msmall paste" {
		t.Errorf("sent %d chars, starting %.40q", len(sent), sent)
	}
	if !strings.Contains(h.screen(), "[Pasted Content 2048004 chars]") {
		t.Error("the transcript does not show the placeholder")
	}
}

// @ and part of a path offers matching files; Tab puts the path in place of the @word.
func TestFileMentions(t *testing.T) {
	h := newHarness(t, "")
	dir := t.TempDir()
	for _, f := range []string{"internal/parser/lexer.go", "internal/parser/parser.go", "README.md", "node_modules/x/index.js", ".git/HEAD"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("node_modules/\n"), 0o644)
	h.m.header.Cwd = dir
	files := h.m.workTreeFiles()
	h.m.header.Cwd = "/work/project" // the listing is kept; the frame stays the same across runs
	if len(files) != 4 {
		t.Errorf("files %v (.git and the ignored node_modules are skipped)", files)
	}
	h.typeText("look at @plex")
	if got := h.m.mentions.items; len(got) != 1 || got[0] != "internal/parser/lexer.go" {
		t.Fatalf("@plex offers %v", got)
	}
	h.golden("mention_popup")
	h.key(tea.Key{Code: tea.KeyTab})
	if got := h.m.input.Value(); got != "look at internal/parser/lexer.go " {
		t.Errorf("composer = %q", got)
	}
	h.typeText("and @")
	if got := h.m.mentions.items; len(got) != 4 {
		t.Errorf("a bare @ offers %v", got)
	}
	h.key(keyEsc)
	if len(h.m.mentions.items) != 0 {
		t.Error("Esc left the list open")
	}
	h.m.input.Reset()
	h.command("/mention")
	if len(h.m.mentions.items) == 0 {
		t.Error("/mention did not open the file list")
	}
}

// The main states at 120 columns (their 80-column frames are in the tests above).
func TestMainStatesAt120(t *testing.T) {
	h := newHarness(t, "")
	h.resize(120, 32)
	h.typeText("say hello")
	h.key(keyEnter)
	h.event(protocol.TurnStartedEvent{TurnID: "t1"})
	h.event(protocol.AgentReasoningEvent{Text: "**Greeting** the person politely"})
	h.event(protocol.AgentMessageDeltaEvent{Delta: "Hello, wor"})
	h.golden("streaming_120")
	h.event(protocol.AgentMessageEvent{Message: "Hello, world!"})
	argv := []string{"bash", "-lc", "go test ./..."}
	h.event(protocol.ExecCommandBeginEvent{CallID: "c1", TurnID: "t1", Command: argv, Cwd: "/work/project"})
	h.event(protocol.ExecCommandOutputDeltaEvent{CallID: "c1", Chunk: []byte("ok  \tpkg/a\n")})
	h.golden("command_running_120")
	reason := "needs network"
	h.event(protocol.ExecApprovalRequestEvent{CallID: "c2", TurnID: "t1", Command: []string{"curl", "https://example.com"}, Cwd: "/work/project", Reason: &reason})
	h.golden("approval_exec_120")
}

// Options.ResumePicker opens the picker as the UI starts.
func TestStartWithResumePicker(t *testing.T) {
	h := newHarness(t, "")
	h.m.startWithPicker = true
	h.m.hooks.ListThreads = func(context.Context) ([]ThreadEntry, error) {
		return []ThreadEntry{{ID: "a", Preview: "an earlier chat"}}, nil
	}
	h.m.hooks.ResumeThread = func(context.Context, string) (Session, error) { return Session{}, errors.New("gone") }
	h.runCmd(h.m.Init())
	if h.m.picker == nil || h.m.picker.items[0].label != "an earlier chat" {
		t.Fatalf("no picker at start: %+v", h.m.picker)
	}
}

// Options.ForkPicker makes the picker at start fork the chosen thread (`gocodex fork`
// without an id), the one in use included; a /resume typed afterwards still resumes.
func TestStartWithForkPicker(t *testing.T) {
	h := newHarness(t, "")
	h.m.threadID = "thread-0"
	h.m.startWithPicker, h.m.startPickerForks = true, true
	h.m.startPump = func(Engine, int) {}
	se := &sessionEngines{}
	h.m.hooks = sessionHooks{
		ListThreads: func(context.Context) ([]ThreadEntry, error) {
			return []ThreadEntry{{ID: "old-1", Preview: "an earlier chat"}}, nil
		},
		ResumeThread: func(_ context.Context, id string) (Session, error) { return se.open("resume " + id) },
		ForkThread:   func(_ context.Context, id string) (Session, error) { return se.open("fork " + id) },
	}
	h.runCmd(h.m.Init())
	if h.m.picker == nil || h.m.picker.title != "Fork a previous session" || h.m.picker.items[0].label != "an earlier chat" {
		t.Fatalf("no fork picker at start: %+v", h.m.picker)
	}
	h.runCmd(h.key(keyEnter))
	if len(se.calls) != 1 || se.calls[0] != "fork old-1" || h.m.threadID != "thread-1" {
		t.Fatalf("the pick opened %v, thread %q", se.calls, h.m.threadID)
	}
	h.command("/resume")
	if h.m.picker == nil || h.m.picker.title != "Resume a previous session" {
		t.Fatalf("/resume after a fork picker: %+v", h.m.picker)
	}
}

// At 40 columns no line of any state is wider than the terminal.
func TestNarrowTerminal(t *testing.T) {
	for _, inline := range []bool{false, true} {
		h := newHarness(t, "")
		h.m.inline = inline
		h.m.scrollback = func(string) {}
		h.m.models = []ModelChoice{{Slug: "gpt-test", DisplayName: "GPT Test", Description: "a model with a long description that must be cut"}}
		h.resize(40, 30)
		check := func(state string) {
			t.Helper()
			for _, l := range strings.Split(h.m.View().Content, "\n") {
				if w := ansi.StringWidth(l); w > 40 {
					t.Errorf("inline=%v %s: a line of %d columns: %q", inline, state, w, ansi.Strip(l))
				}
			}
		}
		check("empty")
		h.typeText("/")
		check("popup")
		h.m.input.Reset()
		h.syncAll()
		h.command("/model")
		check("model picker")
		h.key(keyEsc)
		h.command("/status")
		check("status")
		h.typeText("go")
		h.key(keyEnter)
		h.event(protocol.TurnStartedEvent{TurnID: "t"})
		h.event(protocol.AgentMessageDeltaEvent{Delta: "## A heading that is longer than forty columns\n```go\nfunc aVeryLongFunctionName(withArguments string) {}\n```"})
		check("streaming")
		reason := "a reason that is quite long as well"
		h.event(protocol.ExecApprovalRequestEvent{CallID: "c", Command: []string{"bash", "-lc", "echo a very long command line that goes on"}, Cwd: "/work/project/deep/inside", Reason: &reason, ProposedExecpolicyAmendment: []string{"echo"}})
		check("approval")
	}
}

func (h *harness) syncAll() { h.m.syncPopup(); h.m.syncMentions() }

// /diff shows the work tree's changes, untracked files included, as a coloured diff.
func TestDiffCommand(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	git("add", ".")
	git("commit", "-qm", "init")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("two\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x\n"), 0o644)
	h := newHarness(t, "")
	h.m.header.Cwd = dir
	h.command("/diff")
	checkOps(t, h, nil)
	scr := h.screen()
	for _, want := range []string{"diff --git a/a.txt b/a.txt", "-one", "+two", "new file (untracked): new.txt"} {
		if !strings.Contains(scr, want) {
			t.Errorf("missing %q:\n%s", want, scr)
		}
	}
	if !strings.Contains(h.m.View().Content, h.m.st.added.Render("+two")) {
		t.Error("the added line is not coloured")
	}
}

// The names a project's prompt file may not take (commands.BuiltinNames) are the UI's own.
func TestBuiltinNamesMatchTheCommandsPackage(t *testing.T) {
	var names []string
	for _, c := range builtinCommands() {
		names = append(names, c.name)
	}
	if diff := cmp.Diff(commands.BuiltinNames, names); diff != "" {
		t.Errorf("commands.BuiltinNames (-want +ours):\n%s", diff)
	}
}

// A slash command nobody knows never reaches the model: Codex 0.171's answer, the line back
// in the composer; a path-like first word is a prompt, as in Codex.
func TestUnrecognizedCommandStaysOut(t *testing.T) {
	h := newHarness(t, "")
	for _, typed := range []string{"/feedbackx", "/bogus some args"} {
		h.command(typed)
		checkOps(t, h, nil)
		name, _, _ := strings.Cut(typed, " ")
		if want := "Unrecognized command '" + name + "'. Type \"/\" for a list of supported commands."; !strings.Contains(h.screen(), want) {
			t.Errorf("%s: the screen lacks %q:\n%s", typed, want, h.screen())
		}
		if got := h.m.input.Value(); got != typed {
			t.Errorf("%s: the composer holds %q, want the line back", typed, got)
		}
		h.m.input.Reset()
	}
	h.command("/usr/bin/x hello")
	checkOps(t, h, userInput("/usr/bin/x hello"))
}
