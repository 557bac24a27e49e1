package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
)

func TestDecisionOf(t *testing.T) {
	cases := []struct {
		result  string
		want    protocol.ReviewDecisionKind
		wantErr bool
	}{
		{result: `{"action":"accept"}`, want: protocol.DecisionApproved},
		{result: `{"action":"accept","content":{}}`, want: protocol.DecisionApproved},
		{result: `{"action":"decline"}`, want: protocol.DecisionDenied},
		{result: `{"action":"cancel"}`, want: protocol.DecisionAbort},
		{result: `{"action":"accept","content":{"decision":"approved_for_session"}}`, want: protocol.DecisionApprovedForSession},
		{result: `{"decision":"approved"}`, want: protocol.DecisionApproved},
		{result: `{"decision":"denied"}`, want: protocol.DecisionDenied},
		{result: `{"decision":"abort"}`, want: protocol.DecisionAbort},
		{result: `{"decision":{"approved_execpolicy_amendment":{"proposed_execpolicy_amendment":["ls"]}}}`, want: protocol.DecisionApprovedExecpolicyAmendment},
		// The decision wins over the action: it is Codex's own answer.
		{result: `{"action":"decline","decision":"approved"}`, want: protocol.DecisionApproved},
		// Anything unreadable denies.
		{result: `{"decision":"maybe"}`, want: protocol.DecisionDenied, wantErr: true},
		{result: `{"action":"shrug"}`, want: protocol.DecisionDenied, wantErr: true},
		{result: `{}`, want: protocol.DecisionDenied, wantErr: true},
		{result: `[]`, want: protocol.DecisionDenied, wantErr: true},
		{result: `not json`, want: protocol.DecisionDenied, wantErr: true},
	}
	for _, tc := range cases {
		d, err := decisionOf(json.RawMessage(tc.result))
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: err = %v, want error %v", tc.result, err, tc.wantErr)
		}
		if got := d.EffectiveKind(); got != tc.want {
			t.Errorf("%s: decision %s, want %s", tc.result, got, tc.want)
		}
	}
}

// FuzzDecisionOf: any answer yields a decision, and only a readable one approves.
func FuzzDecisionOf(f *testing.F) {
	for _, s := range []string{`{"action":"accept"}`, `{"decision":"approved"}`, `{"action":"accept","content":{"decision":"abort"}}`, `{"decision":{"denied":{"rejection":"no"}}}`, `null`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := decisionOf(json.RawMessage(s))
		if err != nil && d.IsApproved() {
			t.Fatalf("%q: unreadable answer approved: %+v", s, d)
		}
	})
}

// FuzzParseCodexParams: arguments never panic, and a success always has a prompt.
func FuzzParseCodexParams(f *testing.F) {
	for _, s := range []string{`{"prompt":"hi"}`, `{"prompt":"x","approval-policy":"never","sandbox":"read-only","config":{"a.b":1}}`, `{}`, `[]`, `{"prompt":null}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseCodexParams(json.RawMessage(s))
		if err == nil && p.Prompt == nil {
			t.Fatalf("%q: parsed without a prompt", s)
		}
		if _, _, err := parseReplyParams(json.RawMessage(s)); err == nil {
			var m struct{ Prompt *string }
			if json.Unmarshal([]byte(s), &m) != nil || m.Prompt == nil {
				t.Fatalf("%q: reply parsed without a prompt", s)
			}
		}
	})
}

func TestElicitationParamsWire(t *testing.T) {
	ref := callRef{threadID: "0199a213-81c0-7800-8aa1-bbab2a035a53", toolCallID: "7", eventID: "7"}
	reason := "needs <network>"
	exec := execParams(ref, protocol.ExecApprovalRequestEvent{
		CallID:    "call_1",
		TurnID:    "7",
		Command:   []string{"bash", "-lc", "echo 'a b' > out.txt"},
		Cwd:       "/work/repo",
		Reason:    &reason,
		ParsedCmd: []protocol.ParsedCommand{{Type: "unknown", Cmd: "echo 'a b' > out.txt"}},
	})
	patch := patchParams(ref, protocol.ApplyPatchApprovalRequestEvent{
		CallID:  "call_2",
		TurnID:  "7",
		Reason:  &reason,
		Changes: map[string]protocol.FileChange{"/work/repo/a.txt": {Kind: protocol.FileAdd, Content: "hello\n"}},
	})
	var got []byte
	for _, v := range []any{exec, patch} {
		b, err := protocol.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got = append(append(got, b...), '\n')
	}
	want := `{"message":"Allow Codex to run ` + "`bash -lc \\\"echo 'a b' > out.txt\\\"`" + ` in ` + "`/work/repo`" + `?","requestedSchema":{"type":"object","properties":{}},"threadId":"0199a213-81c0-7800-8aa1-bbab2a035a53","codex_elicitation":"exec-approval","codex_mcp_tool_call_id":"7","codex_event_id":"7","codex_call_id":"call_1","codex_command":["bash","-lc","echo 'a b' > out.txt"],"codex_cwd":"/work/repo","codex_parsed_cmd":[{"type":"unknown","cmd":"echo 'a b' > out.txt"}]}
{"message":"needs <network>\nAllow Codex to apply proposed code changes?","requestedSchema":{"type":"object","properties":{}},"threadId":"0199a213-81c0-7800-8aa1-bbab2a035a53","codex_elicitation":"patch-approval","codex_mcp_tool_call_id":"7","codex_event_id":"7","codex_call_id":"call_2","codex_reason":"needs <network>","codex_changes":{"/work/repo/a.txt":{"type":"add","content":"hello\n"}}}
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("elicitation params (-want +got):\n%s", diff)
	}
}

func TestEventParamsWire(t *testing.T) {
	msg := "<b>done</b>"
	ev := protocol.Event{ID: "3", Msg: protocol.AgentMessageEvent{Message: msg}}
	got, err := eventParams(eventMeta{RequestID: json.RawMessage(`3`), ThreadID: "t-1"}, ev)
	if err != nil {
		t.Fatal(err)
	}
	body, err := protocol.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"_meta":{"requestId":3,"threadId":"t-1"},` + string(body[1:])
	if string(got) != want {
		t.Errorf("params\n got %s\nwant %s", got, want)
	}
	var back struct {
		Meta eventMeta      `json:"_meta"`
		ID   string         `json:"id"`
		Msg  map[string]any `json:"msg"`
	}
	if err := json.Unmarshal(got, &back); err != nil || back.ID != "3" || back.Msg["message"] != msg {
		t.Errorf("params do not decode: %v %+v", err, back)
	}
}
