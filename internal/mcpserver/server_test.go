package mcpserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

func TestCodexRunsACommandAndAnswers(t *testing.T) {
	h := newHarness(t, tk.ConfigOptions{}, nil)
	h.Model.Enqueue(commandCall("call_1", "echo from-the-tool"), answer("all done"))
	res := h.call("codex", map[string]any{"prompt": "run it"})
	if res.IsError {
		t.Fatalf("error result: %s", resultText(t, res))
	}
	if got := resultText(t, res); got != "all done" {
		t.Errorf("text = %q, want %q", got, "all done")
	}
	sc := structured(t, res)
	threadID, _ := sc["threadId"].(string)
	if threadID == "" || sc["content"] != "all done" {
		t.Errorf("structuredContent = %v", sc)
	}

	evs := h.Wire.Events()
	types := msgTypes(evs)
	for _, want := range []string{"session_configured", "task_started", "exec_command_begin", "exec_command_end", "agent_message", "task_complete"} {
		if !contains(types, want) {
			t.Errorf("no %s event; got %v", want, types)
		}
	}
	if types[len(types)-1] != "task_complete" {
		t.Errorf("last event %q, want task_complete (the result follows the turn's end)", types[len(types)-1])
	}
	for _, ev := range evs {
		meta, _ := ev["_meta"].(map[string]any)
		if meta["threadId"] != threadID || meta["requestId"] == nil {
			t.Fatalf("event _meta = %v, want threadId %s and the request id", meta, threadID)
		}
		if msgType(ev) == "exec_command_end" {
			msg := ev["msg"].(map[string]any)
			if !strings.Contains(msg["aggregated_output"].(string), "from-the-tool") {
				t.Errorf("exec_command_end = %v", msg)
			}
		}
	}
	reqs := h.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if out, ok := reqs[1].ToolOutput("call_1"); !ok || !strings.Contains(out.(string), "from-the-tool") {
		t.Errorf("tool output to the model = %v", out)
	}
}

func TestCodexReplyContinuesTheThread(t *testing.T) {
	h := newHarness(t, tk.ConfigOptions{}, nil)
	h.Model.Enqueue(answer("first answer"), answer("second answer"))
	first := h.call("codex", map[string]any{"prompt": "remember the word kumquat"})
	threadID := structured(t, first)["threadId"].(string)
	_ = h.Wire.Events()

	second := h.call("codex-reply", map[string]any{"threadId": threadID, "prompt": "which word?"})
	if second.IsError || resultText(t, second) != "second answer" {
		t.Fatalf("reply = %+v", second)
	}
	if got := structured(t, second)["threadId"]; got != threadID {
		t.Errorf("reply threadId = %v, want %s", got, threadID)
	}
	if types := msgTypes(h.Wire.Events()); contains(types, "session_configured") || !contains(types, "task_complete") {
		t.Errorf("reply events = %v", types)
	}
	reqs := h.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	users := reqs[1].MessageTexts("user")
	assistant := reqs[1].MessageTexts("assistant")
	if !containsSub(users, "remember the word kumquat") || !containsSub(users, "which word?") || !containsSub(assistant, "first answer") {
		t.Errorf("second request lacks the first exchange: user %q, assistant %q", users, assistant)
	}

	// The deprecated conversationId names the thread as well.
	h.Model.Enqueue(answer("third answer"))
	third := h.call("codex-reply", map[string]any{"conversationId": threadID, "prompt": "again"})
	if third.IsError || resultText(t, third) != "third answer" {
		t.Fatalf("reply by conversationId = %+v", third)
	}
}

func containsSub(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func TestApprovalThroughElicitation(t *testing.T) {
	cases := []struct {
		name    string
		answer  *mcp.ElicitResult
		rewrite string // raw result the client puts on the wire instead, Codex-style
		wantRan bool
		wantErr bool // the call ends with an aborted turn
	}{
		{name: "accept", answer: &mcp.ElicitResult{Action: "accept"}, wantRan: true},
		{name: "decline", answer: &mcp.ElicitResult{Action: "decline"}},
		{name: "cancel", answer: &mcp.ElicitResult{Action: "cancel"}, wantErr: true},
		{name: "content decision", answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approved_for_session"}}, wantRan: true},
		{name: "codex decision approved", answer: &mcp.ElicitResult{Action: "decline"}, rewrite: `{"decision":"approved"}`, wantRan: true},
		{name: "codex decision denied", answer: &mcp.ElicitResult{Action: "accept"}, rewrite: `{"decision":"denied"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			asked := 0
			h := newHarness(t, tk.ConfigOptions{ApprovalPolicy: "untrusted"}, func(req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				return tc.answer, nil
			})
			if tc.rewrite != "" {
				h.Wire.RewriteResponses(func(r json.RawMessage) json.RawMessage {
					if strings.Contains(string(r), `"action"`) {
						return json.RawMessage(tc.rewrite)
					}
					return r
				})
			}
			h.Model.Enqueue(commandCall("call_1", "touch marker"), answer("finished"))
			res := h.call("codex", map[string]any{"prompt": "make a marker", "cwd": h.Workdir})
			if asked != 1 {
				t.Fatalf("elicitation handler called %d times, want 1", asked)
			}
			if res.IsError != tc.wantErr {
				t.Fatalf("isError = %v, want %v: %s", res.IsError, tc.wantErr, resultText(t, res))
			}
			_, err := os.Stat(filepath.Join(h.Workdir, "marker"))
			if ran := err == nil; ran != tc.wantRan {
				t.Errorf("command ran = %v, want %v", ran, tc.wantRan)
			}
			el := h.Wire.Elicitations()
			if len(el) != 1 {
				t.Fatalf("%d elicitations on the wire", len(el))
			}
			p := el[0]
			threadID := structured(t, res)["threadId"]
			if p["codex_elicitation"] != "exec-approval" || p["codex_call_id"] != "call_1" || p["threadId"] != threadID ||
				p["codex_cwd"] != h.Workdir || p["codex_mcp_tool_call_id"] == "" || p["codex_event_id"] == "" {
				t.Errorf("elicitation params = %v", p)
			}
			if cmd := strings.Join(toStrings(p["codex_command"]), " "); !strings.Contains(cmd, "touch marker") {
				t.Errorf("codex_command = %v", p["codex_command"])
			}
			if _, ok := p["codex_parsed_cmd"].([]any); !ok {
				t.Errorf("codex_parsed_cmd = %v", p["codex_parsed_cmd"])
			}
			if msg, _ := p["message"].(string); !strings.HasPrefix(msg, "Allow Codex to run `") {
				t.Errorf("message = %q", msg)
			}
			types := msgTypes(h.Wire.Events())
			if !contains(types, "exec_approval_request") {
				t.Errorf("no exec_approval_request event: %v", types)
			}
			if tc.wantErr {
				if !contains(types, "turn_aborted") {
					t.Errorf("cancel did not abort the turn: %v", types)
				}
				return
			}
			reqs := h.Model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			out, _ := reqs[1].ToolOutput("call_1")
			if s, _ := out.(string); tc.wantRan == strings.Contains(s, "rejected by user") {
				t.Errorf("model received %q", s)
			}
		})
	}
}

func toStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func TestBadInputIsAToolError(t *testing.T) {
	h := newHarness(t, tk.ConfigOptions{}, nil)
	cases := []struct {
		tool string
		args any
		want string
	}{
		// The go-sdk client sends {} for absent arguments, so this is what its users see.
		{tool: "codex", args: nil, want: "Failed to parse configuration for Codex tool: missing field `prompt`"},
		{tool: "codex", args: map[string]any{"model": "x"}, want: "Failed to parse configuration for Codex tool: missing field `prompt`"},
		{tool: "codex", args: map[string]any{"prompt": "hi", "approval-policy": "sometimes"}, want: "Failed to parse configuration for Codex tool: unknown variant `sometimes`, expected one of `untrusted`, `on-request`, `never`"},
		{tool: "codex", args: map[string]any{"prompt": "hi", "approval-policy": "on-failure"}, want: "Failed to parse configuration for Codex tool: unknown variant `on-failure`, expected one of `untrusted`, `on-request`, `never`"},
		{tool: "codex", args: map[string]any{"prompt": "hi", "approval_policy": "never"}, want: "Failed to parse configuration for Codex tool: unknown field `approval_policy`, expected one of `prompt`, `model`, `profile`, `cwd`, `approval-policy`, `sandbox`, `config`, `base-instructions`, `developer-instructions`, `compact-prompt`"},
		{tool: "codex", args: map[string]any{"prompt": "hi", "sandbox": "none"}, want: "Failed to parse configuration for Codex tool: unknown variant `none`, expected one of `read-only`, `workspace-write`, `danger-full-access`"},
		{tool: "codex", args: map[string]any{"prompt": 7}, want: "Failed to parse configuration for Codex tool: json: cannot unmarshal number into Go struct field CodexParams.prompt of type string"},
		{tool: "codex-reply", args: nil, want: "Failed to parse configuration for Codex tool: missing field `prompt`"},
		{tool: "codex-reply", args: map[string]any{"prompt": "hi"}, want: "Failed to parse thread_id: either threadId or conversationId must be provided"},
		{tool: "codex-reply", args: map[string]any{"threadId": "0199a213-81c0-7800-8aa1-bbab2a035a53"}, want: "Failed to parse configuration for Codex tool: missing field `prompt`"},
		{tool: "codex-reply", args: map[string]any{"threadId": "0199a213-81c0-7800-8aa1-bbab2a035a53", "prompt": "hi"}, want: "Session not found for thread_id: 0199a213-81c0-7800-8aa1-bbab2a035a53"},
		{tool: "codex-reply", args: map[string]any{"threadId": "nope", "prompt": "hi"}, want: "Failed to parse thread_id: invalid UUID length: 4"},
		{tool: "codex-nope", args: map[string]any{}, want: "Unknown tool 'codex-nope'"},
	}
	for _, tc := range cases {
		res := h.call(tc.tool, tc.args)
		if !res.IsError {
			t.Errorf("%s %v: not an error: %+v", tc.tool, tc.args, res)
			continue
		}
		if got := resultText(t, res); got != tc.want {
			t.Errorf("%s %v:\n got %q\nwant %q", tc.tool, tc.args, got, tc.want)
		}
	}
	if n := len(h.Model.Requests()); n != 0 {
		t.Errorf("%d model requests for bad input", n)
	}
}

func TestToolListing(t *testing.T) {
	h := newHarness(t, tk.ConfigOptions{}, nil)
	res, err := h.Client.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "tools.json", got)
	init := h.Client.InitializeResult()
	if init.ServerInfo.Name != "codex-mcp-server" || init.ServerInfo.Title != "Codex" {
		t.Errorf("serverInfo = %+v", init.ServerInfo)
	}
}

func TestModelParameterReachesTheModel(t *testing.T) {
	h := newHarness(t, tk.ConfigOptions{}, nil)
	h.Model.Enqueue(answer("ok"))
	res := h.call("codex", map[string]any{
		"prompt":                 "hi",
		"model":                  "gpt-5.6-terra",
		"developer-instructions": "Always answer in haiku.",
		"config":                 map[string]any{"model_reasoning_effort": "low"},
	})
	if res.IsError {
		t.Fatalf("error: %s", resultText(t, res))
	}
	reqs := h.Model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	var body struct {
		Model     string `json:"model"`
		Reasoning struct {
			Effort string `json:"effort"`
		} `json:"reasoning"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"gpt-5.6-terra", "low"}, []string{body.Model, body.Reasoning.Effort}); diff != "" {
		t.Errorf("model, effort (-want +got):\n%s", diff)
	}
	if dev := reqs[0].MessageTexts("developer"); !containsSub(dev, "Always answer in haiku.") {
		t.Errorf("developer messages = %q", dev)
	}
}

// Each call loads its own configuration on top of the server's, and every thread runs on
// the process's one host: two calls with different models build it once.
func TestCallsWithTheirOwnConfigurationShareOneHost(t *testing.T) {
	h := newHarness(t, tk.ConfigOptions{}, nil)
	h.Model.Enqueue(answer("one"))
	h.Model.Enqueue(answer("two"))
	for _, m := range []string{"gpt-5.6-terra", "gpt-5.4"} {
		if res := h.call("codex", map[string]any{"prompt": "hi", "model": m}); res.IsError {
			t.Fatalf("%s: %s", m, resultText(t, res))
		}
	}
	var models []string
	for _, r := range h.Model.Requests() {
		var body struct {
			Model string `json:"model"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		models = append(models, body.Model)
	}
	if diff := cmp.Diff([]string{"gpt-5.6-terra", "gpt-5.4"}, models); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	if hosts, _ := h.Factory.Built(); hosts != 1 {
		t.Errorf("%d hosts built, want 1", hosts)
	}
}
