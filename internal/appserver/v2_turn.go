package appserver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/protocol"
)

// v2Input is one item of turn/start's input.
type v2Input struct {
	Type string `json:"type"`
	Text string `json:"text"`
	URL  string `json:"url"`
	Path string `json:"path"`
	Name string `json:"name"`
}

func engineInput(in []v2Input) ([]protocol.InputItem, error) {
	out := make([]protocol.InputItem, 0, len(in))
	for _, it := range in {
		switch it.Type {
		case "text":
			out = append(out, protocol.TextInput(it.Text))
		case "image":
			out = append(out, protocol.InputItem{Type: protocol.InputImage, ImageURL: it.URL})
		case "localImage":
			out = append(out, protocol.InputItem{Type: protocol.InputLocalImage, Path: it.Path})
		case "skill":
			// The engine adds the skill's SKILL.md after the user's message, as Codex does.
			out = append(out, protocol.InputItem{Type: protocol.InputSkill, Name: it.Name, Path: it.Path})
		case "mention":
			// App and plugin mentions are not supported by this engine: the path goes in as
			// text so nothing is lost.
			out = append(out, protocol.TextInput(it.Path))
		default:
			return nil, InvalidParams("unknown variant `" + it.Type + "`, expected one of `text`, `image`, `localImage`, `skill`, `mention`")
		}
	}
	return out, nil
}

// checkInputSize refuses a turn over protocol.MaxUserInputChars as Codex 0.169 does: -32602
// with the limit and the actual size in data.
func checkInputSize(input []protocol.InputItem) error {
	var tl *protocol.InputTooLargeError
	if err := protocol.CheckUserInputSize(input); errors.As(err, &tl) {
		data, _ := json.Marshal(inputTooLargeData{InputErrorCode: "input_too_large", MaxChars: protocol.MaxUserInputChars, ActualChars: tl.Actual})
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: tl.Error(), Data: data}
	}
	return nil
}

// TurnStart answers turn/start.
func (a *api) TurnStart(ctx context.Context, c *Conn, p TurnStartParams) (TurnStartResponse, error) {
	return a.r.turnStart(ctx, c, p)
}

// TurnSteer answers turn/steer.
func (a *api) TurnSteer(ctx context.Context, c *Conn, p TurnSteerParams) (TurnSteerResponse, error) {
	return a.r.turnSteer(ctx, c, p)
}

// TurnInterrupt answers turn/interrupt.
func (a *api) TurnInterrupt(ctx context.Context, c *Conn, p TurnInterruptParams) (TurnInterruptResponse, error) {
	_, err := a.r.turnInterrupt(ctx, c, p)
	return TurnInterruptResponse{}, err
}

func (r *threads) turnStart(ctx context.Context, c *Conn, p TurnStartParams) (TurnStartResponse, error) {
	lt, err := r.loadedOrErr(p.ThreadID)
	if err != nil {
		return TurnStartResponse{}, err
	}
	input, err := engineInput(p.Input)
	if err != nil {
		return TurnStartResponse{}, err
	}
	if err := checkInputSize(input); err != nil {
		return TurnStartResponse{}, err
	}
	sb, err := sandboxFromV2(p.SandboxPolicy)
	if err != nil {
		return TurnStartResponse{}, err
	}
	if cm := p.CollaborationMode; cm != nil {
		if err := requireExperimental(c, "turn/start.collaborationMode"); err != nil {
			return TurnStartResponse{}, err
		}
		if err := checkCollaborationMode(cm); err != nil {
			return TurnStartResponse{}, err
		}
		lt.setCollaborationMode(cm)
	}
	if p.Cwd != nil || p.ApprovalPolicy != nil || sb != nil || p.Model != nil || p.Effort != nil || p.Summary != nil || p.CollaborationMode != nil {
		lt.settingsChange(p, sb)
		op := protocol.OverrideTurnContextOp{Cwd: p.Cwd, ApprovalPolicy: p.ApprovalPolicy, SandboxPolicy: sb, Model: p.Model, Effort: p.Effort, Summary: p.Summary,
			CollaborationMode: p.CollaborationMode}
		if err := lt.th.SubmitWithID(newSubmissionID(), op); err != nil {
			return TurnStartResponse{}, internalError(err.Error())
		}
	}
	lt.warnUnknownModel()
	var schema json.RawMessage
	if len(p.OutputSchema) > 0 && string(p.OutputSchema) != "null" {
		schema = p.OutputSchema
	}
	id := newSubmissionID()
	lt.gate(id, ctx.Done())
	if err := lt.th.SubmitWithID(id, protocol.UserInputOp{Items: input, FinalOutputJSONSchema: schema}); err != nil {
		return TurnStartResponse{}, internalError(err.Error())
	}
	return TurnStartResponse{wire.V2Turn{ID: id, RootTurnID: &id, Items: []wire.V2Item{}, ItemsView: "notLoaded", Status: "inProgress"}}, nil
}

func (r *threads) turnSteer(ctx context.Context, c *Conn, p TurnSteerParams) (TurnSteerResponse, error) {
	lt, err := r.loadedOrErr(p.ThreadID)
	if err != nil {
		return TurnSteerResponse{}, err
	}
	running, ok := lt.runningTurn()
	if !ok {
		return TurnSteerResponse{}, InvalidRequest("no active turn to steer")
	}
	if p.ExpectedTurnID != running {
		return TurnSteerResponse{}, InvalidRequest("expected active turn id `" + p.ExpectedTurnID + "` but found `" + running + "`")
	}
	input, err := engineInput(p.Input)
	if err != nil {
		return TurnSteerResponse{}, err
	}
	if err := checkInputSize(input); err != nil {
		return TurnSteerResponse{}, err
	}
	if err := lt.th.SubmitWithID(newSubmissionID(), protocol.UserInputOp{Items: input}); err != nil {
		return TurnSteerResponse{}, internalError(err.Error())
	}
	return TurnSteerResponse{running}, nil
}

func (r *threads) turnInterrupt(ctx context.Context, c *Conn, p TurnInterruptParams) (empty, error) {
	lt, err := r.loadedOrErr(p.ThreadID)
	if err != nil {
		return empty{}, err
	}
	if !lt.turnActive() {
		// Codex 0.169's answer when the turn has already ended (or never was).
		return empty{}, InvalidRequest("no active turn to interrupt")
	}
	if err := lt.th.SubmitWithID(newSubmissionID(), protocol.InterruptOp{}); err != nil {
		return empty{}, internalError(err.Error())
	}
	return empty{}, nil
}
