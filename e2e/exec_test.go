package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

func answer(text string) tk.Response {
	return tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_1", text), tk.Completed(tk.Usage{Input: 10, Cached: 2, Output: 5, Total: 15}))
}

func TestExecPlainAnswer(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("Hello world"))
	r := e.run("", "exec", "--json", "hi")
	if r.Code != 0 {
		t.Fatalf("exit %d, stderr: %s", r.Code, r.Stderr)
	}
	lines := jsonl(t, r.Stdout)
	want := []string{"thread.started", "turn.started", "item.completed:agent_message", "turn.completed"}
	if diff := cmp.Diff(want, types(lines)); diff != "" {
		t.Fatalf("event sequence (-want +got):\n%s\n%s", diff, r.Stdout)
	}
	if got := lines[2]["item"].(map[string]any)["text"]; got != "Hello world" {
		t.Errorf("agent message = %v", got)
	}
	usage := lines[3]["usage"].(map[string]any)
	if usage["input_tokens"] != 10.0 || usage["cached_input_tokens"] != 2.0 || usage["output_tokens"] != 5.0 {
		t.Errorf("usage = %v", usage)
	}
	reqs := e.Model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	req := reqs[0]
	if got := req.Header.Get("Authorization"); got != "Bearer test-key" {
		t.Errorf("Authorization = %q", got)
	}
	threadID := lines[0]["thread_id"].(string)
	if req.JSON["prompt_cache_key"] != threadID {
		t.Errorf("prompt_cache_key = %v, want the thread id %s", req.JSON["prompt_cache_key"], threadID)
	}
	if got := req.Header.Get("originator"); got != "codex_exec" {
		t.Errorf("originator = %q", got)
	}
}

func TestExecHumanOutput(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("Hello world"))
	r := e.run("", "exec", "hi")
	if r.Code != 0 {
		t.Fatalf("exit %d, stderr: %s", r.Code, r.Stderr)
	}
	if r.Stdout != "Hello world\n" {
		t.Errorf("stdout = %q, want only the final message", r.Stdout)
	}
	for _, want := range []string{"workdir: ", "model: gpt-5.5", "user\nhi", "codex\nHello world", "tokens used"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
		}
	}
}

func TestExecShellCommandThenAnswer(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(
		tk.SSE(tk.Created(), tk.FunctionCall("call_1", "exec_command", `{"cmd":"echo from-shell"}`), tk.Completed(tk.Usage{Input: 20, Output: 3, Total: 23})),
		answer("done"),
	)
	r := e.run("", "exec", "--json", "run it")
	if r.Code != 0 {
		t.Fatalf("exit %d, stderr: %s", r.Code, r.Stderr)
	}
	lines := jsonl(t, r.Stdout)
	want := []string{"thread.started", "turn.started", "item.started:command_execution", "item.completed:command_execution", "item.completed:agent_message", "turn.completed"}
	if diff := cmp.Diff(want, types(lines)); diff != "" {
		t.Fatalf("event sequence (-want +got):\n%s\n%s", diff, r.Stdout)
	}
	item := lines[3]["item"].(map[string]any)
	if item["status"] != "completed" || item["exit_code"] != 0.0 || !strings.Contains(item["aggregated_output"].(string), "from-shell") {
		t.Errorf("command item = %v", item)
	}
	reqs := e.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	out := functionOutput(t, reqs[1].JSON, "call_1")
	if !strings.Contains(out, "Process exited with code 0") || !strings.Contains(out, "from-shell") {
		t.Errorf("tool output sent to the model:\n%s", out)
	}
}

// functionOutput finds the function_call_output for callID in a request body.
func functionOutput(t *testing.T, body map[string]any, callID string) string {
	t.Helper()
	for _, raw := range body["input"].([]any) {
		it := raw.(map[string]any)
		if it["type"] == "function_call_output" && it["call_id"] == callID {
			switch o := it["output"].(type) {
			case string:
				return o
			default:
				b, _ := json.Marshal(o)
				return string(b)
			}
		}
	}
	t.Fatalf("no function_call_output for %s in %v", callID, body["input"])
	return ""
}

func TestExecRetriesAfter500(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(tk.Status(500), answer("recovered"))
	r := e.run("", "exec", "--json", "hi")
	if r.Code != 0 {
		t.Fatalf("exit %d, stderr: %s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stdout, `"text":"recovered"`) {
		t.Errorf("stdout:\n%s", r.Stdout)
	}
	if n := len(e.Model.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestExecRetriesCutStream(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(
		tk.Cut(2, tk.Created(), tk.AssistantMessageStream("msg_1", "partial", " answer"), tk.Completed(tk.Usage{})),
		answer("whole answer"),
	)
	r := e.run("", "exec", "--json", "hi")
	if r.Code != 0 {
		t.Fatalf("exit %d, stderr: %s", r.Code, r.Stderr)
	}
	lines := jsonl(t, r.Stdout)
	var texts []string
	for _, l := range lines {
		if it, ok := l["item"].(map[string]any); ok && it["type"] == "agent_message" {
			texts = append(texts, it["text"].(string))
		}
	}
	if diff := cmp.Diff([]string{"whole answer"}, texts); diff != "" {
		t.Errorf("agent messages (-want +got):\n%s\n%s", diff, r.Stdout)
	}
	if n := len(e.Model.Requests()); n != 2 {
		t.Errorf("%d requests, want 2 (the cut one and its retry)", n)
	}
}

func TestExecPersistent500Fails(t *testing.T) {
	e := newEnv(t)
	one := 1
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{RequestMaxRetries: &one, StreamMaxRetries: &one})
	e.Model.SetDefault(tk.Status(500))
	r := e.run("", "exec", "--json", "hi")
	if r.Code != 1 {
		t.Fatalf("exit %d, want 1; stdout:\n%s", r.Code, r.Stdout)
	}
	lines := jsonl(t, r.Stdout)
	got := types(lines)
	if got[len(got)-1] != "turn.failed" {
		t.Fatalf("last event %q, want turn.failed:\n%s", got[len(got)-1], r.Stdout)
	}
	msg := lines[len(lines)-1]["error"].(map[string]any)["message"].(string)
	// Codex reports a persistent 500 as the provider's overload notice.
	if !strings.Contains(msg, "high demand") {
		t.Errorf("turn.failed message %q", msg)
	}
	if n := len(e.Model.Requests()); n < 2 {
		t.Errorf("%d requests: the 500 was not retried", n)
	}
}

func TestExecIdleStallIsRetried(t *testing.T) {
	e := newEnv(t)
	idle := 300
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{StreamIdleTimeoutMS: &idle})
	e.Model.Enqueue(tk.Stall(1, tk.Created()), answer("after the stall"))
	start := time.Now()
	r := e.run("", "exec", "--json", "hi")
	if r.Code != 0 {
		t.Fatalf("exit %d, stderr: %s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "after the stall") {
		t.Errorf("stdout:\n%s", r.Stdout)
	}
	t.Logf("stall recovered in %v", time.Since(start))
}

func TestExecIdleStallExhaustsRetries(t *testing.T) {
	e := newEnv(t)
	idle, retries := 200, 1
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{StreamIdleTimeoutMS: &idle, StreamMaxRetries: &retries})
	e.Model.SetDefault(tk.Stall(1, tk.Created()))
	r := e.run("", "exec", "--json", "hi")
	if r.Code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", r.Code, r.Stdout)
	}
	if !strings.Contains(r.Stdout, "idle timeout waiting for SSE") {
		t.Errorf("the failure does not say why:\n%s", r.Stdout)
	}
}

func TestExecRefusesOutsideGitRepo(t *testing.T) {
	e := newEnv(t)
	e.Workdir = t.TempDir() // not a repository
	r := e.run("", "exec", "hi")
	if r.Code != 1 || !strings.Contains(r.Stderr, "Not inside a trusted directory and --skip-git-repo-check was not specified.") {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Stderr)
	}
	e.Model.Enqueue(answer("ok"))
	if r := e.run("", "exec", "--skip-git-repo-check", "hi"); r.Code != 0 {
		t.Fatalf("with --skip-git-repo-check: exit %d, stderr %s", r.Code, r.Stderr)
	}
}

func TestExecPromptFromStdin(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("a"), answer("b"))
	if r := e.run("prompt on stdin\n", "exec", "--json"); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if r := e.run("extra data\n", "exec", "--json", "the prompt"); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	reqs := e.Model.Requests()
	if got := lastUserText(reqs[0].JSON); got != "prompt on stdin\n" {
		t.Errorf("stdin prompt = %q", got)
	}
	if got := lastUserText(reqs[1].JSON); got != "the prompt\n\n<stdin>\nextra data\n</stdin>" {
		t.Errorf("prompt with stdin = %q", got)
	}
}

func lastUserText(body map[string]any) string {
	var text string
	for _, raw := range body["input"].([]any) {
		it := raw.(map[string]any)
		if it["type"] == "message" && it["role"] == "user" {
			for _, c := range it["content"].([]any) {
				text = c.(map[string]any)["text"].(string)
			}
		}
	}
	return text
}

func TestExecMissingAPIKeyNamesVariable(t *testing.T) {
	e := newEnv(t)
	e.ExtraEnv = []string{"MOCK_API_KEY="}
	r := e.run("", "exec", "hi")
	if r.Code != 1 || !strings.Contains(r.Stderr, "MOCK_API_KEY") {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Stderr)
	}
}

func TestExecOutputSchemaAndLastMessage(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer(`{"answer":42}`))
	schemaPath := filepath.Join(t.TempDir(), "schema.json")
	writeFile(t, schemaPath, `{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"],"additionalProperties":false}`)
	last := filepath.Join(t.TempDir(), "last.txt")
	r := e.run("", "exec", "--json", "--output-schema", schemaPath, "-o", last, "-m", "gpt-5.5", "-c", `model_reasoning_effort="high"`, "answer")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if got := readFile(t, last); got != `{"answer":42}` {
		t.Errorf("-o file = %q", got)
	}
	body := e.Model.Requests()[0].JSON
	text, _ := json.Marshal(body["text"])
	for _, want := range []string{`"type":"json_schema"`, `"strict":true`, `"name":"codex_output_schema"`, `"additionalProperties":false`} {
		if !strings.Contains(string(text), want) {
			t.Errorf("text = %s, lacks %s", text, want)
		}
	}
	if effort := body["reasoning"].(map[string]any)["effort"]; effort != "high" {
		t.Errorf("reasoning effort = %v, want high from -c", effort)
	}
}

func TestExecMalformedConfigNamesPosition(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.CodexHome, "config.toml"), "model = \"gpt-5.5\"\nmodel_provider = [unclosed\n")
	r := e.run("", "exec", "hi")
	if r.Code != 1 || !strings.Contains(r.Stderr, "config.toml:2:") {
		t.Fatalf("exit %d, stderr %q: want an error naming config.toml:2", r.Code, r.Stderr)
	}
}

func TestExecAttachesImage(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("a pixel"))
	// A 1×1 PNG.
	png := []byte(onePixelPNG)
	img := filepath.Join(t.TempDir(), "pixel.png")
	if err := os.WriteFile(img, png, 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "exec", "--json", "-i", img, "what is this?")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	checkImageMessage(t, e.Model.Requests()[0], img, "what is this?")
}

// checkImageMessage checks the request's last user message is Codex 0.169's shape for one
// attached file then the text: the label naming the path, the image, a closing tag.
func checkImageMessage(t *testing.T, req tk.Request, path, text string) {
	t.Helper()
	in := req.Input()
	content, _ := json.Marshal(in[len(in)-1]["content"])
	var items []map[string]any
	_ = json.Unmarshal(content, &items)
	if len(items) != 4 || items[0]["text"] != `<image name=[Image #1] path="`+path+`">` ||
		items[1]["type"] != "input_image" || !strings.HasPrefix(fmt.Sprint(items[1]["image_url"]), "data:image/png;base64,") ||
		items[2]["text"] != "</image>" || items[3]["text"] != text {
		t.Errorf("the user message is not the image then the text: %.600s", content)
	}
}

func TestExecSendsAgentsMDAndEnvironment(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.CodexHome, "AGENTS.md"), "global rule")
	writeFile(t, filepath.Join(e.Workdir, "AGENTS.md"), "root rule")
	writeFile(t, filepath.Join(e.Workdir, "sub", "AGENTS.md"), "sub rule")
	writeFile(t, filepath.Join(e.Workdir, "sub", "AGENTS.override.md"), "sub override")
	e.Model.Enqueue(answer("ok"))
	sub := filepath.Join(e.Workdir, "sub")
	if r := e.run("", "exec", "--json", "-C", sub, "hi"); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	text := string(e.Model.Requests()[0].Body) // raw: Codex does not escape the angle brackets
	for _, want := range []string{"# AGENTS.md instructions for " + sub, "global rule", "root rule", "sub override", "<environment_context>", "<cwd>" + sub + "</cwd>"} {
		if !strings.Contains(text, want) {
			t.Errorf("request lacks %q", want)
		}
	}
	if strings.Contains(text, "sub rule") {
		t.Error("AGENTS.override.md should be preferred over AGENTS.md in the same folder")
	}
	if strings.Index(text, "root rule") > strings.Index(text, "sub override") {
		t.Error("project docs should run from the repository root down to cwd")
	}
}
