package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// The ACP face (`gocodex acp`, issue 32) driven by the official client SDK
// (@agentclientprotocol/sdk 2.4.0, installed by scripts/test.sh in e2e/acp) as an editor
// would: e2e/acp/run.mjs plays the editor, these tests script the model and judge from outside.

// acpReport is what run.mjs prints.
type acpReport struct {
	Initialize struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			LoadSession        bool            `json:"loadSession"`
			PromptCapabilities map[string]bool `json:"promptCapabilities"`
			McpCapabilities    map[string]bool `json:"mcpCapabilities"`
		} `json:"agentCapabilities"`
		AuthMethods []struct {
			ID string `json:"id"`
		} `json:"authMethods"`
	} `json:"initialize"`
	NewSession struct {
		SessionID string `json:"sessionId"`
		Modes     *struct {
			CurrentModeID  string `json:"currentModeId"`
			AvailableModes []struct {
				ID string `json:"id"`
			} `json:"availableModes"`
		} `json:"modes"`
	} `json:"newSession"`
	Phases             map[string]acpPhase `json:"phases"`
	PermissionRequests []struct {
		Phase    string         `json:"phase"`
		ToolCall map[string]any `json:"toolCall"`
		Options  []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	} `json:"permissionRequests"`
	FsCalls []struct {
		Method string `json:"method"`
		Path   string `json:"path"`
	} `json:"fsCalls"`
	List struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Cwd       string `json:"cwd"`
			Title     string `json:"title"`
		} `json:"sessions"`
	} `json:"list"`
	CancelMs float64                   `json:"cancelMs"`
	Errors   map[string]map[string]any `json:"errors"`
}

type acpPhase struct {
	Updates []map[string]any `json:"updates"`
	Result  map[string]any   `json:"result"`
	Error   map[string]any   `json:"error"`
	Ms      float64          `json:"ms"`
}

// acpScenario scripts the model for run.mjs's phases: a prompt that runs a command (approved
// once), edits notes.txt (approved) and answers; a prompt whose command is rejected; a prompt
// cancelled while it streams.
func acpScenario(e *env) {
	usage := tk.Completed(tk.Usage{Input: 30, Output: 4, Total: 34})
	patch := "*** Begin Patch\n*** Update File: notes.txt\n@@\n hello\n+world\n*** End Patch\n"
	e.Model.Enqueue(
		tk.SSE(tk.Created(), tk.FunctionCall("call_1", "exec_command", `{"cmd":"touch allowed.txt"}`), usage),
		tk.SSE(tk.Created(), tk.CustomToolCall("call_2", "apply_patch", patch), usage),
		tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_1", "All ", "done."), usage),
		tk.SSE(tk.Created(), tk.FunctionCall("call_3", "exec_command", `{"cmd":"touch rejected.txt"}`), usage),
		tk.Stall(3, tk.Created(), tk.AssistantMessageStream("msg_2", "Once upon", " a time")),
	)
}

// acpEnv is an env whose policy asks before every command and edit (untrusted) in the
// sandbox given, with notes.txt to edit.
func acpEnv(t *testing.T, sandbox string) *env {
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{ApprovalPolicy: "untrusted", SandboxMode: sandbox})
	if err := os.WriteFile(filepath.Join(e.Workdir, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

// acpDriver returns node and run.mjs, skipping (failing under CI) when the SDK is not installed.
func acpDriver(t *testing.T) (node, script string) {
	t.Helper()
	dir, _ := filepath.Abs("acp")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("@agentclientprotocol/sdk is not installed (run scripts/test.sh): %v", err)
		}
		t.Skip("@agentclientprotocol/sdk is not installed; scripts/test.sh installs it with npm")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	return node, filepath.Join(dir, "run.mjs")
}

// runACP runs run.mjs against agent (its argv) in e and decodes its report.
func runACP(t *testing.T, e *env, agent []string, extraEnv ...string) acpReport {
	t.Helper()
	node, script := acpDriver(t)
	argv, _ := json.Marshal(agent)
	cmd := exec.Command(node, script)
	cmd.Dir = filepath.Dir(script)
	cmd.Env = append(append(e.environ(), "ACP_AGENT="+string(argv), "ACP_CWD="+e.Workdir, "GOCODEX_LOG=debug"), extraEnv...)
	defer func() {
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(e.CodexHome, "log", "gocodex-acp.log"))
			t.Logf("gocodex-acp.log:\n%s", b)
		}
	}()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	timer := time.AfterFunc(40*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run.mjs: %v\nstdout: %s\nstderr: %s", err, out, stderr.String())
	}
	var r acpReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("run.mjs report: %v\n%s\nstderr: %s", err, out, stderr.String())
	}
	if os.Getenv("ACP_DEBUG") != "" {
		t.Logf("agent stderr:\n%s", stderr.String())
	}
	return r
}

// updateKinds are the sessionUpdate kinds of a phase, runs of the same kind of chunk and
// usage update counted once (how finely a text is cut is no difference).
func updateKinds(p acpPhase) []string {
	var out []string
	for _, u := range p.Updates {
		k, _ := u["sessionUpdate"].(string)
		if k == "tool_call" {
			k += ":" + str(u["kind"])
		}
		if n := len(out); n > 0 && out[n-1] == k && (strings.HasSuffix(k, "_chunk") || k == "usage_update") {
			continue
		}
		out = append(out, k)
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// findUpdate returns the first update of the phase that satisfies ok.
func findUpdate(p acpPhase, ok func(u map[string]any) bool) map[string]any {
	for _, u := range p.Updates {
		if ok(u) {
			return u
		}
	}
	return nil
}

func chunkText(p acpPhase, kind string) string {
	var b strings.Builder
	for _, u := range p.Updates {
		if u["sessionUpdate"] == kind {
			if c, ok := u["content"].(map[string]any); ok {
				b.WriteString(str(c["text"]))
			}
		}
	}
	return b.String()
}

// TestACPWithOfficialSDK: initialize, a new session, a prompt whose command is approved once
// and whose patch shows as a diff, a rejected command that does not run, a cancel mid-turn,
// the session loaded in a restarted agent with its history replayed, and bad input answered
// with JSON-RPC errors on a connection that stays usable.
func TestACPWithOfficialSDK(t *testing.T) {
	e := acpEnv(t, "workspace-write")
	acpScenario(e)
	r := runACP(t, e, []string{binary, "acp"})
	checkACPReport(t, e, r)
	if len(r.FsCalls) > 0 {
		t.Errorf("the client offered no fs methods, yet was asked: %v", r.FsCalls)
	}
}

// TestACPClientFS: a client that offers fs/read_text_file and fs/write_text_file is asked
// for the text an edit is shown against (the editor's buffer)
// and handed the file the patch wrote.
func TestACPClientFS(t *testing.T) {
	e := acpEnv(t, "workspace-write")
	acpScenario(e)
	r := runACP(t, e, []string{binary, "acp"}, "ACP_FS=1", "ACP_PHASES=prompt")
	if p := r.Phases["prompt"]; p.Error != nil || p.Result["stopReason"] != "end_turn" {
		t.Fatalf("prompt: %v %v", p.Result, p.Error)
	}
	notes := filepath.Join(e.Workdir, "notes.txt")
	var calls []string
	for _, c := range r.FsCalls {
		calls = append(calls, c.Method+" "+c.Path)
	}
	joined := strings.Join(calls, "\n")
	if !strings.Contains(joined, "fs/read_text_file "+notes) || !strings.Contains(joined, "fs/write_text_file "+notes) {
		t.Errorf("fs calls = %v, want a read and a write of %s", calls, notes)
	}
	if b, _ := os.ReadFile(notes); string(b) != "hello\nworld\n" {
		t.Errorf("notes.txt = %q", b)
	}
}

func checkACPReport(t *testing.T, e *env, r acpReport) {
	t.Helper()
	// initialize
	if r.Initialize.ProtocolVersion != 1 || !r.Initialize.AgentCapabilities.LoadSession ||
		!r.Initialize.AgentCapabilities.PromptCapabilities["image"] || !r.Initialize.AgentCapabilities.PromptCapabilities["embeddedContext"] ||
		!r.Initialize.AgentCapabilities.McpCapabilities["http"] {
		t.Errorf("initialize = %+v", r.Initialize)
	}
	var methods []string
	for _, m := range r.Initialize.AuthMethods {
		methods = append(methods, m.ID)
	}
	if strings.Join(methods, ",") != "chatgpt,codex-api-key,openai-api-key" {
		t.Errorf("authMethods = %v", methods)
	}
	// session/new: the session is a thread, with the presets as modes and the commands.
	if r.NewSession.SessionID == "" || r.NewSession.Modes == nil || len(r.NewSession.Modes.AvailableModes) != 3 {
		t.Errorf("session/new = %+v", r.NewSession)
	}
	if findUpdate(r.Phases["new"], func(u map[string]any) bool { return u["sessionUpdate"] == "available_commands_update" }) == nil {
		t.Errorf("no available_commands_update after session/new: %v", updateKinds(r.Phases["new"]))
	}

	// The first prompt: the command ran once approved, the patch came as a diff, the answer.
	p := r.Phases["prompt"]
	if p.Error != nil || p.Result["stopReason"] != "end_turn" {
		t.Fatalf("prompt: %v %v\nupdates: %v", p.Result, p.Error, updateKinds(p))
	}
	if _, err := os.Stat(filepath.Join(e.Workdir, "allowed.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(e.Workdir, "notes.txt")); string(b) != "hello\nworld\n" {
		t.Errorf("notes.txt = %q, want the patch applied", b)
	}
	exec := findUpdate(p, func(u map[string]any) bool { return u["sessionUpdate"] == "tool_call" && u["kind"] == "execute" })
	if exec == nil || !strings.Contains(str(exec["title"]), "touch allowed.txt") || exec["rawInput"] == nil {
		t.Errorf("command tool_call = %v", exec)
	}
	done := findUpdate(p, func(u map[string]any) bool {
		return u["sessionUpdate"] == "tool_call_update" && u["status"] == "completed" && u["toolCallId"] == str(exec["toolCallId"])
	})
	if done == nil || done["rawOutput"] == nil || !strings.Contains(mustJSON(done["content"]), "```sh") {
		t.Errorf("command completion = %v", done)
	}
	edit := findUpdate(p, func(u map[string]any) bool { return u["sessionUpdate"] == "tool_call" && u["kind"] == "edit" })
	diff := mustJSON(edit["content"])
	if edit == nil || !strings.Contains(diff, `"type":"diff"`) || !strings.Contains(diff, filepath.Join(e.Workdir, "notes.txt")) ||
		!strings.Contains(diff, `"newText":"hello\nworld\n"`) {
		t.Errorf("edit tool_call = %v", edit)
	}
	if got := chunkText(p, "agent_message_chunk"); got != "All done." {
		t.Errorf("answer = %q", got)
	}
	var asked []string
	for _, q := range r.PermissionRequests {
		var opts []string
		for _, o := range q.Options {
			opts = append(opts, o.OptionID+"/"+o.Kind)
		}
		asked = append(asked, q.Phase+":"+str(q.ToolCall["kind"])+":"+strings.Join(opts, ","))
	}
	want := []string{
		"prompt:execute:approved/allow_once,approved-execpolicy-amendment/allow_always,abort/reject_once",
		"prompt:edit:approved/allow_once,approved-for-session/allow_always,abort/reject_once",
		"reject:execute:approved/allow_once,approved-execpolicy-amendment/allow_always,abort/reject_once",
	}
	if strings.Join(asked, "\n") != strings.Join(want, "\n") {
		t.Errorf("permission requests:\n%s\nwant:\n%s", strings.Join(asked, "\n"), strings.Join(want, "\n"))
	}

	// The rejected command did not run; rejecting aborts the turn, as Codex's "No, and tell
	// Codex what to do differently".
	rj := r.Phases["reject"]
	if rj.Error != nil || rj.Result["stopReason"] != "cancelled" {
		t.Errorf("rejected prompt: %v %v", rj.Result, rj.Error)
	}
	if _, err := os.Stat(filepath.Join(e.Workdir, "rejected.txt")); err == nil {
		t.Error("the rejected command ran")
	}

	// Cancel mid-turn.
	c := r.Phases["cancel"]
	if c.Error != nil || c.Result["stopReason"] != "cancelled" {
		t.Errorf("cancelled prompt: %v %v", c.Result, c.Error)
	}
	t.Logf("session/cancel → prompt resolved in %.0f ms", r.CancelMs)

	// session/list in the restarted agent lists the session, titled by its first message.
	listed := false
	for _, s := range r.List.Sessions {
		listed = listed || (s.SessionID == r.NewSession.SessionID && s.Title == "run the commands and edit the file")
	}
	if !listed {
		t.Errorf("session/list = %+v, want %s", r.List, r.NewSession.SessionID)
	}

	// session/load in a restarted agent replays the history before its answer.
	l := r.Phases["load"]
	if l.Error != nil {
		t.Fatalf("session/load: %v", l.Error)
	}
	if got := chunkText(l, "user_message_chunk"); !strings.Contains(got, "run the commands and edit the file") || !strings.Contains(got, "now run the other command") {
		t.Errorf("replayed user messages = %q", got)
	}
	if got := chunkText(l, "agent_message_chunk"); !strings.Contains(got, "All done.") {
		t.Errorf("replayed answer = %q", got)
	}
	if findUpdate(l, func(u map[string]any) bool { return u["kind"] == "execute" }) == nil ||
		findUpdate(l, func(u map[string]any) bool { return u["kind"] == "edit" }) == nil {
		t.Errorf("the replay lacks the tool calls: %v", updateKinds(l))
	}

	// Bad input: JSON-RPC errors, and the connection still answers.
	if code(r.Errors["parse"]) != -32700 || r.Errors["parse"]["id"] != nil {
		t.Errorf("malformed JSON → %v", r.Errors["parse"])
	}
	if code(r.Errors["unknown"]) != -32601 || !strings.Contains(mustJSON(r.Errors["unknown"]["error"]), "session/frobnicate") {
		t.Errorf("unknown method → %v", r.Errors["unknown"])
	}
	if code(r.Errors["badParams"]) != -32602 {
		t.Errorf("wrong params → %v", r.Errors["badParams"])
	}
	if r.Errors["stillUsable"]["result"] == nil {
		t.Errorf("after the errors initialize → %v", r.Errors["stillUsable"])
	}
}

func code(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	f, _ := e["code"].(float64)
	return int(f)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// adapterBinary is Zed's adapter over Codex (@zed-industries/codex-acp 0.16.0), installed by
// scripts/test.sh in e2e/acp/reference; "" when it is not.
func adapterBinary() string {
	matches, _ := filepath.Glob(filepath.Join("acp", "reference", "node_modules", "@zed-industries", "codex-acp-*", "bin", "codex-acp"))
	if len(matches) == 0 {
		return ""
	}
	p, _ := filepath.Abs(matches[0])
	return p
}

// TestACPMatchesAdapter runs the same script through Zed's adapter over Codex (the
// reference) and through gocodex: each phase's notifications from gocodex carry at least the
// kinds the adapter sends, in the same order. The differences are listed in the log.
func TestACPMatchesAdapter(t *testing.T) {
	adapter := adapterBinary()
	if adapter == "" {
		t.Skip("@zed-industries/codex-acp is not installed; scripts/test.sh installs it with npm in e2e/acp/reference")
	}
	// Codex's Linux sandbox needs bubblewrap, which a test machine may lack (its commands then
	// fail inside the adapter): both run with full access, the policy still asking.
	ref := acpEnv(t, "danger-full-access")
	acpScenario(ref)
	theirs := runACP(t, ref, []string{adapter})
	e := acpEnv(t, "danger-full-access")
	acpScenario(e)
	ours := runACP(t, e, []string{binary, "acp"})
	if os.Getenv("ACP_DEBUG") != "" {
		t.Logf("adapter report: %s", mustJSON(theirs))
	}
	t.Logf("session/cancel → prompt resolved: gocodex %.0f ms, adapter %.0f ms", ours.CancelMs, theirs.CancelMs)
	for _, name := range []string{"new", "prompt", "reject", "cancel", "load"} {
		want, got := updateKinds(theirs.Phases[name]), updateKinds(ours.Phases[name])
		t.Logf("%s:\n  adapter: %v\n  gocodex: %v", name, want, got)
		if missing := notInOrder(want, got); len(missing) > 0 {
			t.Errorf("%s: gocodex lacks %v of the adapter's updates (in order)", name, missing)
		}
		if r, o := theirs.Phases[name].Result["stopReason"], ours.Phases[name].Result["stopReason"]; r != o {
			t.Errorf("%s: stopReason %v, the adapter's %v", name, o, r)
		}
	}
}

// notInOrder returns the items of want that are not found in got in order (want is a
// subsequence of got when none is missing).
func notInOrder(want, got []string) []string {
	var missing []string
	i := 0
	for _, w := range want {
		j := i
		for j < len(got) && !sameUpdate(w, got[j]) {
			j++
		}
		if j == len(got) {
			missing = append(missing, w)
			continue
		}
		i = j + 1
	}
	return missing
}

// sameUpdate: a tool_call of the adapter's without a kind (its replayed commands) matches
// one of any kind.
func sameUpdate(want, got string) bool {
	return want == got || (want == "tool_call:" && strings.HasPrefix(got, "tool_call:"))
}

// TestACPFirstChunkBenchmark (GOCODEX_ACP_BENCH=1): from spawning the agent and sending
// initialize to the first agent_message_chunk of a one-message turn, gocodex against Zed's
// adapter over Codex, alternately on the same kind of scripted server; medians in the log.
func TestACPFirstChunkBenchmark(t *testing.T) {
	if os.Getenv("GOCODEX_ACP_BENCH") == "" {
		t.Skip("a benchmark: set GOCODEX_ACP_BENCH=1")
	}
	node, script := acpDriver(t)
	agents := map[string][]string{"gocodex": {binary, "acp"}}
	if a := adapterBinary(); a != "" {
		agents["codex-acp"] = []string{a}
	}
	for name, agent := range agents {
		e := acpEnv(t, "danger-full-access")
		e.Model.Loop(tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_1", "Hello", " there."), tk.Completed(tk.Usage{Input: 10, Output: 2, Total: 12})))
		argv, _ := json.Marshal(agent)
		cmd := exec.Command(node, filepath.Join(filepath.Dir(script), "bench.mjs"))
		cmd.Dir = filepath.Dir(script)
		cmd.Env = append(e.environ(), "ACP_AGENT="+string(argv), "ACP_CWD="+e.Workdir, "ACP_RUNS=15")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: bench.mjs: %v\n%s", name, err, out)
		}
		var r struct{ Ms []float64 }
		if err := json.Unmarshal(out, &r); err != nil || len(r.Ms) == 0 {
			t.Fatalf("%s: %v %s", name, err, out)
		}
		sorted := append([]float64(nil), r.Ms...)
		sort.Float64s(sorted)
		t.Logf("%s: initialize → first agent_message_chunk: median %.1f ms, min %.1f ms, max %.1f ms over %d runs",
			name, sorted[len(sorted)/2], sorted[0], sorted[len(sorted)-1], len(sorted))
	}
}

// TestACPClientMcpServers: the MCP servers the client names in session/new are connected for
// that session; a call of one of their tools shows as a tool call with its result.
func TestACPClientMcpServers(t *testing.T) {
	node, script := everythingServer(t)
	e := acpEnv(t, "workspace-write")
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{ApprovalPolicy: "never", SandboxMode: "workspace-write"})
	e.Model.Enqueue(callThenAnswer(namespacedCall("call_1", "mcp__everything", "echo", `{"message":"from the editor's server"}`))...)
	servers, _ := json.Marshal([]map[string]any{{"name": "everything", "command": node, "args": []string{script}, "env": []any{}}})
	r := runACP(t, e, []string{binary, "acp"}, "ACP_PHASES=prompt", "ACP_MCP="+string(servers))
	p := r.Phases["prompt"]
	if p.Error != nil || p.Result["stopReason"] != "end_turn" {
		t.Fatalf("prompt: %v %v", p.Result, p.Error)
	}
	done := findUpdate(p, func(u map[string]any) bool {
		return u["sessionUpdate"] == "tool_call_update" && u["toolCallId"] == "call_1"
	})
	if done == nil || done["status"] != "completed" || !strings.Contains(mustJSON(done["rawOutput"]), "Echo: from the editor's server") {
		t.Errorf("MCP tool call = %v\nupdates: %v", done, updateKinds(p))
	}
}

// TestACPLoadsCodexThread: session/load resumes a thread Codex wrote (0.171's item form) and
// replays it before its answer.
func TestACPLoadsCodexThread(t *testing.T) {
	e := acpEnv(t, "workspace-write")
	copyTree(t, filepath.Join("testdata", "cli_sessions", "codex_home", "sessions"), filepath.Join(e.CodexHome, "sessions"))
	r := runACP(t, e, []string{binary, "acp"}, "ACP_LOAD_ID=01a21eab-64ee-7f20-8385-de5e08c9c811", "ACP_PHASES=load")
	l := r.Phases["load"]
	if l.Error != nil {
		t.Fatalf("session/load: %v", l.Error)
	}
	if got := chunkText(l, "user_message_chunk"); !strings.Contains(got, "fix things") {
		t.Errorf("replayed user messages = %q (%v)", got, updateKinds(l))
	}
	if got := chunkText(l, "agent_message_chunk"); !strings.Contains(got, "First.") {
		t.Errorf("replayed answer = %q", got)
	}
}

// TestACPStartsBeforeSignIn: with the OpenAI provider and no credentials at all, the agent
// still answers initialize and session/new (an editor signs in through it afterwards).
func TestACPStartsBeforeSignIn(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.CodexHome, "config.toml"), []byte("model = \"gpt-5.5\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + mustJSON(e.Workdir) + `,"mcpServers":[]}}` + "\n"
	r := e.run(in, "acp")
	lines := jsonl(t, r.Stdout)
	var answered []string
	for _, l := range lines {
		if l["id"] != nil && l["result"] != nil {
			answered = append(answered, fmt.Sprint(l["id"]))
		}
	}
	if strings.Join(answered, ",") != "1,2" {
		t.Errorf("answers %v\nstdout: %s\nstderr: %s", answered, r.Stdout, r.Stderr)
	}
}
