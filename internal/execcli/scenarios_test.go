package execcli

import (
	"encoding/json"
	"os"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// The scenarios replay, as EventMsg streams, the runs recorded from the real Codex 0.169
// binary against a local scripted model (testdata/codex0169): same prompts, commands,
// outputs and token counts, so our writers can be compared with its output.

const threadID = "01a20265-0000-7000-8000-000000000001"

type scenario struct {
	name   string
	cwd    string
	events []protocol.EventMsg
}

func ptr[T any](v T) *T { return &v }

type script struct {
	cwd    string
	events []protocol.EventMsg
	total  protocol.TokenUsage
	calls  int
}

func newScript(name string) *script {
	s := &script{cwd: "/tmp/mock/work-" + name}
	s.add(protocol.SessionConfiguredEvent{SessionID: threadID, Model: "gpt-5.5", Cwd: s.cwd},
		protocol.TurnStartedEvent{TurnID: "turn-1", ModelContextWindow: ptr[int64](258400)})
	return s
}

func (s *script) add(ev ...protocol.EventMsg) *script {
	s.events = append(s.events, ev...)
	return s
}

// response closes one model response: its usage is added to the thread's total.
func (s *script) response() *script {
	s.total = s.total.Add(protocol.TokenUsage{InputTokens: 100, CachedInputTokens: 20, OutputTokens: 7, ReasoningOutputTokens: 3, TotalTokens: 107})
	last := protocol.TokenUsage{InputTokens: 100, CachedInputTokens: 20, OutputTokens: 7, ReasoningOutputTokens: 3, TotalTokens: 107}
	return s.add(protocol.TokenCountEvent{Info: &protocol.TokenUsageInfo{TotalTokenUsage: s.total, LastTokenUsage: last, ModelContextWindow: ptr[int64](258400)}})
}

func (s *script) message(text string) *script {
	return s.add(protocol.AgentMessageDeltaEvent{Delta: text[:min(3, len(text))]},
		protocol.AgentMessageDeltaEvent{Delta: text[min(3, len(text)):]},
		protocol.AgentMessageEvent{Message: text})
}

func (s *script) reasoning(text string) *script {
	return s.add(protocol.AgentReasoningDeltaEvent{Delta: text}, protocol.AgentReasoningEvent{Text: text})
}

func (s *script) exec(cmd string, exit int, stdout, stderr string) *script {
	s.calls++
	id := "call_" + string(rune('0'+s.calls))
	argv := []string{"/bin/bash", "-lc", cmd}
	parsed := []protocol.ParsedCommand{{Type: "unknown", Cmd: cmd}}
	s.add(protocol.ExecCommandBeginEvent{CallID: id, TurnID: "turn-1", Command: argv, Cwd: s.cwd, ParsedCmd: parsed, Source: protocol.SourceAgent})
	if stdout != "" {
		s.add(protocol.ExecCommandOutputDeltaEvent{CallID: id, Stream: protocol.StreamStdout, Chunk: []byte(stdout)})
	}
	if stderr != "" {
		s.add(protocol.ExecCommandOutputDeltaEvent{CallID: id, Stream: protocol.StreamStderr, Chunk: []byte(stderr)})
	}
	return s.add(protocol.ExecCommandEndEvent{
		CallID: id, TurnID: "turn-1", Command: argv, Cwd: s.cwd, ParsedCmd: parsed, Source: protocol.SourceAgent,
		Stdout: stdout, Stderr: stderr, AggregatedOutput: stdout + stderr, ExitCode: exit,
		Duration: protocol.Duration(123 * time.Millisecond), FormattedOutput: stdout + stderr,
	})
}

func (s *script) complete(last string) scenario {
	s.add(protocol.TurnCompleteEvent{TurnID: "turn-1", LastAgentMessage: &last})
	return scenario{cwd: s.cwd, events: s.events}
}

func scenarios() []scenario {
	named := func(name string, sc scenario) scenario { sc.name = name; return sc }
	addHello := map[string]protocol.FileChange{"/tmp/mock/work-patch/hello.txt": {Kind: protocol.FileAdd, Content: "hello\n"}}
	seq := ""
	for i := 1; i <= 50; i++ {
		seq += itoa(i) + "\n"
	}
	failMsg := `{"error":{"message":"bad request from mock","type":"invalid_request_error"}}`
	fail := newScript("fail")
	fail.add(protocol.ErrorEvent{Message: failMsg, CodexErrorInfo: json.RawMessage(`"other"`)},
		protocol.TurnCompleteEvent{TurnID: "turn-1", Error: &protocol.TurnError{Message: failMsg, CodexErrorInfo: json.RawMessage(`"other"`)}})
	return []scenario{
		named("plain", newScript("plain").message("Hello there!").response().complete("Hello there!")),
		named("reason", newScript("reason").reasoning("**Thinking** about it").message("Final.").response().complete("Final.")),
		named("shell", newScript("shell").response().exec("echo hi; echo oops >&2", 0, "hi\n", "oops\n").message("Done.").response().complete("Done.")),
		named("shellfail", newScript("shellfail").response().exec("echo out; exit 3", 3, "out\n", "").message("Failed.").response().complete("Failed.")),
		named("empty", newScript("empty").response().exec("true", 0, "", "").message("Empty.").response().complete("Empty.")),
		named("long", newScript("long").response().exec("seq 1 50", 0, seq, "").message("Long.").response().complete("Long.")),
		named("multi", newScript("multi").response().exec("echo one", 0, "one\n", "").response().exec("echo two", 0, "two\n", "").
			reasoning("**Thinking** about it").message("Both.").response().complete("Both.")),
		named("quote", newScript("quote").response().exec(`echo "it's" a=b`, 0, "it's a=b\n", "").response().
			exec("ls ~x", 2, "", "ls: cannot access '~x': No such file or directory\n").response().
			exec("echo a,b.c_d+e:f@g%h/i-j", 0, "a,b.c_d+e:f@g%h/i-j\n", "").response().
			exec("echo \t\n", 0, "\n", "").message("Q.").response().complete("Q.")),
		named("patch", newScript("patch").response().add(
			protocol.PatchApplyBeginEvent{CallID: "call_patch", TurnID: "turn-1", AutoApproved: true, Changes: addHello},
			protocol.PatchApplyEndEvent{CallID: "call_patch", TurnID: "turn-1", Stdout: "Success. Updated the following files:\nA hello.txt\n", Success: true, Changes: addHello, Status: protocol.PatchCompleted},
		).message("Patched.").response().complete("Patched.")),
		named("websearch", newScript("websearch").add(
			protocol.WebSearchBeginEvent{CallID: "ws_1"},
			protocol.WebSearchEndEvent{CallID: "ws_1", Query: "weather today", Action: json.RawMessage(`{"type":"search","query":"weather today"}`)},
		).message("Sunny.").response().complete("Sunny.")),
		named("cut", newScript("cut").message("Partial answer").add(
			protocol.StreamErrorEvent{Message: "Reconnecting... 1/1", AdditionalDetails: ptr("stream disconnected before completion: stream closed before response.completed")},
		).message("Recovered.").response().complete("Recovered.")),
		named("fail", scenario{cwd: fail.cwd, events: fail.events}),
		named("warning", warningScenario()),
		named("fail_no_turn_error", scenario{cwd: fail.cwd, events: append(append([]protocol.EventMsg{}, fail.events[:len(fail.events)-1]...), protocol.TurnCompleteEvent{TurnID: "turn-1"})}),
		named("patch2", patch2Scenario()),
		named("stall", scenario{cwd: "/tmp/mock/work-stall", events: newScript("stall").add(
			protocol.AgentMessageDeltaEvent{Delta: "Hal"},
			protocol.TurnAbortedEvent{TurnID: "turn-1", Reason: protocol.AbortInterrupted},
		).events}),

		// Not recorded from Codex (the mock model cannot reach these tools there): pinned by
		// golden files only.
		named("plan", newScript("plan").add(
			protocol.PlanUpdateEvent{Explanation: ptr("why"), Plan: []protocol.PlanItem{{Step: "one", Status: protocol.PlanInProgress}, {Step: "two", Status: protocol.PlanPending}}},
			protocol.PlanUpdateEvent{Plan: []protocol.PlanItem{{Step: "one", Status: protocol.PlanCompleted}, {Step: "two", Status: protocol.PlanInProgress}}},
		).message("Planned.").response().complete("Planned.")),
		named("mcp", newScript("mcp").response().add(
			protocol.McpToolCallBeginEvent{CallID: "m1", Invocation: protocol.McpInvocation{Server: "docs", Tool: "lookup", Arguments: json.RawMessage(`{"q":"go"}`)}},
			protocol.McpToolCallEndEvent{CallID: "m1", Invocation: protocol.McpInvocation{Server: "docs", Tool: "lookup", Arguments: json.RawMessage(`{"q":"go"}`)},
				Duration: protocol.Duration(4 * time.Millisecond), Result: protocol.McpToolResult{Ok: json.RawMessage(`{"content":[{"type":"text","text":"found go"}],"structuredContent":{"hits":1}}`)}},
		).response().add(
			protocol.McpToolCallBeginEvent{CallID: "m2", Invocation: protocol.McpInvocation{Server: "docs", Tool: "lookup", Arguments: json.RawMessage(`{"q":"bad"}`)}},
			protocol.McpToolCallEndEvent{CallID: "m2", Invocation: protocol.McpInvocation{Server: "docs", Tool: "lookup", Arguments: json.RawMessage(`{"q":"bad"}`)},
				Duration: protocol.Duration(3 * time.Millisecond), Result: protocol.McpToolResult{Ok: json.RawMessage(`{"content":[{"type":"text","text":"no such word"}],"isError":true}`)}},
		).message("Looked.").response().response().complete("Looked.")),
		named("mcperr", newScript("mcperr").add(
			protocol.McpToolCallBeginEvent{CallID: "m1", Invocation: protocol.McpInvocation{Server: "docs", Tool: "search", Arguments: json.RawMessage(`{"q":"go"}`)}},
			protocol.McpToolCallEndEvent{CallID: "m1", Invocation: protocol.McpInvocation{Server: "docs", Tool: "search", Arguments: json.RawMessage(`{"q":"go"}`)},
				Duration: protocol.Duration(40 * time.Millisecond), Result: protocol.McpToolResult{Ok: json.RawMessage(`{"content":[{"type":"text","text":"found"}],"structuredContent":{"hits":1}}`)}},
			protocol.McpToolCallBeginEvent{CallID: "m2", Invocation: protocol.McpInvocation{Server: "docs", Tool: "fetch"}},
			protocol.McpToolCallEndEvent{CallID: "m2", Invocation: protocol.McpInvocation{Server: "docs", Tool: "fetch"}, Result: protocol.McpToolResult{Err: ptr("tool call timed out")}},
			protocol.WarningEvent{Message: "MCP server docs is slow"},
		).message("Looked.").response().complete("Looked.")),
		named("declined", newScript("declined").response().add(
			protocol.ExecCommandBeginEvent{CallID: "d1", TurnID: "turn-1", Command: []string{"rm", "-rf", "/"}, Cwd: "/tmp/mock/work-declined"},
			protocol.ExecCommandEndEvent{CallID: "d1", TurnID: "turn-1", Command: []string{"rm", "-rf", "/"}, Cwd: "/tmp/mock/work-declined", ExitCode: -1, Status: protocol.ExecDeclined, AggregatedOutput: "rejected by user"},
		).message("Stopped.").response().complete("Stopped.")),
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// warningScenario is "plain" with a model the catalog does not know: Codex warns before the
// turn starts.
func warningScenario() scenario {
	s := &script{cwd: "/tmp/mock/work-plain"}
	s.add(protocol.SessionConfiguredEvent{SessionID: threadID, Model: "my-custom-model", Cwd: s.cwd},
		protocol.WarningEvent{Message: "Model metadata for `my-custom-model` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."},
		protocol.TurnStartedEvent{TurnID: "turn-1"})
	return s.message("Hello there!").response().complete("Hello there!")
}

// patch2Scenario applies one patch touching four files (update, delete, add, update with a
// move), then one that fails verification (Codex emits no event for it).
func patch2Scenario() scenario {
	dir := "/tmp/mock/work-patch2/"
	changes := map[string]protocol.FileChange{
		dir + "a.txt": {Kind: protocol.FileUpdate, UnifiedDiff: "@@ -1 +1 @@\n-hello\n+world\n"},
		dir + "b.txt": {Kind: protocol.FileDelete, Content: "bye\n"},
		dir + "c.txt": {Kind: protocol.FileAdd, Content: "new\n"},
		dir + "d.txt": {Kind: protocol.FileUpdate, UnifiedDiff: "@@ -1 +1 @@\n-x\n+y\n", MovePath: ptr(dir + "e.txt")},
	}
	diff, err := os.ReadFile("testdata/scenario/patch2.diff")
	if err != nil {
		panic(err)
	}
	s := newScript("patch2").response()
	s.add(protocol.PatchApplyBeginEvent{CallID: "p1", TurnID: "turn-1", AutoApproved: true, Changes: changes},
		protocol.PatchApplyEndEvent{CallID: "p1", TurnID: "turn-1", Stdout: "Success.\n", Success: true, Changes: changes, Status: protocol.PatchCompleted},
		protocol.TurnDiffEvent{UnifiedDiff: string(diff)})
	return s.response().message("Patched2.").response().complete("Patched2.")
}
