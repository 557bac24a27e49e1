package wire

import (
	"encoding/json"
	"sort"
	"strings"
	"unicode"

	"github.com/gocodex/gocodex/protocol"
)

// The v2 thread items: the app-server's view of a thread (camelCase, "type" first). Fields
// Codex 0.169 always writes are present, null when unknown, so clients that index them find
// them.

// V2Item is one v2 ThreadItem.
type V2Item interface {
	ItemID() string
	// Times are the item's startedAtMs and completedAtMs (nil when unknown).
	Times() (started, completed *int64)
	// setTimes stamps the item's startedAtMs / completedAtMs.
	setTimes(started, completed *int64)
	// clone copies the item, so a notification keeps the item as it was when it was made.
	clone() V2Item
}

// V2UserContent is one piece of a userMessage's content: text (with its text elements),
// image (URL) or localImage (path).
type V2UserContent struct {
	Type         string
	Text         string
	TextElements []json.RawMessage
	URL          string
	Path         string
	// Name is a skill item's skill name.
	Name string
}

// MarshalJSON writes the fields of the content's type only.
func (c V2UserContent) MarshalJSON() ([]byte, error) {
	switch c.Type {
	case "image":
		return protocol.Marshal(struct {
			Type string `json:"type"`
			URL  string `json:"url"`
		}{c.Type, c.URL})
	case "localImage":
		return protocol.Marshal(struct {
			Type string `json:"type"`
			Path string `json:"path"`
		}{c.Type, c.Path})
	case "skill":
		return protocol.Marshal(struct {
			Type string `json:"type"`
			Name string `json:"name"`
			Path string `json:"path"`
		}{c.Type, c.Name, c.Path})
	}
	te := c.TextElements
	if te == nil {
		te = []json.RawMessage{}
	}
	return protocol.Marshal(struct {
		Type         string            `json:"type"`
		Text         string            `json:"text"`
		TextElements []json.RawMessage `json:"text_elements"`
	}{"text", c.Text, te})
}

type times struct {
	StartedAtMs   *int64 `json:"startedAtMs"`
	CompletedAtMs *int64 `json:"completedAtMs"`
}

func (t *times) Times() (started, completed *int64) { return t.StartedAtMs, t.CompletedAtMs }

func (t *times) setTimes(s, c *int64) {
	if s != nil {
		t.StartedAtMs = s
	}
	t.CompletedAtMs = c
}

// V2UserMessage is the user's input as it entered the thread.
type V2UserMessage struct {
	Type     string          `json:"type"`
	ID       string          `json:"id"`
	ClientID *string         `json:"clientId"`
	Content  []V2UserContent `json:"content"`
	times
}

// V2AgentMessage is an assistant message.
type V2AgentMessage struct {
	Type string `json:"type"`
	// Moderation, MemoryCitation, Delivery and Questions are Codex 0.169 features gocodex
	// does not have: always null, as Codex sends them when unused.
	Moderation     *json.RawMessage `json:"moderation"`
	ID             string           `json:"id"`
	Text           string           `json:"text"`
	Phase          *string          `json:"phase"`
	MemoryCitation *json.RawMessage `json:"memoryCitation"`
	Delivery       *json.RawMessage `json:"delivery"`
	Questions      *json.RawMessage `json:"questions"`
	times
}

// V2Reasoning is a reasoning item: its summary parts and raw content parts.
type V2Reasoning struct {
	Type    string   `json:"type"`
	ID      string   `json:"id"`
	Summary []string `json:"summary"`
	Content []string `json:"content"`
	times
}

// V2CommandAction is Codex's reading of a command for display.
type V2CommandAction struct {
	Type    string  `json:"type"`
	Command string  `json:"command"`
	Name    *string `json:"name,omitempty"`
	Path    *string `json:"path,omitempty"`
	Query   *string `json:"query,omitempty"`
}

// V2CommandExecution is a command the agent (or the user) ran.
type V2CommandExecution struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	// PluginID and ScriptPath name a plugin's script: null (gocodex has no plugins).
	PluginID         *string           `json:"pluginId"`
	ScriptPath       *string           `json:"scriptPath"`
	Command          string            `json:"command"`
	Cwd              string            `json:"cwd"`
	ProcessID        *string           `json:"processId"`
	Source           string            `json:"source"`
	Status           string            `json:"status"`
	CommandActions   []V2CommandAction `json:"commandActions"`
	AggregatedOutput *string           `json:"aggregatedOutput"`
	ExitCode         *int              `json:"exitCode"`
	DurationMs       *int64            `json:"durationMs"`
	times
}

// V2PatchKind is a file change's kind: add, delete or update (with move_path).
type V2PatchKind struct {
	Type     string  `json:"type"`
	MovePath *string `json:"move_path,omitempty"`
}

// V2FileUpdate is one file of a fileChange.
type V2FileUpdate struct {
	Path string      `json:"path"`
	Kind V2PatchKind `json:"kind"`
	Diff string      `json:"diff"`
}

// V2FileChange is a patch.
type V2FileChange struct {
	Type    string         `json:"type"`
	ID      string         `json:"id"`
	Changes []V2FileUpdate `json:"changes"`
	Status  string         `json:"status"`
	times
}

// V2Plan is the text of a plan (plan mode).
type V2Plan struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Text string `json:"text"`
	times
}

// V2WebSearch is a hosted web search.
type V2WebSearch struct {
	Type   string          `json:"type"`
	ID     string          `json:"id"`
	Query  string          `json:"query"`
	Action json.RawMessage `json:"action"`
	times
}

// V2ReviewMode is the start (enteredReviewMode: the review's hint) or the end
// (exitedReviewMode: its printed result) of a review.
type V2ReviewMode struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	Review string `json:"review"`
	times
}

// V2McpToolCall is a call of an MCP server's tool.
type V2McpToolCall struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	Server string `json:"server"`
	// EnvironmentID (Codex 0.171) is null: gocodex's MCP servers run in the local environment.
	EnvironmentID *string         `json:"environmentId"`
	Tool          string          `json:"tool"`
	Status        string          `json:"status"`
	Arguments     json.RawMessage `json:"arguments"`
	// AppContext, McpAppUI, PluginID and ReadOnlyHint belong to apps and plugins: null here.
	AppContext   *json.RawMessage `json:"appContext"`
	McpAppUI     *json.RawMessage `json:"mcpAppUi"`
	PluginID     *string          `json:"pluginId"`
	ReadOnlyHint *bool            `json:"readOnlyHint"`
	Result       json.RawMessage  `json:"result"`
	Error        *V2McpError      `json:"error"`
	DurationMs   *int64           `json:"durationMs"`
	times
}

// V2McpError is why an MCP call failed.
type V2McpError struct {
	Message string `json:"message"`
}

// V2ImageView is an image the agent looked at.
type V2ImageView struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Path string `json:"path"`
	times
}

// V2ContextCompaction marks a compaction of the history.
type V2ContextCompaction struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	times
}

func (i *V2UserMessage) clone() V2Item      { c := *i; return &c }
func (i *V2AgentMessage) clone() V2Item     { c := *i; return &c }
func (i *V2CommandExecution) clone() V2Item { c := *i; return &c }
func (i *V2FileChange) clone() V2Item       { c := *i; return &c }
func (i *V2Plan) clone() V2Item             { c := *i; return &c }
func (i *V2WebSearch) clone() V2Item        { c := *i; return &c }
func (i *V2McpToolCall) clone() V2Item      { c := *i; return &c }
func (i *V2ImageView) clone() V2Item        { c := *i; return &c }
func (i *V2ReviewMode) clone() V2Item       { c := *i; return &c }
func (i *V2ContextCompaction) clone() V2Item {
	c := *i
	return &c
}
func (i *V2Reasoning) clone() V2Item {
	c := *i
	c.Summary = append([]string{}, i.Summary...)
	c.Content = append([]string{}, i.Content...)
	return &c
}

func (i *V2UserMessage) ItemID() string       { return i.ID }
func (i *V2AgentMessage) ItemID() string      { return i.ID }
func (i *V2Reasoning) ItemID() string         { return i.ID }
func (i *V2CommandExecution) ItemID() string  { return i.ID }
func (i *V2FileChange) ItemID() string        { return i.ID }
func (i *V2Plan) ItemID() string              { return i.ID }
func (i *V2WebSearch) ItemID() string         { return i.ID }
func (i *V2McpToolCall) ItemID() string       { return i.ID }
func (i *V2ImageView) ItemID() string         { return i.ID }
func (i *V2ReviewMode) ItemID() string        { return i.ID }
func (i *V2ContextCompaction) ItemID() string { return i.ID }

// V2UserContentFromInput converts engine input items to userMessage content.
func V2UserContentFromInput(in []protocol.InputItem) []V2UserContent {
	out := make([]V2UserContent, 0, len(in))
	for _, it := range in {
		switch it.Type {
		case protocol.InputImage:
			out = append(out, V2UserContent{Type: "image", URL: it.ImageURL})
		case protocol.InputLocalImage:
			out = append(out, V2UserContent{Type: "localImage", Path: it.Path})
		case protocol.InputSkill:
			out = append(out, V2UserContent{Type: "skill", Name: it.Name, Path: it.Path})
		default:
			out = append(out, V2UserContent{Type: "text", Text: it.Text, TextElements: []json.RawMessage{}})
		}
	}
	return out
}

func userMessageContent(ev protocol.UserMessageEvent) []V2UserContent {
	out := []V2UserContent{}
	if ev.Message != "" || (len(ev.Images) == 0 && len(ev.LocalImages) == 0) {
		te := ev.TextElements
		if te == nil {
			te = []json.RawMessage{}
		}
		out = append(out, V2UserContent{Type: "text", Text: ev.Message, TextElements: te})
	}
	for _, u := range ev.Images {
		out = append(out, V2UserContent{Type: "image", URL: u})
	}
	for _, p := range ev.LocalImages {
		out = append(out, V2UserContent{Type: "localImage", Path: p})
	}
	return out
}

// V2CommandActions converts the engine's parsed command to v2 command actions.
func V2CommandActions(parsed []protocol.ParsedCommand, command string) []V2CommandAction {
	out := make([]V2CommandAction, 0, len(parsed))
	for _, p := range parsed {
		a := V2CommandAction{Command: p.Cmd}
		switch p.Type {
		case "read":
			name := p.Name
			path := ""
			if p.Path != nil {
				path = *p.Path
			}
			a.Type, a.Name, a.Path = "read", &name, &path
		case "list_files":
			a.Type, a.Path = "listFiles", p.Path
		case "search":
			a.Type, a.Query, a.Path = "search", p.Query, p.Path
		default:
			a.Type = "unknown"
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		out = append(out, V2CommandAction{Type: "unknown", Command: command})
	}
	return out
}

// V2FileUpdates lists a patch's files in path order with their diffs, as Codex shows them:
// the content of an added or deleted file, the unified diff of an update.
func V2FileUpdates(m map[string]protocol.FileChange) []V2FileUpdate {
	out := make([]V2FileUpdate, 0, len(m))
	for path, ch := range m {
		u := V2FileUpdate{Path: path, Kind: V2PatchKind{Type: string(ch.Kind)}}
		switch ch.Kind {
		case protocol.FileAdd, protocol.FileDelete:
			u.Diff = ch.Content
		default:
			u.Kind.Type = "update"
			u.Kind.MovePath = ch.MovePath
			u.Diff = ch.UnifiedDiff
		}
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// V2Source converts an exec command source to its v2 name.
func V2Source(s protocol.ExecCommandSource) string {
	if s == "" {
		return "agent"
	}
	return Camel(string(s))
}

// Camel turns snake_case into camelCase ("unified_exec_startup" → "unifiedExecStartup").
func Camel(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	var b strings.Builder
	up := false
	for _, r := range s {
		if r == '_' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// V2ErrorInfo converts the engine's codex_error_info (snake_case: a string, or an object of
// one variant) to the v2 codexErrorInfo (camelCase variant and field names). Empty input is
// nil.
func V2ErrorInfo(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil
	}
	out, err := json.Marshal(camelKeys(v, true))
	if err != nil {
		return nil
	}
	return out
}

func camelKeys(v any, top bool) any {
	switch x := v.(type) {
	case string:
		if top {
			return Camel(x)
		}
		return x
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, val := range x {
			m[Camel(k)] = camelKeys(val, false)
		}
		return m
	}
	return v
}
