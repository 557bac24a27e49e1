package tui

import (
	"context"
	"io"
	"time"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/internal/host/uicommands"
	"github.com/gocodex/gocodex/protocol"
)

// UIHost is the host's side of the UI's own settings and housekeeping commands: the
// [tui] settings /statusline and /title keep in config.toml, the service tier of /fast,
// /feedback's ZIP, /logout and the background terminals of /ps and /stop. A nil function
// turns its command into a message saying it is not available here.
type UIHost struct {
	// StatusLine and TerminalTitle are tui.status_line and tui.terminal_title (nil when
	// config.toml does not set them: Codex's defaults apply).
	StatusLine          []string
	StatusLineUseColors bool
	TerminalTitle       []string
	// ServiceTier is config service_tier ("fast" is priority processing).
	ServiceTier string
	// Presets are tui.presets by slot; SavePreset writes one (an empty input removes it).
	Presets    map[string]uicommands.Preset
	SavePreset func(slot string, p uicommands.Preset) error

	SaveStatusLine    func(items []string, useColors bool) error
	SaveTerminalTitle func(items []string) error
	SaveServiceTier   func(tier string) error
	// FastTier says whether the model offers priority processing, and what it gives.
	FastTier func(model string) (string, bool)
	// SaveFeedback writes the local feedback ZIP and returns its path.
	SaveFeedback func(f FeedbackReport) (string, error)
	// Logout removes the stored credentials; removed says there were some.
	Logout func(ctx context.Context) (removed bool, warning string, err error)
	// BackgroundTerminals lists the engine's running exec sessions (nil: it keeps none).
	BackgroundTerminals func(e Engine) []BackgroundTerminal
	// McpLogin signs in to the configured MCP server name with OAuth, writing the
	// authorize address to out.
	McpLogin func(ctx context.Context, name string, out io.Writer) error
	// Hooks lists the configured lifecycle hooks (/hooks); Skills the skills (/skills).
	Hooks  func() []uicommands.Hook
	Skills func() []uicommands.Skill
	// Recap has the model summarize the thread without adding to it.
	Recap func(ctx context.Context, threadID string) (string, error)
	// WorktreeThread makes a managed worktree and starts a thread there: a fork of
	// fromThreadID, or a new one when it is "".
	WorktreeThread func(ctx context.Context, fromThreadID string) (Session, error)
	// SideThread opens /side's thread: the main thread's history, recorded nowhere.
	SideThread func(ctx context.Context, mainID string) (Session, error)
	// WatchSubagents has the host hand every sub-agent event to deliver (/agents).
	WatchSubagents func(deliver func(childID, parentID string, ev protocol.Event))
}

// FeedbackReport is what the person chose in /feedback.
type FeedbackReport struct {
	ThreadID, Classification, Note string
	IncludeLogs                    bool
	Now                            time.Time
}

// BackgroundTerminal is one process the model left running (exec_command session).
type BackgroundTerminal struct {
	ProcessID, Command, Cwd string
}

// uiState is what the settings commands keep: the host, the items picker open, and the
// status line, title and tier in force.
type uiState struct {
	host        UIHost
	items       *itemsPicker
	statusLine  []string
	colors      bool
	title       []string
	serviceTier string
	presets     map[string]uicommands.Preset
	// gitBranch is read when the UI starts and after each turn (the status line and title
	// draw it without touching the disk).
	gitBranch string
	hostname  string
	// sideMain is the main thread's id while a /side conversation is open.
	sideMain string
	// mcpVerbose marks the /mcp answer awaited as `/mcp verbose`'s.
	mcpVerbose bool
	// recapping is set while a /recap is generated.
	recapping bool
	// send delivers a message to the running program (Run sets it).
	send func(tea.Msg)
}

// setUIHost installs the host's side and the settings it read.
func (m *Model) setUIHost(h UIHost) {
	m.ui.host = h
	m.ui.statusLine = h.StatusLine
	m.ui.colors = h.StatusLineUseColors
	m.ui.title = h.TerminalTitle
	m.ui.serviceTier = h.ServiceTier
	m.ui.presets = h.Presets
	m.refreshGitBranch()
}
