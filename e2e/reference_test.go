package e2e

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// referenceBinary is the real Codex CLI 0.169 (../shared/tools/reference-codex installs it);
// scripts/test.sh exports its path when it can be installed.
func referenceBinary(t *testing.T) string {
	bin := os.Getenv("GOCODEX_REFERENCE_CODEX")
	if bin == "" {
		t.Skip("GOCODEX_REFERENCE_CODEX is not set (scripts/test.sh sets it when the reference Codex can be installed)")
	}
	return bin
}

// referenceScenarios are the exec scenarios compared with the reference binary.
var referenceScenarios = []struct {
	name    string
	retries int
	idleMS  int
	script  func() []tk.Response
	dflt    *tk.Response
}{
	{name: "plain answer", script: func() []tk.Response { return []tk.Response{answer("Hello world")} }},
	{name: "shell command then answer", script: func() []tk.Response {
		return []tk.Response{
			tk.SSE(tk.Created(), tk.FunctionCall("call_1", "exec_command", `{"cmd":"echo from-shell"}`), tk.Completed(tk.Usage{Input: 20, Output: 3, Total: 23})),
			answer("done"),
		}
	}},
	{name: "500 then success", retries: 2, script: func() []tk.Response { return []tk.Response{tk.Status(500), answer("recovered")} }},
	{name: "cut stream then success", retries: 2, script: func() []tk.Response {
		return []tk.Response{tk.Cut(2, tk.Created(), tk.AssistantMessageStream("msg_1", "partial"), tk.Completed(tk.Usage{})), answer("whole")}
	}},
	{name: "idle stall then success", retries: 2, idleMS: 300, script: func() []tk.Response {
		return []tk.Response{tk.Stall(1, tk.Created()), answer("after the stall")}
	}},
	{name: "web search", script: func() []tk.Response {
		started := map[string]any{"type": "web_search_call", "id": "ws_0001", "status": "in_progress"}
		done := map[string]any{"type": "web_search_call", "id": "ws_0001", "status": "completed",
			"action": map[string]any{"type": "search", "query": "golang generics tutorial"}}
		return []tk.Response{tk.SSE(tk.Created(),
			tk.Raw("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": started}),
			tk.Raw("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": done}),
			tk.AssistantMessageStream("msg_1", "Here is what I found."), tk.Completed(tk.Usage{Input: 10, Output: 5, Total: 15}))}
	}},
	{name: "persistent 500", retries: 1, dflt: &[]tk.Response{tk.Status(500)}[0], script: func() []tk.Response { return nil }},
}

// TestExecJSONMatchesReference runs each scenario through our binary and through Codex 0.169
// on the same script and compares the JSONL event sequences and shapes (ids, texts and
// numbers aside).
func TestExecJSONMatchesReference(t *testing.T) {
	ref := referenceBinary(t)
	for _, sc := range referenceScenarios {
		t.Run(sc.name, func(t *testing.T) {
			ours := runScenario(t, binary, sc.retries, sc.idleMS, sc.script(), sc.dflt)
			theirs := runScenario(t, ref, sc.retries, sc.idleMS, sc.script(), sc.dflt)
			if ours.Code != theirs.Code {
				t.Errorf("exit status: ours %d, reference %d", ours.Code, theirs.Code)
			}
			if diff := cmp.Diff(shapes(t, theirs.Stdout), shapes(t, ours.Stdout)); diff != "" {
				t.Errorf("JSONL differs from the reference (-reference +ours):\n%s\nours:\n%s\nreference:\n%s", diff, ours.Stdout, theirs.Stdout)
			}
		})
	}
}

func runScenario(t *testing.T, bin string, retries, idleMS int, script []tk.Response, dflt *tk.Response) result {
	e := newEnv(t)
	opts := tk.ConfigOptions{}
	if retries > 0 {
		opts.RequestMaxRetries, opts.StreamMaxRetries = &retries, &retries
	}
	if idleMS > 0 {
		opts.StreamIdleTimeoutMS = &idleMS
	}
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), opts)
	e.Model.Enqueue(script...)
	if dflt != nil {
		e.Model.SetDefault(*dflt)
	}
	saved := binary
	binary = bin
	defer func() { binary = saved }()
	return e.run("", "exec", "--json", "--skip-git-repo-check", "hi")
}

// shapes reduces JSONL to its comparable form: per line, every key with the JSON type of its
// value, and the literal values of "type" and "status".
func shapes(t *testing.T, out string) []string {
	var lines []string
	for _, l := range jsonl(t, out) {
		lines = append(lines, shape(l))
	}
	return lines
}

func shape(v any) string {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			if k == "type" || k == "status" {
				parts = append(parts, fmt.Sprintf("%s=%v", k, v[k]))
				continue
			}
			parts = append(parts, k+":"+shape(v[k]))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		if len(v) == 0 {
			return "[]"
		}
		return "[" + shape(v[0]) + "]"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}
