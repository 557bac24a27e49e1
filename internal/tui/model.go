package tui

import (
	"context"
	"strings"
	"time"

	"github.com/gocodex/gocodex/third_party/bubbles/key"
	"github.com/gocodex/gocodex/third_party/bubbles/textarea"
	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/internal/commands"
	"github.com/gocodex/gocodex/protocol"
)

// Engine is what the UI needs of a thread: it submits ops and reads events, nothing more
// (*agent.Thread satisfies it).
type Engine interface {
	Submit(op protocol.Op) (string, error)
	NextEvent(ctx context.Context) (protocol.Event, error)
}

// Header is what the top of the screen says about the session.
type Header struct {
	Version  string
	Model    string
	Cwd      string
	Approval string
	Sandbox  string
	// Effort is the reasoning effort, "" for the model's default.
	Effort string
	// Provider and Account are shown by /status.
	Provider string
	Account  string
}

// eventMsg carries one engine event into the program; gen is the engine's generation
// (bumped by /new, /resume and /fork), so a replaced thread's late events are dropped.
type eventMsg struct {
	ev  protocol.Event
	gen int
}

// engineClosedMsg says the event stream ended (the thread shut down or failed).
type engineClosedMsg struct {
	err error
	gen int
}

// sessionHooks open other threads; nil fields turn the commands off.
type sessionHooks struct {
	NewThread    func(ctx context.Context) (Session, error)
	ListThreads  func(ctx context.Context) ([]ThreadEntry, error)
	ResumeThread func(ctx context.Context, id string) (Session, error)
	ForkThread   func(ctx context.Context, id string) (Session, error)
	// SwitchProvider continues thread id on another model provider (/model).
	SwitchProvider func(ctx context.Context, id, provider string) (Session, error)
}

// submitMsg sends text as the person's next message; the initial PROMPT arrives this way.
type submitMsg struct {
	text   string
	images []string // -i/--image files, attached to the first message
}

// approval is a pending exec or patch approval request.
type approval struct {
	exec  *protocol.ExecApprovalRequestEvent
	patch *protocol.ApplyPatchApprovalRequestEvent
}

// Model is the bubbletea model of the terminal UI.
type Model struct {
	engine Engine
	header Header
	prompt string
	st     styles

	width, height int
	tr            transcript
	vp            scroller
	input         textarea.Model

	running   bool
	approvals []approval
	// approvalSel is the highlighted answer of the approval modal.
	approvalSel int
	queued      []string // messages typed while a turn ran, sent when it ends
	// images are the -i/--image files of the first message; attached the images pasted
	// into the composer (images.go), sent with the next message.
	images   []string
	attached []string
	// steers were sent into the running turn and wait for the engine to take them (steer.go).
	steers []steered
	// sent are this session's messages, oldest first, for Up/Down recall; recall is the
	// index being shown (len(sent) when none).
	sent   []string
	recall int
	// histLogID and histCount locate the persistent history (session_configured);
	// histCache holds the entries fetched so far, histWaiting the one asked for (-1: none).
	histLogID   uint64
	histCount   int
	histCache   map[int]string
	histWaiting int
	usage       *protocol.TokenUsageInfo

	// question is an open request_user_input (questions.go).
	question *questionPrompt

	quitArmed    bool // a first Ctrl+C was pressed
	shuttingDown bool // shutdown was submitted; waiting for shutdown_complete
	planMode     bool // /plan turned plan mode on
	threadID     string
	// rewindFiles restores the files of the last turns (/undo); nil when there are no
	// snapshots.
	rewindFiles func(ctx context.Context, n int) (*Undone, error)
	// commands are the custom commands (/name args); nil when there are none.
	commands *commands.Set
	// err is the reason the program ended, if it was not the person's choice.
	err error

	// gen counts engine switches; startPump (set by Run) feeds a new engine's events in.
	gen       int
	startPump func(e Engine, gen int)
	hooks     sessionHooks
	models    []ModelChoice
	providers []ProviderChoice
	// agentsFiles are the AGENTS.md files the thread reads (/status).
	agentsFiles []string
	// popup is the slash-command list; picker a chooser drawn instead of the composer.
	popup  slashPopup
	picker *picker
	// pending is a command a slash command asked to run once the key is handled.
	pending tea.Cmd
	// now is the clock of the pickers' "2h ago"; tests fix it.
	now func() time.Time

	// inline is the default mode (inline.go): flushed cells are in the terminal's
	// scrollback (the header too once headerShown); scrollback, when set, receives what
	// would be printed (tests). done marks the last frame.
	inline      bool
	flushed     int
	headerShown bool
	scrollback  func(string)
	done        bool
	// print writes above the program (Run sets it); printQueue waits for the write in
	// flight (printing); quitPending ends the program once both are empty.
	print       func(string)
	printQueue  []string
	printing    bool
	quitPending bool
	// pager is the open transcript pager (Ctrl+T).
	pager *scroller
	// runStart is when the running turn started, for the status line's elapsed time;
	// liveClock (set by the programs, not by tests) ticks it every second.
	runStart  time.Time
	liveClock bool
	// startWithPicker opens the /resume picker from Init; with startPickerForks the picker
	// forks the chosen thread (`gocodex fork` without an id).
	startWithPicker  bool
	startPickerForks bool
	// pastes are the large pastes behind composer placeholders (paste.go).
	pastes map[string]string
	// mentions is the @file list; files the work tree's files, read on the first @.
	mentions mentionPopup
	files    []string
	// ui holds the settings commands' state (/statusline, /title, /fast: ui_host.go).
	ui uiState
	// agents is the thread's sub-agents and the one shown (/agents).
	agents agentsState
	// settings keeps the UI's own settings (slash_theme.go).
	settings uiSettings
	// threadOps rename, archive and delete the stored thread (slash_threads.go).
	threadOps ThreadOps
	// vim is the composer's Vim mode (slash_vim.go).
	vim vimMode
	// experimental are the flags /experimental switches.
	experimental []ExperimentalFeature
	// keys are the global shortcuts /keymap binds (slash_keymap.go).
	keys keymap
}

const (
	defaultWidth, defaultHeight = 80, 24
	inputHeight                 = 3
)

// NewModel builds the UI over engine. A non-empty prompt is sent as the first message.
func NewModel(engine Engine, h Header, prompt string) *Model {
	in := textarea.New()
	in.Placeholder = "Ask gocodex to do anything"
	in.ShowLineNumbers = false
	in.SetPromptFunc(2, func(pi textarea.PromptInfo) string {
		if pi.LineNumber == 0 {
			return "› "
		}
		return "  "
	})
	in.SetHeight(inputHeight)
	in.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("shift+enter", "ctrl+j"))
	in.Focus()
	m := &Model{
		engine: engine,
		header: h,
		st:     newStyles(),
		tr:     newTranscript(),
		input:  in,
		prompt: prompt,
		now:    time.Now,
		// no persistent entry is awaited
		histWaiting: -1,
	}
	m.resize(defaultWidth, defaultHeight)
	return m
}

// Init sends the initial prompt, if any, through Update like a typed message.
func (m *Model) Init() tea.Cmd {
	if m.startWithPicker {
		if m.startPickerForks {
			m.openForkPicker()
		} else {
			m.openResumePicker("/resume", "")
		}
		cmd := m.pending
		m.pending = nil
		return cmd
	}
	if strings.TrimSpace(m.prompt) == "" && len(m.images) == 0 {
		return nil
	}
	text, images := m.prompt, m.images
	return func() tea.Msg { return submitMsg{text: text, images: images} }
}

// Update handles keys, window sizes and engine events.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	if m.pending != nil {
		cmd = tea.Batch(cmd, m.pending)
		m.pending = nil
	}
	if _, ok := msg.(printedMsg); ok {
		m.printing = false
		cmd = tea.Batch(cmd, m.nextPrint())
	}
	cmd = tea.Batch(cmd, m.flushScrollback(), m.quitWhenWritten(), m.workingClock(msg))
	// The bottom pane changes height (composer or approval modal): the transcript takes
	// whatever is left.
	m.layout()
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return nil
	case eventMsg:
		if msg.gen != m.gen {
			return nil
		}
		return m.handleEvent(msg.ev)
	case engineClosedMsg:
		if msg.gen != m.gen {
			return nil
		}
		if !m.shuttingDown && msg.err != nil {
			m.err = msg.err
		}
		return m.quit()
	case submitMsg:
		if len(msg.images) > 0 {
			m.sendWithImages(msg.text, msg.images)
			return nil
		}
		m.remember(msg.text)
		m.submit(msg.text)
		return nil
	case tea.KeyPressMsg:
		cmd := m.handleKey(msg)
		m.syncPopup()
		m.syncMentions()
		return cmd
	case sessionOpenedMsg:
		m.sessionOpened(msg)
		return nil
	case threadsListedMsg:
		m.threadsListed(msg)
		return nil
	case uiDoneMsg:
		return msg(m)
	case threadChangedMsg:
		m.threadChanged(msg)
		return nil
	case subagentMsg:
		m.subagentEvent(msg)
		return nil
	case tea.PasteMsg:
		if len(m.approvals) == 0 && (m.question == nil || m.question.typing) {
			m.pasted(msg.Content)
		}
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	ks := k.String()
	if ks == "ctrl+c" {
		return m.ctrlC()
	}
	m.quitArmed = false
	if m.pager != nil {
		return m.pagerKey(ks)
	}
	if m.keys.capturing != nil {
		m.captureKey(ks)
		return nil
	}
	if m.picker == nil && m.boundKey(ks) {
		return nil
	}
	if m.question != nil {
		return m.answerQuestionKey(k)
	}
	if len(m.approvals) > 0 {
		m.answerApproval(ks)
		return nil
	}
	if m.picker != nil {
		return m.pickerKey(k)
	}
	if m.ui.items != nil {
		return m.itemsPickerKey(k)
	}
	if len(m.popup.items) > 0 && m.popupKey(ks) {
		return nil
	}
	if len(m.mentions.items) > 0 && m.mentionKey(ks) {
		return nil
	}
	if m.vim.on && m.vimKey(k) {
		return nil
	}
	switch ks {
	case "esc":
		if m.running {
			m.submitOp(protocol.InterruptOp{})
		}
		return nil
	case "enter":
		text := m.input.Value()
		if strings.TrimSpace(text) == "" {
			return nil
		}
		m.input.Reset()
		m.remember(text)
		if m.running && !strings.HasPrefix(text, "/") {
			m.steer(text)
			return nil
		}
		m.submit(text)
		return nil
	case "tab":
		// While a turn runs Tab queues the message for after it, as Codex's does.
		if text := m.input.Value(); m.running && strings.TrimSpace(text) != "" {
			m.input.Reset()
			m.remember(text)
			m.queued = append(m.queued, text)
			return nil
		}
	case "shift+left":
		// Codex's "edit last queued message": back into the composer.
		if n := len(m.queued); n > 0 && strings.TrimSpace(m.input.Value()) == "" {
			m.input.SetValue(m.queued[n-1])
			m.queued = m.queued[:n-1]
			return nil
		}
	case "up", "down":
		if m.recallHistory(ks == "up") {
			return nil
		}
	case "pgup":
		m.vp.pageUp()
		return nil
	case "pgdown":
		m.vp.pageDown()
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

// remember keeps text for Up/Down recall.
func (m *Model) remember(text string) {
	m.sent = append(m.sent, text)
	m.recall = m.histCount + len(m.sent)
}

// recallHistory puts an earlier (or later) message into the composer: first this
// session's, then, further up, those of earlier sessions from history.jsonl (fetched one
// at a time with get_history_entry_request, as Codex's composer does). It only acts while
// the composer is empty or still shows a recalled message, so Up and Down keep moving the
// cursor inside text being written.
func (m *Model) recallHistory(older bool) bool {
	total := m.histCount + len(m.sent)
	cur := m.input.Value()
	shown, _ := m.historyEntry(m.recall)
	browsing := m.recall < total && (cur == shown || (m.histWaiting == m.recall && cur == ""))
	if cur != "" && !browsing {
		return false
	}
	if !browsing {
		m.recall = total // a cleared composer starts again from the newest
	}
	next := m.recall + 1
	if older {
		next = m.recall - 1
	}
	if next < 0 || next > total {
		return true
	}
	m.recall = next
	m.histWaiting = -1
	if next == total {
		m.input.Reset()
		return true
	}
	text, ok := m.historyEntry(next)
	if !ok {
		m.input.Reset()
		m.histWaiting = next
		m.submitOp(protocol.GetHistoryEntryRequestOp{Offset: next, LogID: m.histLogID})
		return true
	}
	m.input.SetValue(text)
	return true
}

// historyEntry is entry i of the persistent history followed by this session's messages.
func (m *Model) historyEntry(i int) (string, bool) {
	if i >= m.histCount {
		if j := i - m.histCount; j < len(m.sent) {
			return m.sent[j], true
		}
		return "", false
	}
	text, ok := m.histCache[i]
	return text, ok
}

// historyArrived fills the composer with a fetched entry if it is still the one wanted.
func (m *Model) historyArrived(e protocol.GetHistoryEntryResponseEvent) {
	if e.LogID != m.histLogID || e.Entry == nil {
		return
	}
	if m.histCache == nil {
		m.histCache = map[int]string{}
	}
	m.histCache[e.Offset] = e.Entry.Text
	if m.histWaiting == e.Offset && m.input.Value() == "" {
		m.histWaiting = -1
		m.input.SetValue(e.Entry.Text)
	}
}

// ctrlC clears the composer or arms quitting on the first press; the second press shuts the
// thread down and the program ends when shutdown_complete arrives. A press while shutting
// down gives up waiting.
func (m *Model) ctrlC() tea.Cmd {
	switch {
	case m.shuttingDown:
		return m.quit()
	case m.quitArmed:
		m.shuttingDown = true
		if !m.submitOp(protocol.ShutdownOp{}) {
			return m.quit()
		}
		return nil
	}
	m.quitArmed = true
	if m.running {
		m.submitOp(protocol.InterruptOp{})
	}
	m.input.Reset()
	return nil
}

// submit shows the person's message and sends it, or queues it behind the running turn.
func (m *Model) submit(text string) {
	if strings.HasPrefix(text, "/") && m.slashCommand(text) || m.viewingSubagent(text) {
		return
	}
	if m.running {
		m.queued = append(m.queued, text)
		return
	}
	m.send(text, m.expandPastes(text))
}

// send shows a message and starts a turn with it (and the attached images).
func (m *Model) send(shown, full string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: shown})
	m.running = true
	m.submitOp(protocol.UserInputOp{Items: m.messageItems(shown, full)})
	if full != "" {
		m.submitOp(protocol.AddToHistoryOp{Text: full})
	}
	m.refresh()
}

// submitOp submits op; a failure (the thread is gone) is shown and reported as false.
func (m *Model) submitOp(op protocol.Op) bool {
	if _, err := m.engine.Submit(op); err != nil {
		m.tr.add(cell{kind: cellError, body: "submit " + op.OpType() + ": " + err.Error()})
		m.refresh()
		return false
	}
	return true
}

func (m *Model) handleEvent(ev protocol.Event) tea.Cmd {
	switch e := ev.Msg.(type) {
	case protocol.TurnStartedEvent:
		m.running = true
	case protocol.TurnCompleteEvent, protocol.TurnAbortedEvent:
		m.running = false
		m.refreshGitBranch() // the turn may have switched branches
		m.approvals = nil
		m.question = nil
		if _, aborted := e.(protocol.TurnAbortedEvent); aborted {
			m.steersDropped()
		}
		m.mainTranscript().apply(e)
		m.refresh()
		if len(m.queued) > 0 && !m.shuttingDown {
			next := m.queued[0]
			m.queued = m.queued[1:]
			m.submit(next)
		}
		return nil
	case protocol.TokenCountEvent:
		if e.Info != nil {
			m.usage = e.Info
		}
	case protocol.SessionConfiguredEvent:
		// The engine's own account of the session wins over what the flags asked for.
		if e.Model != "" {
			m.header.Model = e.Model
		}
		if e.Cwd != "" {
			m.header.Cwd = e.Cwd
		}
		if e.ApprovalPolicy != nil {
			m.header.Approval = e.ApprovalPolicy.String()
		}
		if e.SandboxPolicy != nil {
			m.header.Sandbox = string(e.SandboxPolicy.Mode)
		}
		if e.ReasoningEffort != "" {
			m.header.Effort = e.ReasoningEffort
		}
		if e.SessionID != "" {
			m.threadID = e.SessionID
		}
		if e.HistoryLogID != 0 || e.HistoryEntryCount > 0 {
			m.histLogID, m.histCount, m.histCache = e.HistoryLogID, e.HistoryEntryCount, nil
			m.recall = m.histCount + len(m.sent)
		}
		if len(e.InitialMessages) > 0 {
			m.replayHistory(e.InitialMessages)
			m.refresh()
		}
	case protocol.ExecApprovalRequestEvent:
		m.approvals = append(m.approvals, approval{exec: &e})
	case protocol.ApplyPatchApprovalRequestEvent:
		m.approvals = append(m.approvals, approval{patch: &e})
	case protocol.GetHistoryEntryResponseEvent:
		m.historyArrived(e)
	case protocol.UserMessageEvent:
		m.steerRecorded(e)
	case protocol.RequestUserInputEvent:
		m.questionOpened(e)
	case protocol.ShutdownCompleteEvent:
		return m.quit()
	case protocol.McpListToolsResponseEvent:
		if m.mcpVerboseAnswer(e) {
			return nil
		}
	}
	if m.mainTranscript().apply(ev.Msg) {
		m.refresh()
	}
	return nil
}

// approvalChoice is one answer the approval modal offers.
type approvalChoice struct {
	key, label string
	decision   protocol.ReviewDecision
}

// approvalChoices are the answers to a request, as Codex offers them: approve, approve for
// the session, approve with the execpolicy amendment the request proposes, deny, abort.
func approvalChoices(a approval) []approvalChoice {
	out := []approvalChoice{{"y", "Yes, proceed", protocol.ReviewDecision{Kind: protocol.DecisionApproved}}}
	if a.exec != nil {
		out = append(out, approvalChoice{"a", "Yes, and don't ask again for this command this session",
			protocol.ReviewDecision{Kind: protocol.DecisionApprovedForSession}})
		if prefix := a.exec.ProposedExecpolicyAmendment; len(prefix) > 0 {
			out = append(out, approvalChoice{"p", "Yes, and don't ask again for commands that start with `" + commandText(prefix) + "`",
				protocol.ReviewDecision{Kind: protocol.DecisionApprovedExecpolicyAmendment, ExecpolicyAmendment: prefix}})
		}
	} else {
		out = append(out, approvalChoice{"a", "Yes, and don't ask again for these files this session",
			protocol.ReviewDecision{Kind: protocol.DecisionApprovedForSession}})
	}
	return append(out,
		approvalChoice{"n", "No, and tell gocodex what to do differently", protocol.ReviewDecision{Kind: protocol.DecisionDenied}},
		approvalChoice{"esc", "Cancel the request and stop the turn", protocol.ReviewDecision{Kind: protocol.DecisionAbort}})
}

// answerApproval handles a key of the approval modal: a choice's key answers at once,
// arrows move the selection and Enter answers with it.
func (m *Model) answerApproval(ks string) {
	choices := approvalChoices(m.approvals[0])
	switch ks {
	case "up", "k":
		m.approvalSel = (m.approvalSel - 1 + len(choices)) % len(choices)
		return
	case "down", "j", "tab":
		m.approvalSel = (m.approvalSel + 1) % len(choices)
		return
	case "enter":
		m.decide(choices[min(m.approvalSel, len(choices)-1)])
		return
	}
	for _, c := range choices {
		if c.key == ks {
			m.decide(c)
			return
		}
	}
}

// decide sends the answer to the first pending request.
func (m *Model) decide(c approvalChoice) {
	a := m.approvals[0]
	m.approvals = m.approvals[1:]
	m.approvalSel = 0
	what := "apply these changes"
	if a.exec != nil {
		id := a.exec.ApprovalID
		if id == "" {
			id = a.exec.CallID
		}
		m.submitOp(protocol.ExecApprovalOp{ID: id, TurnID: a.exec.TurnID, Decision: c.decision})
		what = "run " + commandText(a.exec.Command)
	} else {
		m.submitOp(protocol.PatchApprovalOp{ID: a.patch.CallID, Decision: c.decision})
	}
	m.tr.add(cell{kind: cellNote, body: decisionText(c.decision, what)})
	m.refresh()
}

func decisionText(d protocol.ReviewDecision, what string) string {
	switch d.Kind {
	case protocol.DecisionApprovedExecpolicyAmendment:
		return "✔ You approved gocodex to " + what + " and commands that start with `" + commandText(d.ExecpolicyAmendment) + "` from now on"
	case protocol.DecisionApproved:
		return "✔ You approved gocodex to " + what + " this time"
	case protocol.DecisionApprovedForSession:
		return "✔ You approved gocodex to " + what + " every time this session"
	case protocol.DecisionDenied:
		return "✗ You did not approve gocodex to " + what
	default:
		return "✗ You canceled the request to " + what
	}
}

// resize lays the screen out for a new terminal size.
func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	m.input.SetWidth(max(10, w-2)) // inside the composer's border
	m.refresh()                    // the transcript wraps to the new width
}

// refresh re-renders the transcript into the viewport, following the end of the
// conversation unless the person scrolled up.
func (m *Model) refresh() {
	if m.inline {
		return // the live area is drawn from the cells at View time
	}
	follow := m.vp.atBottom()
	m.vp.setSplit(m.tr.renderSplit(m.width, m.st))
	m.layout()
	if follow {
		m.vp.gotoBottom()
	}
}

// layout gives the transcript the lines the header, status line and bottom pane leave.
func (m *Model) layout() {
	if m.inline {
		return
	}
	h := max(1, m.height-m.chromeHeight())
	if h == m.vp.height {
		return
	}
	follow := m.vp.atBottom()
	m.vp.setHeight(h)
	if follow {
		m.vp.gotoBottom()
	}
}
