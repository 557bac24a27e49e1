package mcpserver_test

import (
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// BenchmarkCodexCall is one `codex` tool call end to end over in-memory MCP pipes:
// configuration load, a new thread, one scripted model turn on loopback, every event as a
// codex/event notification, and the result. Threads pile up until the session ends, so run
// it with a fixed count (-benchtime=200x).
func BenchmarkCodexCall(b *testing.B) {
	h := newHarness(b, tk.ConfigOptions{}, nil)
	b.ReportAllocs()
	for b.Loop() {
		h.Model.Enqueue(answer("ok"))
		if res := h.call("codex", map[string]any{"prompt": "hi"}); res.IsError {
			b.Fatalf("error: %s", resultText(b, res))
		}
		h.Wire.Events()
	}
}

// BenchmarkCodexReply is one turn on a running thread through `codex-reply`: the MCP and
// event-streaming overhead of a turn, with the model a loopback server.
func BenchmarkCodexReply(b *testing.B) {
	h := newHarness(b, tk.ConfigOptions{}, nil)
	h.Model.Enqueue(answer("ok"))
	threadID := structured(b, h.call("codex", map[string]any{"prompt": "hi"}))["threadId"]
	b.ReportAllocs()
	for b.Loop() {
		h.Model.Enqueue(answer("ok"))
		if res := h.call("codex-reply", map[string]any{"threadId": threadID, "prompt": "again"}); res.IsError {
			b.Fatalf("error: %s", resultText(b, res))
		}
		h.Wire.Events()
	}
}
