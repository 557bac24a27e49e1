package e2e

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// appServerScenarios run against our binary and Codex 0.169 with the same script; the
// notification sequences must match (methods, item types and statuses).
type appServerScenario struct {
	name     string
	approval string // with the read-only sandbox; default "never" with full access
	// usageGap names an engine difference in token_count events (not the app-server's).
	usageGap string
	// threadParams are added to thread/start's.
	threadParams map[string]any
	// config is added to the end of config.toml, inside its last table, [features].
	config func(t *testing.T) string
	script func() []tk.Response
	run    func(c *asClient, threadID string)
	// experimental initializes with the experimentalApi capability.
	experimental bool
	// last is the notification that ends the sequence (default turn/completed).
	last string
	// ignore are notifications left out of this scenario, each with the reason.
	ignore map[string]string
	// streamRetries and idleMS set the provider's stream_max_retries (default 0) and
	// stream_idle_timeout_ms (default Codex's).
	streamRetries, idleMS int
}

var appServerScenarios = []appServerScenario{
	{name: "streamed message", script: func() []tk.Response {
		return []tk.Response{tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_1", "Hel", "lo"), tk.Completed(tk.Usage{Input: 10, Output: 2, Total: 12}))}
	}, run: func(c *asClient, id string) {
		c.turn(id, "hi")
	}},
	{name: "failed turn", script: func() []tk.Response {
		return []tk.Response{tk.Status(500), tk.Status(500), tk.Status(500)}
	}, run: func(c *asClient, id string) {
		c.turn(id, "fail")
	}},
	{name: "escalated command accepted", approval: "on-request", script: func() []tk.Response {
		return []tk.Response{tk.SSE(tk.Created(), tk.FunctionCall("call_1", "exec_command", `{"cmd":"touch marker","sandbox_permissions":"require_escalated","justification":"need it"}`), tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6})),
			answer("finished")}
	}, run: func(c *asClient, id string) {
		c.answer = func(rpcMsg) any { return map[string]any{"decision": "accept"} }
		c.turn(id, "touch")
	}},
	{name: "patch declined", approval: "on-request", script: func() []tk.Response {
		return []tk.Response{patchCall("call_2", "a.txt"), answer("patched")}
	}, run: func(c *asClient, id string) {
		c.answer = func(rpcMsg) any { return map[string]any{"decision": "decline"} }
		c.turn(id, "patch")
	}},
	{name: "interrupted", script: func() []tk.Response {
		return []tk.Response{tk.Stall(3, tk.Created(), tk.AssistantMessageStream("msg_1", "thinking"), tk.Completed(tk.Usage{}))}
	}, run: func(c *asClient, id string) {
		turn := c.turn(id, "slow")
		c.until("item/agentMessage/delta")
		c.mustCall("turn/interrupt", map[string]any{"threadId": id, "turnId": turn}, nil)
	}},
	{name: "web search", script: func() []tk.Response {
		started := map[string]any{"type": "web_search_call", "id": "ws_0001", "status": "in_progress"}
		done := map[string]any{"type": "web_search_call", "id": "ws_0001", "status": "completed",
			"action": map[string]any{"type": "search", "query": "golang generics tutorial"}}
		return []tk.Response{tk.SSE(tk.Created(),
			tk.Raw("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": started}),
			tk.Raw("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": done}),
			tk.AssistantMessageStream("msg_1", "Found it."), tk.Completed(tk.Usage{Input: 10, Output: 5, Total: 15}))}
	}, run: func(c *asClient, id string) {
		c.turn(id, "search")
	}},
	{name: "cut stream", script: func() []tk.Response {
		return []tk.Response{tk.Cut(2, tk.Created(), tk.AssistantMessageStream("msg_1", "partial"), tk.Completed(tk.Usage{}))}
	}, run: func(c *asClient, id string) {
		c.turn(id, "cut")
	}},
	{name: "cut stream retried", streamRetries: 2, script: func() []tk.Response {
		return []tk.Response{cutMidMessage(), retriedAnswer()}
	}, run: func(c *asClient, id string) {
		c.turn(id, "cut")
	}},
	{name: "stalled stream retried", streamRetries: 2, idleMS: 300, script: func() []tk.Response {
		return []tk.Response{stallMidMessage(), retriedAnswer()}
	}, run: func(c *asClient, id string) {
		c.turn(id, "stall")
	}},
	{name: "cut before the message retried", streamRetries: 2, script: func() []tk.Response {
		return []tk.Response{tk.Cut(1, messageThenCompleted()...), retriedAnswer()}
	}, run: func(c *asClient, id string) {
		c.turn(id, "cut")
	}},
	{name: "stalled before any event retried", streamRetries: 2, idleMS: 300, script: func() []tk.Response {
		return []tk.Response{tk.Stall(0, messageThenCompleted()...), retriedAnswer()}
	}, run: func(c *asClient, id string) {
		c.turn(id, "stall")
	}},
	{name: "reasoning cut retried", streamRetries: 2, script: func() []tk.Response {
		return []tk.Response{reasoningCut(), reasoningRetried()}
	}, run: func(c *asClient, id string) {
		c.turn(id, "cut")
	}},
	{name: "message never finished", script: func() []tk.Response {
		evs := tk.AssistantMessageStream("msg_1", "Hel", "lo")
		return []tk.Response{tk.SSE(tk.Created(), evs[:len(evs)-1], tk.Completed(tk.Usage{Input: 10, Output: 2, Total: 12}))}
	}, run: func(c *asClient, id string) {
		c.turn(id, "hi")
	}},
	{name: "patch applied", script: func() []tk.Response {
		return []tk.Response{patchCall("call_3", "b.txt"), answer("patched")}
	}, run: func(c *asClient, id string) {
		c.turn(id, "patch")
	}},
	{name: "untrusted safe command", approval: "on-request", threadParams: map[string]any{"approvalPolicy": "untrusted"}, script: func() []tk.Response {
		return []tk.Response{tk.SSE(tk.Created(), tk.FunctionCall("call_4", "exec_command", `{"cmd":"echo hi"}`), tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6})),
			answer("done")}
	}, run: func(c *asClient, id string) {
		c.turn(id, "echo")
	}},
	{name: "untrusted command accepted", approval: "on-request", threadParams: map[string]any{"approvalPolicy": "untrusted"}, script: func() []tk.Response {
		return []tk.Response{tk.SSE(tk.Created(), tk.FunctionCall("call_5", "exec_command", `{"cmd":"touch marker"}`), tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6})),
			answer("done")}
	}, run: func(c *asClient, id string) {
		c.answer = func(rpcMsg) any { return map[string]any{"decision": "accept"} }
		c.turn(id, "touch")
	}},
	{name: "legacy feature name", config: func(*testing.T) string { return "codex_hooks = true" }, script: func() []tk.Response {
		return []tk.Response{answer("hi")}
	}, run: func(c *asClient, id string) {
		c.turn(id, "hi")
	}},
	{name: "rerouted model", script: func() []tk.Response {
		r := answer("hi")
		r.Header = map[string]string{"OpenAI-Model": "gpt-5.4"}
		return []tk.Response{r}
	}, run: func(c *asClient, id string) {
		c.turn(id, "hi")
	}},
	{name: "mcp tool call", config: func(t *testing.T) string {
		return fmt.Sprintf("\n[mcp_servers.ts]\ncommand = %q\n", mcpTestServer(t))
	}, script: func() []tk.Response {
		return callThenAnswer(namespacedCall("call_6", "mcp__ts", "echo", `{"text":"hi"}`))
	}, run: func(c *asClient, id string) {
		awaitMcpReady(c)
		c.turn(id, "echo")
	}},
	{name: "background terminal cleaned", experimental: true, last: "item/completed",

		script: func() []tk.Response {
			return []tk.Response{tk.SSE(tk.Created(), tk.FunctionCall("call_7", "exec_command", `{"cmd":"sleep 30","yield_time_ms":200}`), tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6})),
				answer("left it running")}
		}, run: func(c *asClient, id string) {
			c.turn(id, "sleep")
			c.until("turn/completed") // the command is still running
			c.mustCall("thread/backgroundTerminals/clean", map[string]any{"threadId": id}, nil)
		}},
	{name: "terminal input", script: func() []tk.Response {
		return stdinScript(`{"cmd":"read x; echo got:$x","yield_time_ms":300,"tty":true}`, `"chars":"hi\n","yield_time_ms":500`)
	}, run: func(c *asClient, id string) {
		c.turn(id, "type")
	}},
	{name: "terminal poll", script: func() []tk.Response {
		return stdinScript(`{"cmd":"sleep 1; echo done","yield_time_ms":100}`, `"chars":"","yield_time_ms":3000`)
	}, run: func(c *asClient, id string) {
		c.turn(id, "wait")
	}},
	{name: "compacted", script: func() []tk.Response {
		return []tk.Response{answer("first"), answer("SUMMARY")}
	}, run: func(c *asClient, id string) {
		c.turn(id, "hi")
		c.until("turn/completed")
		c.mustCall("thread/compact/start", map[string]any{"threadId": id}, nil)
	}},
	{name: "loaded thread archived", last: "thread/archived", script: func() []tk.Response {
		return []tk.Response{answer("hi")}
	}, run: func(c *asClient, id string) {
		c.turn(id, "hi")
		c.until("turn/completed")
		c.mustCall("thread/name/set", map[string]any{"threadId": id, "name": "named"}, nil)
		c.mustCall("thread/archive", map[string]any{"threadId": id}, nil)
	}},
	{name: "settings changed", experimental: true,

		script: func() []tk.Response { return []tk.Response{answer("a"), answer("b")} },
		run: func(c *asClient, id string) {
			turn := func(effort string) {
				c.mustCall("turn/start", map[string]any{"threadId": id, "input": []map[string]any{{"type": "text", "text": "x"}}, "effort": effort}, nil)
			}
			turn("low")
			c.until("turn/completed")
			turn("low") // no change: no notification
		}},
	{name: "unknown config key", config: func(*testing.T) string { return "\n[not_a_codex_table]\nx = 1" }, script: func() []tk.Response {
		return []tk.Response{answer("hi")}
	}, run: func(c *asClient, id string) {
		c.turn(id, "hi")
	}},
	{name: "under-development feature", config: func(*testing.T) string { return "default_mode_request_user_input = true" }, script: func() []tk.Response {
		return []tk.Response{answer("hi")}
	}, run: func(c *asClient, id string) {
		c.turn(id, "hi")
	}},
	{name: "model without metadata", threadParams: map[string]any{"model": "zzz-model"}, script: func() []tk.Response {
		return []tk.Response{answer("a"), answer("b")}
	}, run: func(c *asClient, id string) {
		c.turn(id, "one")
		c.until("turn/completed")
		c.mustCall("turn/start", map[string]any{"threadId": id, "input": []map[string]any{{"type": "text", "text": "two"}}, "model": "gpt-5.5"}, nil)
	}},
	{name: "loaded thread deleted", last: "thread/deleted", script: func() []tk.Response {
		return []tk.Response{answer("hi")}
	}, run: func(c *asClient, id string) {
		c.turn(id, "hi")
		c.until("turn/completed")
		c.mustCall("thread/delete", map[string]any{"threadId": id}, nil)
	}},
	{name: "unsubscribed and resumed", script: func() []tk.Response {
		return []tk.Response{answer("one"), answer("two")}
	}, run: func(c *asClient, id string) {
		c.turn(id, "one")
		c.until("turn/completed")
		c.mustCall("thread/unsubscribe", map[string]any{"threadId": id}, nil)
		c.mustCall("thread/resume", map[string]any{"threadId": id}, nil) // still loaded: Codex keeps it
		c.turn(id, "two")
	}},
	{name: "forked", script: func() []tk.Response {
		return []tk.Response{answer("one"), answer("two")}
	}, run: func(c *asClient, id string) {
		c.turn(id, "one")
		c.until("turn/completed")
		var fork struct {
			Thread struct {
				ID string `json:"id"`
			} `json:"thread"`
		}
		c.mustCall("thread/fork", map[string]any{"threadId": id}, &fork)
		c.turn(fork.Thread.ID, "two")
	}},
	{name: "resumed without turns", script: func() []tk.Response {
		return []tk.Response{answer("one"), answer("two")}
	}, run: func(c *asClient, id string) {
		c.turn(id, "one")
		c.until("turn/completed")
		c.mustCall("thread/resume", map[string]any{"threadId": id, "excludeTurns": true}, nil)
		c.turn(id, "two")
	}},
	{name: "mcp tool call asked", approval: "on-request", config: func(t *testing.T) string {
		return fmt.Sprintf("\n[mcp_servers.ts]\ncommand = %q\n", mcpTestServer(t))
	}, script: func() []tk.Response {
		return callThenAnswer(namespacedCall("call_6", "mcp__ts", "echo", `{"text":"hi"}`))
	}, run: func(c *asClient, id string) {
		awaitMcpReady(c)
		c.answer = func(m rpcMsg) any {
			if m.Method == "mcpServer/elicitation/request" {
				return map[string]any{"action": "accept", "content": map[string]any{}}
			}
			return map[string]any{"decision": "accept"}
		}
		c.turn(id, "echo")
	}},
	{name: "mcp tool call declined", approval: "on-request", config: func(t *testing.T) string {
		return fmt.Sprintf("\n[mcp_servers.ts]\ncommand = %q\n", mcpTestServer(t))
	}, script: func() []tk.Response {
		return callThenAnswer(namespacedCall("call_6", "mcp__ts", "echo", `{"text":"hi"}`))
	}, run: func(c *asClient, id string) {
		awaitMcpReady(c)
		c.answer = func(m rpcMsg) any { return map[string]any{"action": "decline"} }
		c.turn(id, "echo")
	}},
	{name: "user shell command", run: func(c *asClient, id string) {
		c.mustCall("thread/shellCommand", map[string]any{"threadId": id, "command": "echo hi"}, nil)
	}},
}

// ignoredMethods are notifications of Codex features this implementation does not have.
var ignoredMethods = map[string]bool{}

// codexEnvironmentNote reports Codex's note that its own sandbox helper (bubblewrap) is not
// installed on this machine: about Codex's installation, not the session.
func codexEnvironmentNote(m rpcMsg) bool {
	return m.Method == "configWarning" && strings.Contains(string(m.Params), "bubblewrap")
}

// Codex 0.169's sequence for each scenario is recorded in testdata/codex_appserver_sequences.json
// (regenerate with `GOCODEX_REFERENCE_CODEX=$(../shared/tools/reference-codex) go test ./e2e
// -run TestAppServerMatchesReference -record-appserver-sequences`); where the reference binary is
// installed the test also runs it live.
var recordSequences = flag.Bool("record-appserver-sequences", false, "rewrite testdata/codex_appserver_sequences.json from the reference binary")

const sequencesFile = "testdata/codex_appserver_sequences.json"

// recordedFrom171 are the scenarios whose recording is Codex 0.171's (the server follows
// 0.171's schema; the others did not change from 0.169): recorded with
// GOCODEX_REFERENCE_CODEX_171 and compared live with it. 0.171 added environmentId to the
// MCP elicitation request.
var recordedFrom171 = map[string]bool{"mcp tool call asked": true, "mcp tool call declined": true}

// runAppServerScenario returns what the server sent from thread/start to the turn's
// turn/completed: each notification's method with its item's type and status, the thread's or
// turn's status; server requests as "request:" and their method.
func runAppServerScenario(t *testing.T, bin string, sc appServerScenario) []string {
	e := newEnv(t)
	co := tk.ConfigOptions{RequestMaxRetries: tk.Int(1), StreamMaxRetries: tk.Int(sc.streamRetries)}
	if sc.idleMS > 0 {
		co.StreamIdleTimeoutMS = tk.Int(sc.idleMS)
	}
	if sc.approval != "" {
		co.ApprovalPolicy, co.SandboxMode = sc.approval, "read-only"
	}
	path := tk.WriteConfig(t, e.CodexHome, e.Model.URL(), co)
	if sc.config != nil {
		appendFile(t, path, sc.config(t)+"\n")
	}
	if sc.script != nil {
		e.Model.Enqueue(sc.script()...)
	}
	if sc.experimental {
		e.capabilities = map[string]any{"experimentalApi": true}
	}
	c, stop := e.startAppServerOf(bin)
	defer stop()
	c.keepRequests = true
	var res struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	var msgs []rpcMsg
	c.traced = &msgs
	tp := map[string]any{"cwd": e.Workdir}
	for k, v := range sc.threadParams {
		tp[k] = v
	}
	c.mustCall("thread/start", tp, &res)
	c.until("thread/started")
	sc.run(c, res.Thread.ID)
	c.until(sc.lastMethod())
	var seq []string
	for _, m := range msgs {
		if _, skip := sc.ignore[m.Method]; skip || ignoredMethods[m.Method] {
			continue
		}
		if codexEnvironmentNote(m) {
			continue
		}
		s := m.Method
		if m.ID != nil {
			// A server request shows its params' keys in order and the decisions it offers.
			s = "request:" + s + "(" + strings.Join(topLevelKeys(m.Params), ",") + ")"
			if d, ok := params(m)["availableDecisions"]; ok {
				b, _ := json.Marshal(d)
				s += string(b)
			}
		}
		p := params(m)
		if it, ok := p["item"].(map[string]any); ok {
			s += ":" + it["type"].(string)
			if st, ok := it["status"].(string); ok {
				s += ":" + st
			}
		}
		if st, ok := p["status"].(map[string]any); ok {
			s += ":" + st["type"].(string)
		}
		if tr, ok := p["turn"].(map[string]any); ok {
			s += ":" + tr["status"].(string)
		}
		seq = append(seq, s)
	}
	return seq
}

func TestAppServerMatchesReference(t *testing.T) {
	ref := os.Getenv("GOCODEX_REFERENCE_CODEX")
	recorded := map[string][]string{}
	if data, err := os.ReadFile(sequencesFile); err == nil {
		if err := json.Unmarshal(data, &recorded); err != nil {
			t.Fatalf("%s: %v", sequencesFile, err)
		}
	} else if !*recordSequences {
		t.Fatal(err)
	}
	if *recordSequences && ref == "" && reference171() == "" {
		t.Fatal("-record-appserver-sequences needs GOCODEX_REFERENCE_CODEX (and GOCODEX_REFERENCE_CODEX_171)")
	}
	for _, sc := range appServerScenarios {
		t.Run(sc.name, func(t *testing.T) {
			ref, version := ref, "0.169"
			if recordedFrom171[sc.name] {
				ref, version = reference171(), "0.171"
			}
			if *recordSequences {
				if ref == "" {
					t.Skipf("Codex %s is not installed: its recording stays", version)
				}
				recorded[sc.name] = runAppServerScenario(t, ref, sc)
				return
			}
			theirs, ok := recorded[sc.name]
			if !ok {
				t.Fatalf("no recording for %q in %s", sc.name, sequencesFile)
			}
			ours := runAppServerScenario(t, binary, sc)
			compareSequences(t, "codex "+version+" (recorded)", theirs, ours, sc)
			if ref != "" {
				live := runAppServerScenario(t, ref, sc)
				compareSequences(t, "codex "+version+" (live)", live, ours, sc)
			}
		})
	}
	if *recordSequences {
		data, err := json.MarshalIndent(recorded, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.FromSlash(sequencesFile), append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// lastMethod is the notification that ends the scenario's sequence.
func (sc appServerScenario) lastMethod() string {
	if sc.last != "" {
		return sc.last
	}
	return "turn/completed"
}

// compareSequences compares notification sequences, usage notifications in place, except
// where the scenario names an engine difference in usage reports: then they are left out.
func compareSequences(t *testing.T, who string, theirs, ours []string, sc appServerScenario) {
	t.Helper()
	if sc.usageGap != "" {
		ours, _ = splitUsage(ours)
		theirs, _ = splitUsage(theirs)
	}
	ours, theirs = threadStartSettled(ours), threadStartSettled(theirs)
	ours, theirs = declineSettled(ours), declineSettled(theirs)
	// How a process's output is cut into reads is the kernel's: runs of output deltas count
	// once; so does a status said twice in a row (Codex sometimes repeats notLoaded).
	ours, theirs = compactOutputDeltas(ours), compactOutputDeltas(theirs)
	if diff := cmp.Diff(theirs, ours); diff != "" {
		t.Errorf("notifications (-%s +ours):\n%s", who, diff)
	}
	if len(ours) == 0 || !strings.HasPrefix(ours[len(ours)-1], sc.lastMethod()) {
		t.Errorf("no %s at the end: %v", sc.lastMethod(), ours)
	}
}

// sessionStartNotes are what a thread's session says as it starts. Codex 0.169 sends them
// from the session's own task, racing its thread/started (seen on both sides of it from run
// to run): they are compared as if sent just after thread/started, in their own order.
var sessionStartNotes = map[string]bool{"deprecationNotice": true, "mcpServer/startupStatus/updated": true, "warning": true}

func threadStartSettled(seq []string) []string {
	started := slices.Index(seq, "thread/started")
	if started < 0 {
		return seq
	}
	var head, notes []string
	i := 0
	for ; i < len(seq); i++ {
		if i == started {
			continue
		}
		if sessionStartNotes[seq[i]] {
			notes = append(notes, seq[i])
			continue
		}
		if i > started {
			break
		}
		head = append(head, seq[i])
	}
	out := append(head, "thread/started")
	out = append(out, notes...)
	return append(out, seq[i:]...)
}

// declineSettled orders the two notifications that follow a declined command's
// serverRequest/resolved: Codex 0.169 sends the thread active again and the item completed
// as declined from two tasks, in either order from run to run (both seen when recording).
func declineSettled(seq []string) []string {
	out := slices.Clone(seq)
	for i := 0; i+2 < len(out); i++ {
		if out[i] == "serverRequest/resolved" && out[i+1] == "item/completed:commandExecution:declined" && out[i+2] == "thread/status/changed:active" {
			out[i+1], out[i+2] = out[i+2], out[i+1]
		}
	}
	return out
}

func compactOutputDeltas(seq []string) []string {
	var out []string
	for i, s := range seq {
		if (s == "item/commandExecution/outputDelta" || strings.HasPrefix(s, "thread/status/changed:")) && i > 0 && seq[i-1] == s {
			continue
		}
		out = append(out, s)
	}
	return out
}

func splitUsage(seq []string) ([]string, int) {
	var out []string
	n := 0
	for _, s := range seq {
		if s == "thread/tokenUsage/updated" || s == "account/rateLimits/updated" {
			n++
			continue
		}
		out = append(out, s)
	}
	return out, n
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// topLevelKeys lists a JSON object's keys in the order they were written.
func topLevelKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}

// stdinScript is an exec_command that keeps running, a write_stdin to its session (whose id
// the first tool output tells) with the given arguments, and an answer.
func stdinScript(command, write string) []tk.Response {
	usage := tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6})
	return []tk.Response{
		tk.SSE(tk.Created(), tk.FunctionCall("call_8", "exec_command", command), usage),
		tk.Replying(func(r tk.Request) tk.Response {
			out, _ := r.ToolOutput("call_8")
			id := "0"
			if m := regexp.MustCompile(`session ID (\d+)`).FindStringSubmatch(fmt.Sprint(out)); m != nil {
				id = m[1]
			}
			return tk.SSE(tk.Created(), tk.FunctionCall("call_9", "write_stdin", `{"session_id":`+id+`,`+write+`}`), usage)
		}),
		answer("done"),
	}
}

// awaitMcpReady waits until an MCP server reported it is up (or failed), looking first at what
// already arrived: Codex may say so before thread/started.
func awaitMcpReady(c *asClient) {
	up := func(m rpcMsg) bool {
		return m.Method == "mcpServer/startupStatus/updated" && params(m)["status"] != "starting"
	}
	if c.traced != nil && slices.ContainsFunc(*c.traced, up) {
		return
	}
	for {
		ms := c.until("mcpServer/startupStatus/updated")
		if up(ms[len(ms)-1]) {
			return
		}
	}
}
