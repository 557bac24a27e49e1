package lsp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// fakeServerArg makes the test binary a small language server (see TestMain): it reports one
// error per document ("fake: <first line>"), exits with status 3 when a file named crash.go
// is opened, and starts a helper process (sleep) that should end with it. It records its own
// pid and the helper's in $FAKE_LSP_DIR/pids, one line per start.
const fakeServerArg = "--fake-language-server"

func runFakeServer() int {
	if msg := os.Getenv("FAKE_LSP_FAIL"); msg != "" {
		fmt.Fprintln(os.Stderr, msg)
		return 2
	}
	helper := exec.Command("sleep", "300")
	if err := helper.Start(); err != nil {
		return 1
	}
	if f, err := os.OpenFile(filepath.Join(os.Getenv("FAKE_LSP_DIR"), "pids"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		fmt.Fprintf(f, "%d %d\n", os.Getpid(), helper.Process.Pid)
		f.Close()
	}
	s := &fakeServer{exit: make(chan struct{}), ready: make(chan struct{})}
	stream := jsonrpc2.NewHeaderStream(stdio{})
	_, conn, client := protocol.NewServer(context.Background(), s, stream)
	s.client = client // requests may already be arriving: report waits for it
	close(s.ready)
	select {
	case <-s.exit:
	case <-conn.Done():
	}
	return 0
}

type stdio struct{}

func (stdio) Read(b []byte) (int, error)  { return os.Stdin.Read(b) }
func (stdio) Write(b []byte) (int, error) { return os.Stdout.Write(b) }
func (stdio) Close() error                { return nil }

type fakeServer struct {
	protocol.UnimplementedServer
	client protocol.Client
	ready  chan struct{} // closed once client is set
	exit   chan struct{}
}

func (s *fakeServer) Initialize(context.Context, *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	return &protocol.InitializeResult{}, nil
}

func (s *fakeServer) Initialized(context.Context, *protocol.InitializedParams) error { return nil }
func (s *fakeServer) Shutdown(context.Context) error                                 { return nil }
func (s *fakeServer) Exit(context.Context) error {
	close(s.exit)
	return nil
}

func (s *fakeServer) DidChangeWatchedFiles(context.Context, *protocol.DidChangeWatchedFilesParams) error {
	return nil
}

func (s *fakeServer) DidOpen(ctx context.Context, p *protocol.DidOpenTextDocumentParams) error {
	if strings.HasSuffix(p.TextDocument.URI.FsPath(), "crash.go") {
		os.Exit(3)
	}
	return s.report(ctx, p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
}

func (s *fakeServer) DidChange(ctx context.Context, p *protocol.DidChangeTextDocumentParams) error {
	text := p.ContentChanges[0].(*protocol.TextDocumentContentChangeWholeDocument).Text
	return s.report(ctx, p.TextDocument.URI, p.TextDocument.Version, text)
}

func (s *fakeServer) report(ctx context.Context, u uri.URI, version int32, text string) error {
	<-s.ready
	first, _, _ := strings.Cut(text, "\n")
	return s.client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{URI: u, Version: protocol.NewOptional(version),
		Diagnostics: []protocol.Diagnostic{{Severity: protocol.DiagnosticSeverityError, Message: protocol.String("fake: " + first)}}})
}
