package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// wireConfig points the thread at a provider speaking wire on baseURL, its key in WIRE_KEY.
func wireConfig(t *testing.T, home, wire, baseURL string) {
	cfg := "model = \"gpt-5.5\"\nmodel_provider = \"scripted\"\n\n[model_providers.scripted]\nname = \"Scripted\"\n" +
		"base_url = \"" + baseURL + "\"\nwire_api = \"" + wire + "\"\nenv_key = \"WIRE_KEY\"\nrequest_max_retries = 1\nstream_max_retries = 1\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// execItems runs a turn and returns its exec --json lines with ids and numbers aside.
func execItems(t *testing.T, e *env) []string {
	r := e.run("", "exec", "--json", "--skip-git-repo-check", "-s", "danger-full-access", "make a file")
	if r.Code != 0 {
		t.Fatalf("exec: %+v", r)
	}
	var out []string
	for _, l := range jsonl(t, r.Stdout) {
		s := l["type"].(string)
		if it, ok := l["item"].(map[string]any); ok {
			s += " " + it["type"].(string)
			for _, k := range []string{"text", "command", "aggregated_output", "status"} {
				if v, ok := it[k].(string); ok {
					s += " " + k + "=" + strings.TrimSpace(v)
				}
			}
		}
		if u, ok := l["usage"].(map[string]any); ok {
			s += fmt.Sprintf(" usage=%v/%v", u["input_tokens"], u["output_tokens"])
		}
		if l["type"] != "thread.started" {
			out = append(out, s)
		}
	}
	return out
}

// The same scripted conversation (a command, then an answer, with usage) gives the same exec
// items on the Responses, Chat Completions and Anthropic wires.
func TestSameConversationOnEveryWire(t *testing.T) {
	const cmd = `{"cmd":"echo wired > out.txt && cat out.txt"}`
	results := map[string][]string{}

	e := newEnv(t)
	e.Model.Enqueue(
		tk.SSE(tk.Created(), tk.FunctionCall("call_1", "exec_command", cmd), tk.Completed(tk.Usage{Input: 20, Output: 5, Total: 25})),
		tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_1", "All ", "done."), tk.Completed(tk.Usage{Input: 30, Output: 4, Total: 34})))
	wireConfig(t, e.CodexHome, "responses", e.Model.BaseURL())
	e.ExtraEnv = append(e.ExtraEnv, "WIRE_KEY=k")
	results["responses"] = execItems(t, e)

	e = newEnv(t)
	chat := tk.NewChatServer(t)
	chat.Enqueue(
		tk.ChatSSE(tk.ChatToolCall(0, "call_1", "exec_command"), tk.ChatToolArgs(0, cmd[:10]), tk.ChatToolArgs(0, cmd[10:]),
			tk.ChatFinish("tool_calls"), tk.ChatUsage(tk.Usage{Input: 20, Output: 5, Total: 25}), tk.ChatDone()),
		tk.ChatSSE(tk.ChatText("All "), tk.ChatText("done."), tk.ChatFinish("stop"), tk.ChatUsage(tk.Usage{Input: 30, Output: 4, Total: 34}), tk.ChatDone()))
	wireConfig(t, e.CodexHome, "chat", chat.BaseURL())
	e.ExtraEnv = append(e.ExtraEnv, "WIRE_KEY=k")
	results["chat"] = execItems(t, e)
	if reqs := chat.Requests(); len(reqs) != 2 || reqs[1].Header.Get("Authorization") != "Bearer k" {
		t.Errorf("chat requests: %d", len(reqs))
	}

	e = newEnv(t)
	an := tk.NewAnthropicServer(t)
	an.Enqueue(
		tk.SSE(tk.AnthropicMessageStart("m1", tk.AnthropicUsage{InputTokens: 20}), tk.AnthropicToolUse(0, "call_1", "exec_command", cmd[:10], cmd[10:]),
			tk.AnthropicMessageDelta("tool_use", 5), tk.AnthropicMessageStop()),
		tk.SSE(tk.AnthropicMessageStart("m2", tk.AnthropicUsage{InputTokens: 30}), tk.AnthropicText(0, "All ", "done."),
			tk.AnthropicMessageDelta("end_turn", 4), tk.AnthropicMessageStop()))
	wireConfig(t, e.CodexHome, "anthropic", an.URL()+"/v1")
	e.ExtraEnv = append(e.ExtraEnv, "WIRE_KEY=k")
	results["anthropic"] = execItems(t, e)
	if reqs := an.Requests(); len(reqs) != 2 || reqs[1].Header.Get("X-Api-Key") != "k" {
		t.Errorf("anthropic requests: %d", len(reqs))
	}

	for _, wire := range []string{"chat", "anthropic"} {
		if diff := cmp.Diff(results["responses"], results[wire]); diff != "" {
			t.Errorf("%s items differ from the Responses wire (-responses +%s):\n%s", wire, wire, diff)
		}
	}
	if len(results["responses"]) < 4 {
		t.Errorf("items: %v", results["responses"])
	}
}

// On the Anthropic wire the instructions travel in the top-level system field, cached as a
// whole (the breakpoint on its last block), not as the first user message: the request the
// built binary sends starts its messages with the context, and its system holds the base
// instructions and the permissions.
func TestAnthropicInstructionsInSystem(t *testing.T) {
	e := newEnv(t)
	an := tk.NewAnthropicServer(t)
	an.Enqueue(tk.AnthropicAnswer("m1", "ok"))
	wireConfig(t, e.CodexHome, "anthropic", an.URL()+"/v1")
	e.ExtraEnv = append(e.ExtraEnv, "WIRE_KEY=k")
	if r := e.run("", "exec", "--skip-git-repo-check", "-s", "read-only", "hi"); r.Code != 0 {
		t.Fatalf("exec: %+v", r)
	}
	reqs := an.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	var body struct {
		System []struct {
			Text         string         `json:"text"`
			CacheControl map[string]any `json:"cache_control"`
		} `json:"system"`
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.System) < 2 || !strings.HasPrefix(body.System[0].Text, "You are") ||
		!strings.Contains(body.System[len(body.System)-1].Text+body.System[1].Text, "permissions") {
		t.Fatalf("system = %+v, want the base instructions then the permissions", body.System)
	}
	for i, b := range body.System {
		if cached := b.CacheControl["type"] == "ephemeral"; cached != (i == len(body.System)-1) {
			t.Errorf("system block %d: cache_control %v, want the breakpoint on the last block only", i, b.CacheControl)
		}
	}
	if len(body.Messages) == 0 || body.Messages[0].Role != "user" || len(body.Messages[0].Content) == 0 {
		t.Fatalf("messages = %+v", body.Messages)
	}
	first := body.Messages[0].Content[0].Text
	if strings.HasPrefix(first, "You are") || strings.Contains(first, "permissions") {
		t.Errorf("the first user message carries instructions: %.120q", first)
	}
}

// The built-in anthropic provider reads ANTHROPIC_API_KEY and names it when it is missing.
func TestAnthropicBuiltinProviderNeedsKey(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.CodexHome, "config.toml"), []byte("model = \"claude-sonnet-4-5\"\nmodel_provider = \"anthropic\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "exec", "--skip-git-repo-check", "hi")
	if r.Code == 0 || !strings.Contains(r.Stderr, "ANTHROPIC_API_KEY") {
		t.Errorf("exec without the key: %+v", r)
	}
}

// A thread started on one provider continues on another: resumed with -c model_provider=…,
// the next wire gets the whole history; Anthropic thinking from the first leg is not sent to
// the Responses API (which could not verify it), the rest is.
func TestThreadSwitchesProviderMidway(t *testing.T) {
	e := newEnv(t)
	an := tk.NewAnthropicServer(t)
	an.Enqueue(tk.SSE(tk.AnthropicMessageStart("m1", tk.AnthropicUsage{InputTokens: 10}),
		tk.AnthropicThinking(0, "sig-1", "let me think"), tk.AnthropicText(1, "FIRSTLEG"),
		tk.AnthropicMessageDelta("end_turn", 3), tk.AnthropicMessageStop()))
	cfg := "model = \"claude-sonnet-4-5\"\nmodel_provider = \"claude\"\n\n" +
		"[model_providers.claude]\nname = \"Claude\"\nbase_url = \"" + an.URL() + "/v1\"\nwire_api = \"anthropic\"\nenv_key = \"WIRE_KEY\"\n\n" +
		"[model_providers.oai]\nname = \"OAI\"\nbase_url = \"" + e.Model.BaseURL() + "\"\nwire_api = \"responses\"\nenv_key = \"WIRE_KEY\"\n"
	if err := os.WriteFile(filepath.Join(e.CodexHome, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	e.ExtraEnv = append(e.ExtraEnv, "WIRE_KEY=k")
	first := e.run("", "exec", "--json", "--skip-git-repo-check", "first question")
	if first.Code != 0 || !strings.Contains(first.Stdout, "FIRSTLEG") {
		t.Fatalf("first leg: %+v", first)
	}
	threadID := jsonl(t, first.Stdout)[0]["thread_id"].(string)
	rollouts, _ := filepath.Glob(filepath.Join(e.CodexHome, "sessions", "*", "*", "*", "*.jsonl"))
	if data, err := os.ReadFile(rollouts[0]); err != nil || !strings.Contains(string(data), "anthropic.thinking:sig-1") {
		t.Fatalf("the first leg's thinking is not in the rollout (%v)", err)
	}
	e.Model.Enqueue(answer("SECONDLEG"))
	// By id: --last lists only the current provider's threads, as Codex's does.
	r := e.run("", "exec", "--json", "--skip-git-repo-check", "-c", "model_provider=\"oai\"", "-m", "gpt-5.5", "resume", threadID, "second question")
	if r.Code != 0 || !strings.Contains(r.Stdout, "SECONDLEG") {
		t.Fatalf("second leg: %+v", r)
	}
	reqs := e.Model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d Responses requests", len(reqs))
	}
	body := string(reqs[0].Body)
	for _, want := range []string{"first question", "FIRSTLEG", "second question"} {
		if !strings.Contains(body, want) {
			t.Errorf("the Responses request lacks %q", want)
		}
	}
	if strings.Contains(body, "anthropic.thinking") || strings.Contains(body, "sig-1") {
		t.Errorf("Anthropic thinking was sent to the Responses API")
	}
}

// The built-in azure provider: the resource from AZURE_OPENAI_ENDPOINT, the deployment as the
// model, api-version in the query, the key in api-key, and store:true as Codex sends to Azure.
// Without the endpoint it says what to set.
func TestAzureBuiltinProvider(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.CodexHome, "config.toml"), []byte("model = \"my-deployment\"\nmodel_provider = \"azure\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e.run("", "exec", "--skip-git-repo-check", "hi"); r.Code == 0 || !strings.Contains(r.Stderr, "AZURE_OPENAI_ENDPOINT") {
		t.Errorf("without the endpoint: %+v", r)
	}
	e.ExtraEnv = append(e.ExtraEnv, "AZURE_OPENAI_ENDPOINT="+e.Model.URL(), "AZURE_OPENAI_API_KEY=az-key")
	e.Model.Enqueue(answer("FROMAZURE"))
	r := e.run("", "exec", "--skip-git-repo-check", "hi")
	if r.Code != 0 || !strings.Contains(r.Stdout, "FROMAZURE") {
		t.Fatalf("exec: %+v", r)
	}
	q := e.Model.Requests()[0]
	if q.Path != "/openai/responses" || q.Query != "api-version=2025-04-01-preview" || q.Header.Get("Api-Key") != "az-key" ||
		q.JSON["store"] != true || q.JSON["model"] != "my-deployment" {
		t.Errorf("request %s?%s api-key %q store %v model %v", q.Path, q.Query, q.Header.Get("Api-Key"), q.JSON["store"], q.JSON["model"])
	}
}
