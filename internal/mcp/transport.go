package mcp

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
	"sort"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/proctree"
)

// defaultEnvVars are the variables of our own environment a stdio server inherits; the rest
// of the environment (API keys above all) stays with us unless env_vars names it.
var defaultEnvVars = []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "__CF_USER_TEXT_ENCODING",
	"LANG", "LC_ALL", "TERM", "TMPDIR", "TZ"}

// serverEnv builds a stdio server's environment: the default variables and env_vars from
// getenv (unset ones are skipped), then the server's env table, which wins.
func serverEnv(c config.McpServerConfig, getenv func(string) string) []string {
	vals := map[string]string{}
	for _, k := range append(append([]string{}, defaultEnvVars...), c.EnvVars...) {
		if v := getenv(k); v != "" {
			vals[k] = v
		}
	}
	for k, v := range c.Env {
		vals[k] = v
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := make([]string, 0, len(keys))
	for _, k := range keys {
		env = append(env, k+"="+vals[k])
	}
	return env
}

// stdioCommand is the child process of a stdio server. It runs in its own process group so
// that closing the server also ends what it spawned (npx starts node), and dies with us.
// Ending kill kills the whole group at once (a server that never finished starting gets no
// graceful shutdown).
func stdioCommand(kill context.Context, c config.McpServerConfig, getenv func(string) string) *exec.Cmd {
	cmd := exec.CommandContext(kill, c.Command, c.Args...)
	cmd.Cancel = func() error { return proctree.KillGroup(cmd) }
	cmd.Env = serverEnv(c, getenv)
	cmd.Dir = c.Cwd
	proctree.PrepareGroup(cmd)
	// A grandchild holding stderr open must not keep Wait from returning.
	cmd.WaitDelay = time.Second
	return cmd
}

// stderrLog passes a stdio server's stderr to the log, a line at a time, so a server that
// fails to start can be diagnosed.
type stderrLog struct {
	log     *slog.Logger
	server  string
	partial []byte
}

func (w *stderrLog) Write(p []byte) (int, error) {
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		w.log.Debug("mcp server stderr", "server", w.server, "line", string(w.partial[:i]))
		w.partial = w.partial[i+1:]
	}
	if len(w.partial) > 64<<10 { // a line without end: do not hold it forever
		w.log.Debug("mcp server stderr", "server", w.server, "line", string(w.partial))
		w.partial = nil
	}
	return len(p), nil
}

// killGroup ends the process group of a started command; harmless when it is gone.
func killGroup(cmd *exec.Cmd) { _ = proctree.KillGroup(cmd) }

// headerTransport adds the configured headers to every request of an HTTP server.
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.headers {
		r.Header[k] = vs
	}
	return t.base.RoundTrip(r)
}

// httpHeaders resolves http_headers, env_http_headers (values read from the environment;
// unset ones are skipped) and the bearer token. A bearer_token_env_var that is unset is an
// error, as with Codex.
func httpHeaders(c config.McpServerConfig, getenv func(string) string) (http.Header, error) {
	h := http.Header{}
	for k, v := range c.HTTPHeaders {
		h.Set(k, v)
	}
	for k, env := range c.EnvHTTPHeaders {
		if v := getenv(env); v != "" {
			h.Set(k, v)
		}
	}
	if c.BearerTokenEnvVar != "" {
		tok := getenv(c.BearerTokenEnvVar)
		if tok == "" {
			return nil, fmt.Errorf("Environment variable %s for MCP server bearer token is empty or not set", c.BearerTokenEnvVar)
		}
		h.Set("Authorization", "Bearer "+tok)
	}
	return h, nil
}

// httpTransport is the streamable-HTTP transport of a server.
func httpTransport(c config.McpServerConfig, getenv func(string) string, base *http.Client) (*sdk.StreamableClientTransport, error) {
	h, err := httpHeaders(c, getenv)
	if err != nil {
		return nil, err
	}
	if base == nil {
		base = http.DefaultClient
	}
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	client := *base
	client.Transport = headerTransport{base: rt, headers: h}
	return &sdk.StreamableClientTransport{Endpoint: c.URL, HTTPClient: &client, MaxRetries: -1}, nil
}
