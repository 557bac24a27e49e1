package diagnostics

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/gocodex/gocodex/internal/lsp"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

type fakeSource struct {
	asked []string
	files []lsp.FileDiagnostics
	err   error
	warn  string
}

func (f *fakeSource) Diagnostics(_ context.Context, call lsp.Call, path string) ([]lsp.FileDiagnostics, error) {
	f.asked = append(f.asked, path)
	if f.warn != "" {
		call.Warn(f.warn)
	}
	return f.files, f.err
}

// The tool resolves the path against the cwd ("" is the workspace), formats what the servers
// report, says so when there is nothing, and turns a missing server into text for the model
// plus the session's warning.
func TestDiagnosticsTool(t *testing.T) {
	cwd := t.TempDir()
	var events []protocol.EventMsg
	env := &tool.Env{Cwd: cwd, Emit: func(e protocol.EventMsg) { events = append(events, e) }}
	src := &fakeSource{files: []lsp.FileDiagnostics{{Path: filepath.Join(cwd, "main.go"), Items: []lsp.Diagnostic{{Line: 4, Column: 2, Severity: lsp.SeverityError, Message: "undefined: x", Source: "compiler"}}}}}
	h := New(src)
	for _, tc := range []struct{ args, asked, out string }{
		{`{"path":"main.go"}`, filepath.Join(cwd, "main.go"), "Language server diagnostics: 1 error, 0 warnings\nmain.go:4:2 error undefined: x (compiler)\n"},
		{`{}`, "", "Language server diagnostics: 1 error, 0 warnings\nmain.go:4:2 error undefined: x (compiler)\n"},
	} {
		src.asked = nil
		res, err := h.Handle(context.Background(), env, tool.Call{Name: Name, Arguments: tc.args})
		if err != nil || res.Output != tc.out || !res.Success || len(src.asked) != 1 || src.asked[0] != tc.asked {
			t.Errorf("%s: %+v %v, asked %q", tc.args, res, err, src.asked)
		}
	}
	src.files = nil
	if res, _ := h.Handle(context.Background(), env, tool.Call{Arguments: `{"path":"ok.go"}`}); res.Output != "No errors or warnings in ok.go.\n" {
		t.Errorf("clean: %q", res.Output)
	}
	src.err, src.warn = errors.New("the language server for x.go is not running (see the warning)"), "language server gopls is not installed"
	res, _ := h.Handle(context.Background(), env, tool.Call{Arguments: `{"path":"x.go"}`})
	if res.Output != src.err.Error() || res.Success || len(events) != 1 || events[0].(protocol.WarningEvent).Message != src.warn {
		t.Errorf("missing server: %+v, events %v", res, events)
	}
}
