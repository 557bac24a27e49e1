package appserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"runtime"
	"strings"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/version"
)

const (
	methodInitialize  = "initialize"
	methodInitialized = "initialized"
)

// InitializeParams are initialize's params.
type InitializeParams struct {
	ClientInfo   *ClientInfo   `json:"clientInfo"`
	Capabilities *Capabilities `json:"capabilities,omitempty"`
}

// InitializeResponse is initialize's result, fields in Codex's order.
type InitializeResponse struct {
	UserAgent      string `json:"userAgent"`
	CodexHome      string `json:"codexHome"`
	PlatformFamily string `json:"platformFamily"`
	PlatformOs     string `json:"platformOs"`
}

// Platform is what initialize reports about the machine and the user agent is built from.
type Platform struct {
	Family   string // "unix" | "windows"
	OS       string // "linux", "macos", "windows"
	OSName   string // e.g. "Debian 12"
	Arch     string // "x86_64", "aarch64"
	Terminal string // e.g. "xterm", "vscode/1.96"
}

// DetectPlatform reads the machine's facts once (cheap: one small file).
func DetectPlatform(getenv func(string) string) Platform {
	p := Platform{Family: "unix", OS: runtime.GOOS, OSName: osName(), Arch: runtime.GOARCH}
	switch runtime.GOOS {
	case "windows":
		p.Family = "windows"
	case "darwin":
		p.OS = "macos"
	}
	switch p.Arch {
	case "amd64":
		p.Arch = "x86_64"
	case "arm64":
		p.Arch = "aarch64"
	}
	p.Terminal = terminal(getenv)
	return p
}

func osName() string {
	if runtime.GOOS != "linux" {
		switch runtime.GOOS {
		case "darwin":
			return "Mac OS"
		case "windows":
			return "Windows"
		}
		return runtime.GOOS
	}
	data, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return "Linux"
	}
	var name, ver string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"'`)
		switch k {
		case "NAME":
			name, _, _ = strings.Cut(v, " ") // "Debian GNU/Linux" → "Debian", as Codex shows it
		case "VERSION_ID":
			ver = v
		}
	}
	if name == "" {
		return "Linux"
	}
	if ver != "" {
		return name + " " + ver
	}
	return name
}

// terminal names the terminal the way Codex's user agent does: TERM_PROGRAM (with its
// version) when set, else TERM, else "unknown".
func terminal(getenv func(string) string) string {
	if tp := getenv("TERM_PROGRAM"); tp != "" {
		if v := getenv("TERM_PROGRAM_VERSION"); v != "" {
			return sanitizeUA(tp + "/" + v)
		}
		return sanitizeUA(tp)
	}
	if t := getenv("TERM"); t != "" {
		return sanitizeUA(t)
	}
	return "unknown"
}

// sanitizeUA keeps a user-agent piece printable ASCII (it becomes an HTTP header).
func sanitizeUA(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '_'
		}
		return r
	}, s)
}

// validOriginator reports whether name can be an originator header value.
func validOriginator(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if r <= 0x20 || r > 0x7e {
			return false
		}
	}
	return true
}

// UserAgent is `<originator>/<Codex version> (<os>; <arch>) <terminal> (<client>; <version>)
// gocodex/<ours>`: clients gate features on the first version, so it is the Codex release
// whose protocol we speak; ours follows at the end.
func UserAgent(p Platform, originator string, ci ClientInfo) string {
	var b strings.Builder
	b.WriteString(originator)
	b.WriteString("/")
	b.WriteString(version.CodexProtocol)
	b.WriteString(" (")
	b.WriteString(p.OSName)
	b.WriteString("; ")
	b.WriteString(p.Arch)
	b.WriteString(") ")
	b.WriteString(p.Terminal)
	b.WriteString(" (")
	b.WriteString(sanitizeUA(ci.Name))
	b.WriteString("; ")
	b.WriteString(sanitizeUA(ci.Version))
	b.WriteString(") gocodex/")
	b.WriteString(version.Version)
	return b.String()
}

// initialize answers the handshake. It runs on the read loop, so requests pipelined behind it
// already see the connection initialized.
func (c *Conn) initialize(raw json.RawMessage) (any, error) {
	c.mu.Lock()
	done := c.initialized
	c.mu.Unlock()
	if done {
		return nil, errAlreadyInitialized()
	}
	if raw == nil {
		return nil, InvalidRequest("Invalid request: missing field `params`")
	}
	var p InitializeParams
	if err := DecodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.ClientInfo == nil {
		return nil, InvalidRequest("Invalid request: missing field `clientInfo`")
	}
	if !fieldPresent(raw, "clientInfo", "name") {
		return nil, InvalidRequest("Invalid request: missing field `name`")
	}
	if !fieldPresent(raw, "clientInfo", "version") {
		return nil, InvalidRequest("Invalid request: missing field `version`")
	}
	ci := *p.ClientInfo
	originator := ci.Name
	if o := c.srv.opts.Getenv(app.OriginatorOverrideEnv); o != "" {
		originator = o
	}
	if !validOriginator(originator) {
		originator = "codex_cli_rs"
	}
	codexHome := ""
	if cfg := c.srv.opts.Config; cfg != nil {
		codexHome = cfg.CodexHome
	}
	res := InitializeResponse{
		UserAgent:      UserAgent(c.srv.platform, originator, ci),
		CodexHome:      codexHome,
		PlatformFamily: c.srv.platform.Family,
		PlatformOs:     c.srv.platform.OS,
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.initialized = true
	c.client = ci
	if p.Capabilities != nil {
		c.caps = *p.Capabilities
		c.optOut = make(map[string]bool, len(c.caps.OptOutNotificationMethods))
		for _, m := range c.caps.OptOutNotificationMethods {
			c.optOut[m] = true
		}
	}
	c.userAgent = res.UserAgent
	c.values[originatorKey{}] = originator
	return res, nil
}

// originatorKey stores the connection's originator (for the model client's headers).
type originatorKey struct{}

// Originator is the originator the connection's user agent starts with.
func (c *Conn) Originator() string {
	s, _ := c.Value(originatorKey{}).(string)
	return s
}

// fieldPresent reports whether raw.obj.field exists (Codex requires clientInfo.name/version).
func fieldPresent(raw json.RawMessage, obj, field string) bool {
	var outer map[string]json.RawMessage
	if json.Unmarshal(raw, &outer) != nil {
		return false
	}
	var inner map[string]json.RawMessage
	if json.Unmarshal(outer[obj], &inner) != nil {
		return false
	}
	v, ok := inner[field]
	return ok && string(v) != "null"
}

// ConfigWarningParams are configWarning's params.
type ConfigWarningParams struct {
	Summary string     `json:"summary"`
	Details *string    `json:"details"`
	Path    *string    `json:"path,omitempty"`
	Range   *TextRange `json:"range,omitempty"`
}

// TextRange is a span in a configuration file (1-based).
type TextRange struct {
	Start TextPosition `json:"start"`
	End   TextPosition `json:"end"`
}

// TextPosition is a 1-based line and column.
type TextPosition struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// InvalidConfigWarning is what a client hears when config.toml cannot be used and the server
// runs on defaults instead: Codex's summary, the parse error as details.
func InvalidConfigWarning(pe *config.ParseError) ConfigWarningParams {
	details := pe.Error()
	p := ConfigWarningParams{Summary: "Invalid configuration; using defaults.", Details: &details}
	if pe.File != "" && pe.Line > 0 {
		p.Path = &pe.File
		pos := TextPosition{Line: pe.Line, Column: max(pe.Column, 1)}
		p.Range = &TextRange{Start: pos, End: pos}
	}
	return p
}

// ConfigWarning turns a configuration warning into configWarning's params: the message as
// summary, the located text as details, and the file and position when known.
func ConfigWarning(w config.Warning) ConfigWarningParams {
	p := ConfigWarningParams{Summary: w.Message}
	if w.File != "" {
		details := w.String()
		p.Details = &details
		p.Path = &w.File
	}
	if w.Line > 0 {
		pos := TextPosition{Line: w.Line, Column: max(w.Column, 1)}
		p.Range = &TextRange{Start: pos, End: pos}
	}
	return p
}
