package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// DefaultTimeout is how long a hook may run when it sets no timeout (Codex's 600 s).
const DefaultTimeout = 600 * time.Second

// Event names a lifecycle event as hooks.json spells it.
type Event string

// The events gocodex runs hooks for.
const (
	SessionStart     Event = "SessionStart"
	UserPromptSubmit Event = "UserPromptSubmit"
	PreToolUse       Event = "PreToolUse"
	PostToolUse      Event = "PostToolUse"
	Stop             Event = "Stop"
)

// eventOrder is Codex's order of events (hooks/list, display order); unsupported ones are
// listed so a configuration naming them is told so rather than called unknown.
var eventOrder = []struct {
	name      Event
	supported bool
}{
	{PreToolUse, true}, {"PermissionRequest", false}, {PostToolUse, true}, {"PreCompact", false},
	{"PostCompact", false}, {SessionStart, true}, {"SessionEnd", false}, {UserPromptSubmit, true},
	{"SubagentStart", false}, {"SubagentStop", false}, {Stop, true},
}

// snake is the event's name in trust keys and hook_started events (pre_tool_use).
func (e Event) snake() string { return strings.ReplaceAll(e.kebab(), "-", "_") }

// kebab is the event's name in run ids (pre-tool-use).
func (e Event) kebab() string {
	var b strings.Builder
	for i, r := range string(e) {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// words is the event's name in error texts (pre tool use).
func (e Event) words() string { return strings.ReplaceAll(e.kebab(), "-", " ") }

// Handler is one configured hook command.
type Handler struct {
	Event         Event
	Matcher       *string
	Command       string
	Timeout       time.Duration
	StatusMessage *string
	// SourcePath is the hooks.json or config.toml it came from; Source is "user" or
	// "project".
	SourcePath string
	Source     string
	// Group and Index place it in its file: Key is "<SourcePath>:<event_snake>:<group>:<index>".
	Group, Index int
	DisplayOrder int64

	matcher *regexp.Regexp
	timeout *int64 // as configured, for the trust hash
}

// Key is the handler's name under [hooks.state].
func (h *Handler) Key() string {
	return fmt.Sprintf("%s:%s:%d:%d", h.SourcePath, h.Event.snake(), h.Group, h.Index)
}

// matches reports whether the handler applies to subject (a tool name, a session source).
func (h *Handler) matches(subject string) bool {
	return h.matcher == nil || h.matcher.MatchString(subject)
}

// fileHooks is hooks.json, and the [hooks] table of config.toml.
type fileHooks struct {
	Hooks map[string][]group `json:"hooks" toml:"hooks"`
}

type group struct {
	Matcher *string      `json:"matcher" toml:"matcher"`
	Hooks   []handlerDef `json:"hooks" toml:"hooks"`
}

type handlerDef struct {
	Type          string  `json:"type" toml:"type"`
	Command       string  `json:"command" toml:"command"`
	Timeout       *int64  `json:"timeout" toml:"timeout"`
	Async         bool    `json:"async" toml:"async"`
	StatusMessage *string `json:"statusMessage" toml:"statusMessage"`
}

// readHooksJSON reads one hooks.json; a missing file is no hooks.
func readHooksJSON(path string) (map[string][]group, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f fileHooks
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", positionOf(path, data, err), errText(err))
	}
	return f.Hooks, nil
}

// errText drops the offset encoding/json puts in type errors (the position says it).
func errText(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%s must be %s, not %s", te.Field, te.Type, te.Value)
	}
	return err
}

// positionOf names file:line:column of a JSON decoding error.
func positionOf(path string, data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset - 1 // the offset is past the offending byte
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		if errors.As(err, &se) {
			off = 0
		} else {
			return path
		}
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("%s:%d:%d", path, line, col)
}

// tomlLayer is what this package reads of a config.toml: the inline hook groups and, in the
// user's file, the trust state.
type tomlLayer struct {
	Groups map[string][]group
	State  map[string]stateEntry
}

type stateEntry struct {
	TrustedHash string `toml:"trusted_hash"`
	Enabled     *bool  `toml:"enabled"`
}

// readConfigTOML reads the [hooks] table of a config.toml; a missing file is empty.
func readConfigTOML(path string) (tomlLayer, error) {
	var out tomlLayer
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	var raw struct {
		Hooks map[string]any `toml:"hooks"`
	}
	if err := toml.Unmarshal(data, &raw); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return out, fmt.Errorf("%s:%d:%d: %v", path, row, col, de)
		}
		return out, fmt.Errorf("%s: %w", path, err)
	}
	if st, ok := raw.Hooks["state"]; ok {
		delete(raw.Hooks, "state")
		if err := retype(st, &out.State); err != nil {
			return out, fmt.Errorf("%s: [hooks.state]: %w", path, err)
		}
	}
	if len(raw.Hooks) > 0 {
		if err := retype(raw.Hooks, &out.Groups); err != nil {
			return out, fmt.Errorf("%s: [hooks]: %w", path, errText(err))
		}
	}
	return out, nil
}

// retype converts a decoded TOML value into a typed one.
func retype(v any, into any) error {
	b, err := toml.Marshal(v)
	if err != nil {
		return err
	}
	d := toml.NewDecoder(bytes.NewReader(b))
	return d.Decode(into)
}

// layer collects one source's handlers (hooks.json, then config.toml's inline tables).
func (l *loader) layer(source string, jsonPath string, groups map[string][]group, tomlPath string, inline map[string][]group) {
	if len(groups) > 0 && len(inline) > 0 {
		l.warn(fmt.Sprintf("loading hooks from both %s and %s; prefer a single representation", jsonPath, tomlPath))
	}
	for _, ev := range eventOrder {
		l.add(source, jsonPath, ev.name, ev.supported, groups[string(ev.name)])
		l.add(source, tomlPath, ev.name, ev.supported, inline[string(ev.name)])
	}
	for _, m := range []struct {
		path   string
		groups map[string][]group
	}{{jsonPath, groups}, {tomlPath, inline}} {
		var unknown []string
		for name := range m.groups {
			if !knownEvent(name) {
				unknown = append(unknown, name)
			}
		}
		sort.Strings(unknown)
		for _, name := range unknown {
			l.warn(fmt.Sprintf("%s: unknown hook event %q (known: PreToolUse, PostToolUse, UserPromptSubmit, SessionStart, Stop)", m.path, name))
		}
	}
}

func knownEvent(name string) bool {
	for _, ev := range eventOrder {
		if string(ev.name) == name {
			return true
		}
	}
	return false
}

func (l *loader) add(source, path string, ev Event, supported bool, groups []group) {
	if len(groups) == 0 {
		return
	}
	if !supported {
		l.warn(fmt.Sprintf("%s: %s hooks are not supported by gocodex and will not run", path, ev))
		return
	}
	for gi, g := range groups {
		var re *regexp.Regexp
		if g.Matcher != nil && *g.Matcher != "" && *g.Matcher != "*" {
			var err error
			if re, err = regexp.Compile(*g.Matcher); err != nil {
				l.warn(fmt.Sprintf("%s: %s hook group %d: matcher %q is not a valid regular expression: %v", path, ev, gi, *g.Matcher, err))
				continue
			}
		}
		for hi, d := range g.Hooks {
			where := fmt.Sprintf("%s: %s hook %d.%d", path, ev, gi, hi)
			switch {
			case d.Type != "command":
				l.warn(fmt.Sprintf("%s: hook type %q is not supported by gocodex (only \"command\"); it will not run", where, d.Type))
				continue
			case strings.TrimSpace(d.Command) == "":
				l.warn(where + ": command is empty; it will not run")
				continue
			case d.Async:
				l.warn(where + ": async hooks are not supported by gocodex; it will not run")
				continue
			case d.Timeout != nil && *d.Timeout <= 0:
				l.warn(fmt.Sprintf("%s: timeout must be a positive number of seconds, not %d; it will not run", where, *d.Timeout))
				continue
			}
			h := &Handler{Event: ev, Matcher: g.Matcher, Command: d.Command, Timeout: DefaultTimeout, StatusMessage: d.StatusMessage,
				SourcePath: path, Source: source, Group: gi, Index: hi, DisplayOrder: l.order, matcher: re, timeout: d.Timeout}
			if d.Timeout != nil {
				h.Timeout = time.Duration(*d.Timeout) * time.Second
			}
			l.order++
			l.handlers = append(l.handlers, h)
		}
	}
}

// Camel is the event's name in the app-server (preToolUse).
func (e Event) Camel() string {
	if e == "" {
		return ""
	}
	return strings.ToLower(string(e[:1])) + string(e[1:])
}
