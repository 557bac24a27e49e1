package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/protocol"
)

// session is one ACP session: a thread, the fold of its events, the prompt running on it.
type session struct {
	id  string
	srv *Server
	th  engineThread

	mu       sync.Mutex
	mode     string // the current preset's id, "" when the policies match none
	model    string
	effort   string // the reasoning effort, "" for the model's default
	turn     *promptTurn
	usedOnce bool // the thread's first event (session_configured) has been read

	fold   *items.Fold
	render renderer
}

// promptTurn is a session/prompt waiting for its turn to end.
type promptTurn struct {
	done      chan struct{}
	stop      string // the stopReason once done
	err       error  // the turn's error, when it failed
	started   bool   // the engine began the turn
	cancelled bool
	lastError *protocol.ErrorEvent
}

func newSession(ctx context.Context, srv *Server, th engineThread) (*session, error) {
	ss := &session{id: th.ID(), srv: srv, th: th, fold: items.NewFold(items.FoldOptions{})}
	ss.render = renderer{s: ss}
	// The thread's first event says how it is configured: its model and policies.
	ev, err := th.NextEvent(ctx)
	if err != nil {
		return nil, fmt.Errorf("start the session: %w", err)
	}
	if sc, ok := ev.Msg.(protocol.SessionConfiguredEvent); ok {
		ss.model, ss.effort = sc.Model, sc.ReasoningEffort
		if sc.ApprovalPolicy != nil && sc.SandboxPolicy != nil {
			ss.mode = modeOf(*sc.ApprovalPolicy, *sc.SandboxPolicy)
		}
	} else if e, ok := ev.Msg.(protocol.ErrorEvent); ok {
		return nil, fmt.Errorf("start the session: %s", e.Message)
	}
	return ss, nil
}

// setup is what session/new and session/load answer: the modes, models and config options.
func (ss *session) setup() sessionSetup {
	ss.mu.Lock()
	mode, model, effort := ss.mode, ss.model, ss.effort
	ss.mu.Unlock()
	modes := make([]sessionMode, len(presets))
	modeChoices := make([]configChoice, len(presets))
	for i, p := range presets {
		modes[i] = sessionMode{ID: p.id, Name: p.name, Description: p.description}
		modeChoices[i] = configChoice{Value: p.id, Name: p.name, Description: p.description}
	}
	models := ss.srv.opts.Models
	listed := false
	modelChoices := make([]configChoice, 0, len(models)+1)
	for _, m := range models {
		modelChoices = append(modelChoices, configChoice{Value: m.ModelID, Name: m.Name, Description: m.Description})
		listed = listed || m.ModelID == model
	}
	if !listed && model != "" { // the configured model, whether or not the catalog lists it
		models = append([]modelInfo{{ModelID: model, Name: model}}, models...)
		modelChoices = append([]configChoice{{Value: model, Name: model}}, modelChoices...)
	}
	setup := sessionSetup{
		Models: &modelState{CurrentModelID: model, AvailableModels: models},
		ConfigOptions: []configOption{
			{ID: "model", Name: "Model", Category: "model", Type: "select", CurrentValue: model, Options: modelChoices},
		},
	}
	if effort != "" {
		setup.ConfigOptions = append(setup.ConfigOptions, configOption{ID: "reasoning_effort", Name: "Reasoning Effort",
			Category: "thought_level", Type: "select", CurrentValue: effort, Options: effortChoices})
	}
	if mode != "" {
		setup.Modes = &modeState{CurrentModeID: mode, AvailableModes: modes}
		setup.ConfigOptions = append(setup.ConfigOptions,
			configOption{ID: "mode", Name: "Approval Preset", Category: "mode", Type: "select", CurrentValue: mode, Options: modeChoices})
	}
	return setup
}

// commands are the slash commands a prompt may start with.
var commands = []availableCommand{
	{Name: "review", Description: "Review my current changes and find issues", Input: &commandInput{Hint: "optional custom review instructions"}},
	{Name: "review-branch", Description: "Review the changes against a base branch", Input: &commandInput{Hint: "branch name"}},
	{Name: "review-commit", Description: "Review the changes of one commit", Input: &commandInput{Hint: "commit sha"}},
	{Name: "init", Description: "Create an AGENTS.md file with instructions for Codex"},
	{Name: "compact", Description: "Summarize the conversation to free up context"},
}

func (ss *session) announceCommands(ctx context.Context) {
	ss.srv.notify(ctx, ss.id, commandsUpdate{SessionUpdate: "available_commands_update", AvailableCommands: commands})
}

// pump reads the thread's events until it ends, drawing them for the client and ending the
// prompt waiting on its turn.
func (ss *session) pump(ctx context.Context) {
	for {
		ev, err := ss.th.NextEvent(ctx)
		if err != nil {
			ss.finish("", fmt.Errorf("the session ended: %w", err))
			return
		}
		ss.event(ctx, ev.Msg)
		if _, ok := ev.Msg.(protocol.ShutdownCompleteEvent); ok {
			ss.finish("", fmt.Errorf("the session ended"))
			return
		}
	}
}

func (ss *session) event(ctx context.Context, msg protocol.EventMsg) {
	for _, ch := range ss.fold.Apply(msg) {
		ss.render.change(ctx, ch)
	}
	switch m := msg.(type) {
	case protocol.TurnStartedEvent:
		ss.mu.Lock()
		if ss.turn != nil {
			ss.turn.started = true
		}
		ss.mu.Unlock()
	case protocol.ExecApprovalRequestEvent:
		ss.askExec(ctx, m)
	case protocol.ApplyPatchApprovalRequestEvent:
		ss.askPatch(ctx, m)
	case protocol.RequestUserInputEvent:
		// ACP has no question to the person; the model goes on without answers.
		_, _ = ss.th.Submit(protocol.UserInputAnswerOp{ID: m.TurnID})
	case protocol.TokenCountEvent:
		if m.Info != nil && m.Info.ModelContextWindow != nil {
			ss.srv.notify(ctx, ss.id, usageUpdate{SessionUpdate: "usage_update",
				Used: m.Info.LastTokenUsage.TotalTokens, Size: *m.Info.ModelContextWindow})
		}
	case protocol.ErrorEvent:
		ss.mu.Lock()
		if ss.turn != nil {
			e := m
			ss.turn.lastError = &e
		}
		ss.mu.Unlock()
	case protocol.TurnCompleteEvent:
		ss.turnEnded(m.Error)
	case protocol.TurnAbortedEvent:
		ss.finish("cancelled", nil)
	}
}

// turnEnded resolves the prompt: end_turn, or max_tokens when the context window ran out,
// or the turn's error.
func (ss *session) turnEnded(terr *protocol.TurnError) {
	ss.mu.Lock()
	t := ss.turn
	ss.mu.Unlock()
	if t == nil {
		return
	}
	var info json.RawMessage
	var msg string
	if terr != nil {
		info, msg = terr.CodexErrorInfo, terr.Message
	} else if t.lastError != nil {
		info, msg = t.lastError.CodexErrorInfo, t.lastError.Message
	}
	switch {
	case msg == "" && len(info) == 0:
		ss.finish("end_turn", nil)
	case strings.Contains(string(info), "context_window_exceeded"):
		ss.finish("max_tokens", nil)
	default:
		ss.finish("", &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg})
	}
}

func (ss *session) finish(stop string, err error) {
	ss.mu.Lock()
	t := ss.turn
	ss.turn = nil
	ss.mu.Unlock()
	if t == nil {
		return
	}
	if t.cancelled && err == nil {
		stop = "cancelled"
	}
	t.stop, t.err = stop, err
	close(t.done)
}

// prompt runs one turn and answers with its stopReason.
func (ss *session) prompt(ctx context.Context, blocks []contentBlock) (any, error) {
	input, command, err := promptInput(blocks)
	if err != nil {
		return nil, err
	}
	t := &promptTurn{done: make(chan struct{})}
	ss.mu.Lock()
	if ss.turn != nil {
		ss.mu.Unlock()
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "a prompt is already running in session %s", ss.id)
	}
	ss.turn = t
	ss.mu.Unlock()
	var op protocol.Op = protocol.UserInputOp{Items: input}
	if command != nil {
		op = command
	}
	if _, err := ss.th.Submit(op); err != nil {
		ss.finish("", err)
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		ss.cancel()
		<-t.done
	}
	if t.err != nil {
		return nil, jsonrpc.AsError(t.err)
	}
	return promptResult{StopReason: t.stop}, nil
}

// cancel interrupts the running turn (session/cancel); the prompt resolves "cancelled".
func (ss *session) cancel() {
	ss.mu.Lock()
	t := ss.turn
	if t != nil {
		t.cancelled = true
	}
	ss.mu.Unlock()
	if t != nil {
		_, _ = ss.th.Submit(protocol.InterruptOp{})
	}
}

func (ss *session) shutdown() {
	_, _ = ss.th.Submit(protocol.ShutdownOp{})
}

// promptInput turns the prompt's blocks into the engine's input, or a slash command's op.
func promptInput(blocks []contentBlock) ([]protocol.InputItem, protocol.Op, error) {
	if len(blocks) == 0 {
		return nil, nil, jsonrpc.InvalidParams("prompt is empty")
	}
	if blocks[0].Type == "text" && strings.HasPrefix(blocks[0].Text, "/") {
		if op, ok := slashCommand(blocks[0].Text); ok {
			return nil, op, nil
		}
	}
	var out []protocol.InputItem
	for i, b := range blocks {
		switch b.Type {
		case "text":
			out = append(out, protocol.TextInput(b.Text))
		case "image":
			if b.Data == "" && b.URI == "" {
				return nil, nil, jsonrpc.InvalidParams(fmt.Sprintf("prompt[%d]: an image needs data or uri", i))
			}
			url := b.URI
			if b.Data != "" {
				mime := b.MimeType
				if mime == "" {
					mime = "image/png"
				}
				url = "data:" + mime + ";base64," + b.Data
			}
			out = append(out, protocol.InputItem{Type: protocol.InputImage, ImageURL: url})
		case "resource_link":
			out = append(out, protocol.TextInput(fmt.Sprintf("[@%s](%s)", b.Name, b.URI)))
		case "resource":
			if b.Resource == nil {
				return nil, nil, jsonrpc.InvalidParams(fmt.Sprintf("prompt[%d]: a resource needs its resource", i))
			}
			if b.Resource.Text != "" {
				out = append(out, protocol.TextInput(fmt.Sprintf("<context ref=%q>\n%s\n</context>", b.Resource.URI, b.Resource.Text)))
			} else {
				out = append(out, protocol.TextInput(fmt.Sprintf("[@%s](%s)", filepath.Base(b.Resource.URI), b.Resource.URI)))
			}
		case "audio":
			return nil, nil, jsonrpc.InvalidParams(fmt.Sprintf("prompt[%d]: audio is not supported (promptCapabilities.audio is false)", i))
		default:
			return nil, nil, jsonrpc.InvalidParams(fmt.Sprintf("prompt[%d]: unknown content type %q", i, b.Type))
		}
	}
	return out, nil, nil
}

// slashCommand maps the advertised commands onto the engine's ops.
func slashCommand(line string) (protocol.Op, bool) {
	name, arg, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "compact":
		return protocol.CompactOp{}, true
	case "review":
		target := protocol.ReviewTarget{Type: protocol.ReviewUncommitted}
		if arg != "" {
			target = protocol.ReviewTarget{Type: protocol.ReviewCustom, Instructions: arg}
		}
		return protocol.ReviewOp{ReviewRequest: protocol.ReviewRequest{Target: target}}, true
	case "review-branch":
		if arg == "" {
			return nil, false
		}
		return protocol.ReviewOp{ReviewRequest: protocol.ReviewRequest{Target: protocol.ReviewTarget{Type: protocol.ReviewBaseBranch, Branch: arg}}}, true
	case "review-commit":
		if arg == "" {
			return nil, false
		}
		return protocol.ReviewOp{ReviewRequest: protocol.ReviewRequest{Target: protocol.ReviewTarget{Type: protocol.ReviewCommit, Sha: arg}}}, true
	case "init":
		return protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput(initPrompt)}}, true
	}
	return nil, false
}

const initPrompt = "Generate a file named AGENTS.md that serves as a contributor guide for this repository. " +
	"Look at the repository's layout, build and test commands, coding style and conventions, and write concise, " +
	"specific instructions a coding agent should follow here."

func isAbs(p string) bool { return filepath.IsAbs(p) }
