package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/gocodex/gocodex/internal/config"
)

// This file renders `gocodex mcp list` and `mcp get` the way `codex mcp list|get` does
// (JSON member order and nulls included), and checks `mcp add` input with Codex's messages.

// jsonFloat is a number written the way serde writes an f64: always with a fraction.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	s := strconv.FormatFloat(float64(f), 'f', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return []byte(s), nil
}

func optFloat(v *float64) *jsonFloat {
	if v == nil {
		return nil
	}
	f := jsonFloat(*v)
	return &f
}

type stdioTransportJSON struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	EnvVars []string          `json:"env_vars"`
	Cwd     *string           `json:"cwd"`
}

type httpTransportJSON struct {
	Type              string            `json:"type"`
	URL               string            `json:"url"`
	BearerTokenEnvVar *string           `json:"bearer_token_env_var"`
	HTTPHeaders       map[string]string `json:"http_headers"`
	EnvHTTPHeaders    map[string]string `json:"env_http_headers"`
	HTTPHeadersHelper *string           `json:"http_headers_helper"`
}

func transportJSON(c config.McpServerConfig) any {
	if c.URL != "" {
		t := httpTransportJSON{Type: "streamable_http", URL: c.URL, HTTPHeaders: c.HTTPHeaders, EnvHTTPHeaders: c.EnvHTTPHeaders}
		if c.BearerTokenEnvVar != "" {
			t.BearerTokenEnvVar = &c.BearerTokenEnvVar
		}
		return t
	}
	t := stdioTransportJSON{Type: "stdio", Command: c.Command, Args: c.Args, Env: c.Env, EnvVars: c.EnvVars}
	if t.Args == nil {
		t.Args = []string{}
	}
	if t.EnvVars == nil {
		t.EnvVars = []string{}
	}
	if c.Cwd != "" {
		t.Cwd = &c.Cwd
	}
	return t
}

// McpAuthStatus is what `mcp list` reports: we do no OAuth, so a stdio server or an HTTP
// server with a bearer token is "unsupported" and any other HTTP server "unknown".
func McpAuthStatus(c config.McpServerConfig) string {
	if c.URL != "" && c.BearerTokenEnvVar == "" {
		return "unknown"
	}
	return "unsupported"
}

// authStatus is the caller's status of a server, else McpAuthStatus's.
func authStatus(name string, c config.McpServerConfig, known map[string]string) string {
	if s, ok := known[name]; ok {
		return s
	}
	return McpAuthStatus(c)
}

// authLabel is a status as the `mcp list` table shows it.
func authLabel(status string) string {
	switch status {
	case "o_auth":
		return "OAuth"
	case "not_logged_in":
		return "Not logged in"
	}
	return titleCase(status)
}

type listEntryJSON struct {
	Name           string     `json:"name"`
	Enabled        bool       `json:"enabled"`
	DisabledReason *string    `json:"disabled_reason"`
	Transport      any        `json:"transport"`
	StartupTimeout *jsonFloat `json:"startup_timeout_sec"`
	ToolTimeout    *jsonFloat `json:"tool_timeout_sec"`
	McpAuthStatus  string     `json:"auth_status"`
}

type getJSON struct {
	Name           string     `json:"name"`
	Enabled        bool       `json:"enabled"`
	DisabledReason *string    `json:"disabled_reason"`
	Transport      any        `json:"transport"`
	EnabledTools   []string   `json:"enabled_tools"`
	DisabledTools  []string   `json:"disabled_tools"`
	StartupTimeout *jsonFloat `json:"startup_timeout_sec"`
	ToolTimeout    *jsonFloat `json:"tool_timeout_sec"`
}

func sortedNames(servers map[string]config.McpServerConfig) []string {
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// marshalPretty indents with two spaces like serde_json's pretty printer and keeps `<`,
// `>` and `&` as they are.
func marshalPretty(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteMcpListJSON writes `mcp list --json`. auth holds each server's auth status where the
// caller knows better than McpAuthStatus (OAuth sign-ins).
func WriteMcpListJSON(w io.Writer, servers map[string]config.McpServerConfig, auth map[string]string) error {
	entries := []listEntryJSON{}
	for _, name := range sortedNames(servers) {
		c := servers[name]
		entries = append(entries, listEntryJSON{
			Name: name, Enabled: c.IsEnabled(), Transport: transportJSON(c),
			StartupTimeout: optFloat(c.StartupTimeoutSec), ToolTimeout: optFloat(c.ToolTimeoutSec),
			McpAuthStatus: authStatus(name, c, auth),
		})
	}
	b, err := marshalPretty(entries)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// WriteMcpGetJSON writes `mcp get NAME --json`.
func WriteMcpGetJSON(w io.Writer, name string, c config.McpServerConfig) error {
	b, err := marshalPretty(getJSON{
		Name: name, Enabled: c.IsEnabled(), Transport: transportJSON(c),
		EnabledTools: c.EnabledTools, DisabledTools: c.DisabledTools,
		StartupTimeout: optFloat(c.StartupTimeoutSec), ToolTimeout: optFloat(c.ToolTimeoutSec),
	})
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// NoServersMessage is what `mcp list` prints without servers.
const NoServersMessage = "No MCP servers configured yet. Try `gocodex mcp add my-tool -- my-command`."

// WriteMcpList writes the `mcp list` tables: stdio servers, then streamable-HTTP servers.
func WriteMcpList(w io.Writer, servers map[string]config.McpServerConfig, auth map[string]string) error {
	if len(servers) == 0 {
		_, err := fmt.Fprintln(w, NoServersMessage)
		return err
	}
	stdio := [][]string{{"Name", "Command", "Args", "Env", "Cwd", "Status", "Auth"}}
	web := [][]string{{"Name", "Url", "Bearer Token Env Var", "Status", "Auth"}}
	for _, name := range sortedNames(servers) {
		c := servers[name]
		status := "enabled"
		if !c.IsEnabled() {
			status = "disabled"
		}
		auth := authLabel(authStatus(name, c, auth))
		if c.URL != "" {
			web = append(web, []string{name, c.URL, dash(c.BearerTokenEnvVar), status, auth})
			continue
		}
		stdio = append(stdio, []string{name, c.Command, dash(strings.Join(c.Args, " ")), dash(maskedEnv(c)), dash(c.Cwd), status, auth})
	}
	var buf bytes.Buffer
	if len(stdio) > 1 {
		writeTable(&buf, stdio)
	}
	if len(web) > 1 {
		if buf.Len() > 0 {
			buf.WriteByte('\n')
		}
		writeTable(&buf, web)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteMcpGet writes `mcp get NAME`.
func WriteMcpGet(w io.Writer, name string, c config.McpServerConfig) error {
	var b strings.Builder
	if !c.IsEnabled() {
		fmt.Fprintf(&b, "%s (disabled)\n", name)
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "%s\n  enabled: true\n", name)
	if c.EnabledTools != nil {
		fmt.Fprintf(&b, "  enabled_tools: %s\n", dash(strings.Join(c.EnabledTools, ", ")))
	}
	if c.DisabledTools != nil {
		fmt.Fprintf(&b, "  disabled_tools: %s\n", dash(strings.Join(c.DisabledTools, ", ")))
	}
	if c.URL != "" {
		fmt.Fprintf(&b, "  transport: streamable_http\n  url: %s\n  bearer_token_env_var: %s\n", c.URL, dash(c.BearerTokenEnvVar))
		fmt.Fprintf(&b, "  http_headers: %s\n", dash(maskedMap(c.HTTPHeaders)))
		fmt.Fprintf(&b, "  env_http_headers: %s\n", dash(plainMap(c.EnvHTTPHeaders)))
		b.WriteString("  http_headers_helper: -\n")
	} else {
		fmt.Fprintf(&b, "  transport: stdio\n  command: %s\n  args: %s\n  cwd: %s\n  env: %s\n",
			c.Command, dash(strings.Join(c.Args, " ")), dash(c.Cwd), dash(maskedEnv(c)))
	}
	if c.StartupTimeoutSec != nil {
		fmt.Fprintf(&b, "  startup_timeout_sec: %s\n", strconv.FormatFloat(*c.StartupTimeoutSec, 'f', -1, 64))
	}
	if c.ToolTimeoutSec != nil {
		fmt.Fprintf(&b, "  tool_timeout_sec: %s\n", strconv.FormatFloat(*c.ToolTimeoutSec, 'f', -1, 64))
	}
	fmt.Fprintf(&b, "  remove: gocodex mcp remove %s\n", name)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeTable(buf *bytes.Buffer, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, cell := range r {
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	for _, r := range rows {
		for i, cell := range r {
			if i > 0 {
				buf.WriteString("  ")
			}
			buf.WriteString(cell)
			buf.WriteString(strings.Repeat(" ", widths[i]-len([]rune(cell))))
		}
		buf.WriteByte('\n')
	}
}

// maskedEnv lists env entries and env_vars with their values hidden.
func maskedEnv(c config.McpServerConfig) string {
	parts := []string{}
	if m := maskedMap(c.Env); m != "" {
		parts = append(parts, m)
	}
	for _, v := range c.EnvVars {
		parts = append(parts, v+"=*****")
	}
	return strings.Join(parts, ", ")
}

func maskedMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=*****"
	}
	return strings.Join(keys, ", ")
}

func plainMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + m[k]
	}
	return strings.Join(keys, ", ")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// ValidateMcpServerName checks a name for `mcp add`, with Codex's message.
func ValidateMcpServerName(name string) error {
	ok := name != ""
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("-_:@/.", r):
		default:
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("invalid server name '%s' (use letters, numbers, '-', '_', ':', '@', '/', '.')", name)
	}
	return nil
}

// ParseEnvPair reads one `--env KEY=VALUE`, with Codex's message.
func ParseEnvPair(s string) (string, string, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return "", "", fmt.Errorf("invalid value '%s' for '--env <KEY=VALUE>': environment entries must be in KEY=VALUE form", s)
	}
	return k, v, nil
}

// McpStdioEntry is the table `mcp add NAME -- CMD…` writes, in Codex's key order.
type McpStdioEntry struct {
	Command string            `toml:"command"`
	Args    []string          `toml:"args,omitempty"`
	Env     map[string]string `toml:"env,omitempty"`
}

// McpHTTPEntry is the table `mcp add NAME --url URL` writes.
type McpHTTPEntry struct {
	URL               string `toml:"url"`
	BearerTokenEnvVar string `toml:"bearer_token_env_var,omitempty"`
	OAuthResource     string `toml:"oauth_resource,omitempty"`
}
