package appserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/appserver"
	"github.com/gocodex/gocodex/internal/appserver/schematest"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

var testPlatform = appserver.Platform{Family: "unix", OS: "linux", OSName: "Debian 12", Arch: "x86_64", Terminal: "xterm"}

func newServer(t *testing.T, getenv func(string) string) *appserver.Server {
	t.Helper()
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return appserver.New(appserver.Options{
		Config:   &config.Config{CodexHome: "/home/u/.codex"},
		Getenv:   getenv,
		Platform: &testPlatform,
		Now:      func() time.Time { return time.UnixMilli(1795337480977) },
	})
}

// connect opens an in-process connection whose every frame is checked against the schema.
func connect(t *testing.T, srv *appserver.Server) *appserver.Client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := appserver.Connect(ctx, srv, appserver.ClientOptions{Tap: schematest.Wrap(t).Unschematized("test/")})
	t.Cleanup(func() {
		cancel()
		c.Close()
	})
	return c
}

func clientInfo(name, version string) appserver.InitializeParams {
	return appserver.InitializeParams{ClientInfo: &appserver.ClientInfo{Name: name, Version: version}}
}

func rpcError(t *testing.T, err error) *jsonrpc.Error {
	t.Helper()
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not a JSON-RPC error", err)
	}
	return e
}

func TestInitialize(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		params appserver.InitializeParams
		want   appserver.InitializeResponse
	}{
		{
			name:   "originator from the client name",
			params: clientInfo("codex_vscode", "1.0"),
			want: appserver.InitializeResponse{
				UserAgent: "codex_vscode/0.169.0 (Debian 12; x86_64) xterm (codex_vscode; 1.0) gocodex/0.1.0",
				CodexHome: "/home/u/.codex", PlatformFamily: "unix", PlatformOs: "linux",
			},
		},
		{
			name:   "override wins",
			env:    map[string]string{"CODEX_INTERNAL_ORIGINATOR_OVERRIDE": "sdk_x"},
			params: clientInfo("a b", "2"),
			want: appserver.InitializeResponse{
				UserAgent: "sdk_x/0.169.0 (Debian 12; x86_64) xterm (a b; 2) gocodex/0.1.0",
				CodexHome: "/home/u/.codex", PlatformFamily: "unix", PlatformOs: "linux",
			},
		},
		{
			name:   "a name that cannot be a header value",
			params: clientInfo("my client", "3"),
			want: appserver.InitializeResponse{
				UserAgent: "codex_cli_rs/0.169.0 (Debian 12; x86_64) xterm (my client; 3) gocodex/0.1.0",
				CodexHome: "/home/u/.codex", PlatformFamily: "unix", PlatformOs: "linux",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := connect(t, newServer(t, func(k string) string { return tt.env[k] }))
			got, err := c.Initialize(context.Background(), tt.params)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("initialize (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(got.UserAgent, strings.SplitN(tt.want.UserAgent, "/", 2)[0]+"/0.169.0 (") {
				t.Errorf("user agent %q does not lead with the Codex version", got.UserAgent)
			}
		})
	}
}

func TestHandshakeErrors(t *testing.T) {
	srv := newServer(t, nil)
	srv.Handle("test/echo", appserver.Typed(func(ctx context.Context, c *appserver.Conn, p struct {
		N int `json:"n"`
	}) (map[string]int, error) {
		return map[string]int{"n": p.N}, nil
	}))
	c := connect(t, srv)
	ctx := context.Background()
	type errWant struct {
		Code    int64
		Message string
	}
	check := func(err error, want errWant) {
		t.Helper()
		e := rpcError(t, err)
		if diff := cmp.Diff(want, errWant{e.Code, e.Message}); diff != "" {
			t.Errorf("error (-want +got):\n%s", diff)
		}
	}
	check(c.Call(ctx, "test/echo", map[string]int{"n": 1}, nil), errWant{-32600, "Not initialized"})
	check(c.Call(ctx, "initialize", map[string]any{}, nil), errWant{-32600, "Invalid request: missing field `clientInfo`"})
	check(c.Call(ctx, "initialize", map[string]any{"clientInfo": map[string]string{"version": "1"}}, nil), errWant{-32600, "Invalid request: missing field `name`"})
	if _, err := c.Initialize(ctx, clientInfo("t", "1")); err != nil {
		t.Fatal(err)
	}
	check(c.Call(ctx, "initialize", clientInfo("t", "1"), nil), errWant{-32600, "Already initialized"})
	// Codex 0.169 answers these three -32600 with serde's wording (recorded in
	// testdata/codex_errors.jsonl).
	if e := rpcError(t, c.Call(ctx, "nope/nope", map[string]any{}, nil)); e.Code != -32600 ||
		!strings.HasPrefix(e.Message, "Invalid request: unknown variant `nope/nope`, expected one of `initialize`, `server/diagnostics`, ") {
		t.Errorf("unknown method: %d %.120s", e.Code, e.Message)
	}
	check(c.Call(ctx, "test/echo", nil, nil), errWant{-32600, "Invalid request: missing field `params`"})
	check(c.Call(ctx, "test/echo", map[string]string{"n": "x"}, nil), errWant{-32600, `Invalid request: invalid type: string "x", expected i64`})
	var got map[string]int
	if err := c.Call(ctx, "test/echo", map[string]int{"n": 7}, &got); err != nil || got["n"] != 7 {
		t.Fatalf("test/echo = %v, %v", got, err)
	}
}

// Requests pipelined right behind initialize already see the connection initialized.
func TestPipelinedAfterInitialize(t *testing.T) {
	srv := newServer(t, nil)
	srv.Handle("test/ok", appserver.TypedOptional(func(context.Context, *appserver.Conn, json.RawMessage) (bool, error) { return true, nil }))
	c := connect(t, srv)
	ctx := context.Background()
	errc := make(chan error, 1)
	go func() { _, err := c.Initialize(ctx, clientInfo("t", "1")); errc <- err }()
	var ok bool
	// Either order of arrival must work once initialize is in: retry only on Not initialized.
	for {
		err := c.Call(ctx, "test/ok", nil, &ok)
		if err == nil {
			break
		}
		if rpcError(t, err).Message != "Not initialized" {
			t.Fatal(err)
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func TestOptOutNotifications(t *testing.T) {
	srv := newServer(t, nil)
	srv.Handle("test/notify", appserver.TypedOptional(func(ctx context.Context, c *appserver.Conn, _ json.RawMessage) (bool, error) {
		for _, m := range []string{"configWarning", "warning"} {
			if err := c.Notify(ctx, m, map[string]string{"message": "m", "summary": "s"}); err != nil {
				return false, err
			}
		}
		return true, nil
	}))
	c := connect(t, srv)
	ctx := context.Background()
	p := clientInfo("t", "1")
	p.Capabilities = &appserver.Capabilities{OptOutNotificationMethods: []string{"configWarning"}}
	if _, err := c.Initialize(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "test/notify", nil, nil); err != nil {
		t.Fatal(err)
	}
	n := <-c.Notifications()
	if n.Method == "remoteControl/status/changed" { // every client hears it after initialize
		n = <-c.Notifications()
	}
	if n.Method != "warning" {
		t.Errorf("first notification %s, want warning (configWarning opted out)", n.Method)
	}
	if n.EmittedAtMs != 1795337480977 {
		t.Errorf("emittedAtMs = %d, want the server clock's 1795337480977", n.EmittedAtMs)
	}
}

// A server→client request gets id 0, then 1; the answer comes back to the handler.
func TestServerRequest(t *testing.T) {
	srv := newServer(t, nil)
	srv.Handle("test/ask", appserver.TypedOptional(func(ctx context.Context, c *appserver.Conn, _ json.RawMessage) (json.RawMessage, error) {
		return c.Request(ctx, "item/fileChange/requestApproval", map[string]any{"threadId": "t", "turnId": "u", "itemId": "i", "startedAtMs": 1})
	}))
	var ids []string
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := appserver.Connect(ctx, srv, appserver.ClientOptions{
		Tap: schematest.Wrap(t).Unschematized("test/"),
		HandleRequest: func(ctx context.Context, method string, params json.RawMessage) (any, error) {
			ids = append(ids, method)
			return map[string]string{"decision": "accept"}, nil
		},
	})
	defer c.Close()
	if _, err := c.Initialize(ctx, clientInfo("t", "1")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		var got map[string]string
		if err := c.Call(ctx, "test/ask", nil, &got); err != nil || got["decision"] != "accept" {
			t.Fatalf("test/ask = %v, %v", got, err)
		}
	}
	if len(ids) != 2 {
		t.Errorf("client answered %d requests, want 2", len(ids))
	}
}

// Configuration warnings found at start reach every client right after initialize.
func TestStartupConfigWarnings(t *testing.T) {
	srv := appserver.New(appserver.Options{
		Config:   &config.Config{CodexHome: "/h"},
		Getenv:   func(string) string { return "" },
		Platform: &testPlatform,
		StartupWarnings: []appserver.ConfigWarningParams{
			appserver.ConfigWarning(config.Warning{File: "/h/config.toml", Line: 3, Column: 1, Message: "unknown key `modle`"}),
			appserver.ConfigWarning(config.Warning{Message: "no file"}),
		},
	})
	c := connect(t, srv)
	if _, err := c.Initialize(context.Background(), clientInfo("t", "1")); err != nil {
		t.Fatal(err)
	}
	var got []appserver.ConfigWarningParams
	for range 2 {
		n := <-c.Notifications()
		if n.Method != "configWarning" {
			t.Fatalf("notification %s, want configWarning", n.Method)
		}
		var p appserver.ConfigWarningParams
		if err := json.Unmarshal(n.Params, &p); err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	details, path := "/h/config.toml:3:1: unknown key `modle`", "/h/config.toml"
	want := []appserver.ConfigWarningParams{
		{Summary: "unknown key `modle`", Details: &details, Path: &path,
			Range: &appserver.TextRange{Start: appserver.TextPosition{Line: 3, Column: 1}, End: appserver.TextPosition{Line: 3, Column: 1}}},
		{Summary: "no file"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("configWarning params (-want +got):\n%s", diff)
	}
}
