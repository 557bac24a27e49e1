// Package diagnostics is the `diagnostics` tool: the errors and warnings the session's
// language servers (internal/lsp) report for a file or for the whole workspace.
package diagnostics

import (
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/gocodex/gocodex/internal/lsp"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// Name is the tool's name, as the model calls it.
const Name = "diagnostics"

// Source is where the diagnostics come from: the session's lsp.Manager.
type Source interface {
	Diagnostics(ctx context.Context, call lsp.Call, path string) ([]lsp.FileDiagnostics, error)
}

// Handler is the tool.
type Handler struct {
	src Source
}

// New returns the tool over the session's language servers.
func New(src Source) *Handler { return &Handler{src: src} }

// Spec is the function the model is offered.
func (*Handler) Spec() tool.Spec {
	spec := map[string]any{
		"type": "function",
		"name": Name,
		"description": "Report the errors and warnings the language servers (gopls, typescript-language-server, pyright, rust-analyzer, clangd) " +
			"find in a file, or in the whole workspace when path is omitted. Use it to check code compiles after changing it.",
		"strict": false,
		"parameters": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"path": map[string]any{"type": "string", "description": "File to check, absolute or relative to the working directory; omit for the whole workspace."},
			},
			"additionalProperties": false,
		},
	}
	b, _ := json.Marshal(spec)
	return b
}

// Handle runs one call.
func (h *Handler) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	var args struct {
		Path string `json:"path"`
	}
	if call.Arguments != "" {
		if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
			return tool.Result{Output: "failed to parse function arguments: " + err.Error()}, nil
		}
	}
	path := args.Path
	if path != "" && !filepath.IsAbs(path) {
		path = filepath.Join(env.Cwd, path)
	}
	c := lsp.Call{Policy: env.Sandbox, Warn: func(msg string) {
		if env.Emit != nil {
			env.Emit(protocol.WarningEvent{Message: msg})
		}
	}}
	files, err := h.src.Diagnostics(ctx, c, path)
	if err != nil {
		return tool.Result{Output: err.Error()}, nil
	}
	text := lsp.Format(files, env.Cwd, 100)
	if text == "" {
		what := "the workspace"
		if args.Path != "" {
			what = args.Path
		}
		text = "No errors or warnings in " + what + ".\n"
	}
	return tool.Result{Output: text, Success: true}, nil
}
