package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCodex0169Lines decodes event payloads written by the real Codex 0.169 binary (copied
// from rollouts it wrote against a local mock server) and checks that re-encoding gives the
// same bytes.
func TestCodex0169Lines(t *testing.T) {
	f, err := os.Open("testdata/codex0169/event_msgs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		line := bytes.Clone(sc.Bytes())
		n++
		msg, err := DecodeEventMsg(line)
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		got, err := MarshalEventMsg(msg)
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if !bytes.Equal(got, line) {
			t.Errorf("line %d re-encoded differently\n got: %s\nwant: %s", n, got, line)
		}
	}
	if n == 0 {
		t.Fatal("no lines")
	}
}

func TestDecodeLegacyForms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want any
		dec  func([]byte) (any, error)
	}{
		{"turn_started alias", `{"type":"turn_started","turn_id":"t","model_context_window":null}`, TurnStartedEvent{TurnID: "t"}, decEventMsg},
		{"turn_complete alias", `{"type":"turn_complete","last_agent_message":"x"}`, TurnCompleteEvent{LastAgentMessage: ptr("x")}, decEventMsg},
		{"task_started bare", `{"type":"task_started"}`, TurnStartedEvent{}, decEventMsg},
		{"sandbox mode tag", `{"mode":"workspace-write","writable_roots":["/a"],"network_access":true}`, SandboxPolicy{Mode: SandboxWorkspaceWrite, WritableRoots: []string{"/a"}, NetworkAccess: true}, decodeAs[SandboxPolicy]},
		{"sandbox camel", `{"type":"workspaceWrite","writableRoots":["/a"],"excludeSlashTmp":true}`, SandboxPolicy{Mode: SandboxWorkspaceWrite, WritableRoots: []string{"/a"}, ExcludeSlashTmp: true}, decodeAs[SandboxPolicy]},
		{"sandbox string", `"danger-full-access"`, SandboxPolicy{Mode: SandboxDangerFullAccess}, decodeAs[SandboxPolicy]},
		{"approval on-failure", `"on-failure"`, ApprovalOnFailure, decodeAs[AskForApproval]},
		{"approval reject object", `{"reject":{"sandbox_approval":true,"rules":false,"mcp_elicitations":true}}`, AskForApproval{Mode: ApprovalModeGranular, Granular: &GranularApproval{SandboxApproval: true, McpElicitations: true}}, decodeAs[AskForApproval]},
		{"decision denied", `"denied"`, ReviewDecision{Kind: DecisionDenied}, decodeAs[ReviewDecision]},
		{"file change externally tagged", `{"update":{"unified_diff":"d","move_path":null}}`, FileChange{Kind: FileUpdate, UnifiedDiff: "d"}, decodeAs[FileChange]},
		{"file change bare delete", `"delete"`, FileChange{Kind: FileDelete}, decodeAs[FileChange]},
		{"output object form", `{"type":"function_call_output","call_id":"c","output":{"content":"ok","success":true}}`, FunctionCallOutputItem{CallID: "c", Output: FunctionCallOutputPayload{Content: "ok", Success: ptr(true)}}, decodeItem},
		{"compaction_summary alias", `{"type":"compaction_summary","encrypted_content":"e"}`, CompactionItem{EncryptedContent: "e"}, decodeItem},
		{"message id kept", `{"type":"message","id":"msg_1","role":"assistant","content":[]}`, MessageItem{ID: "msg_1", Role: "assistant", Content: []ContentItem{}}, decodeItem},
		{"input text without elements", `{"type":"text","text":"hi"}`, TextInput("hi"), decodeAs[InputItem]},
		{"duration seconds", `{"type":"exec_command_end","call_id":"c","turn_id":"","command":[],"cwd":"","parsed_cmd":[],"stdout":"","stderr":"","aggregated_output":"","exit_code":1,"duration":1.5,"formatted_output":""}`, ExecCommandEndEvent{CallID: "c", Command: []string{}, ParsedCmd: []ParsedCommand{}, ExitCode: 1, Duration: Duration(1500000000)}, decEventMsg},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.dec([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpOpts); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func decEventMsg(b []byte) (any, error) { return DecodeEventMsg(b) }

func TestUnknownTypeNamesIt(t *testing.T) {
	tests := []struct {
		name, in, enum string
		dec            func([]byte) error
	}{
		{"event", `{"type":"frobnicate","x":1}`, "EventMsg", func(b []byte) error { _, err := DecodeEventMsg(b); return err }},
		{"op", `{"type":"frobnicate"}`, "Op", func(b []byte) error { _, err := DecodeOp(b); return err }},
		{"event in envelope", `{"id":"1","msg":{"type":"frobnicate"}}`, "EventMsg", func(b []byte) error { var e Event; return json.Unmarshal(b, &e) }},
		{"op in submission", `{"id":"1","op":{"type":"frobnicate"}}`, "Op", func(b []byte) error { var s Submission; return json.Unmarshal(b, &s) }},
		{"input item", `{"type":"frobnicate"}`, "InputItem", func(b []byte) error { var i InputItem; return json.Unmarshal(b, &i) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.dec([]byte(tc.in))
			var uv *UnknownVariantError
			if !errors.As(err, &uv) {
				t.Fatalf("got %v, want *UnknownVariantError", err)
			}
			if uv.Variant != "frobnicate" || uv.Enum != tc.enum {
				t.Errorf("got %+v", uv)
			}
			if !strings.Contains(err.Error(), "frobnicate") {
				t.Errorf("error %q does not name the type", err)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{
		``, `null`, `[]`, `{}`, `{"type":1}`, `{"type":"exec_approval","decision":"maybe"}`,
		`{"type":"user_turn","sandbox_policy":{"type":"nowhere"}}`,
		`{"type":"user_turn","approval_policy":"sometimes"}`,
		`{"type":"interrupt",`, `{"type":"shutdown"`, `{"type":"compact",}`, `{"type":"interrupt"}x`,
	} {
		if _, err := DecodeOp([]byte(in)); err == nil {
			t.Errorf("DecodeOp(%q) succeeded", in)
		}
	}
	if _, err := DecodeEventMsg([]byte(`{"type":"exec_command_end","duration":-1}`)); err == nil {
		t.Error("negative duration accepted")
	}
}

func TestTokenUsageHelpers(t *testing.T) {
	u := TokenUsage{InputTokens: 100, CachedInputTokens: 20, OutputTokens: 7, ReasoningOutputTokens: 3, TotalTokens: 107}
	if got := u.BlendedTotal(); got != 87 {
		t.Errorf("BlendedTotal = %d, want 87 (what codex exec prints as tokens used)", got)
	}
	if got := u.TokensInContextWindow(); got != 104 {
		t.Errorf("TokensInContextWindow = %d", got)
	}
	tests := []struct {
		total, window, want int64
	}{
		{0, 272000, 100},
		{12000, 272000, 100},
		{142000, 272000, 50},
		{272000, 272000, 0},
		{500000, 272000, 0},
		{1000, 12000, 0},
		{1000, 5000, 0},
	}
	for _, tc := range tests {
		got := TokenUsage{TotalTokens: tc.total}.PercentOfContextWindowRemaining(tc.window)
		if got != tc.want {
			t.Errorf("total %d window %d: got %d want %d", tc.total, tc.window, got, tc.want)
		}
	}
}

func TestPolicies(t *testing.T) {
	if !(SandboxPolicy{Mode: SandboxDangerFullAccess}).HasFullDiskWriteAccess() || (SandboxPolicy{}).HasFullDiskWriteAccess() {
		t.Error("HasFullDiskWriteAccess")
	}
	if (SandboxPolicy{Mode: SandboxWorkspaceWrite}).HasFullNetworkAccess() || !(SandboxPolicy{Mode: SandboxWorkspaceWrite, NetworkAccess: true}).HasFullNetworkAccess() {
		t.Error("HasFullNetworkAccess")
	}
	b, _ := json.Marshal(AskForApproval{})
	if string(b) != `"on-request"` {
		t.Errorf("zero approval = %s", b)
	}
	b, _ = json.Marshal(ReviewDecision{})
	if string(b) != `"denied"` {
		t.Errorf("zero decision = %s", b)
	}
	b, _ = json.Marshal(SandboxPolicy{})
	if string(b) != `{"type":"read-only"}` {
		t.Errorf("zero sandbox = %s", b)
	}
}

func TestMarshalDoesNotEscapeHTML(t *testing.T) {
	msg := UserInputOp{Items: []InputItem{TextInput("<environment_context> a && b")}}
	got, err := Marshal(Submission{ID: "1", Op: msg})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"id":"1","op":{"type":"user_input","items":[{"type":"text","text":"<environment_context> a && b","text_elements":[]}]}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
