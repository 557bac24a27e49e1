package chat

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/internal/tools/applypatch"
	"github.com/gocodex/gocodex/internal/tools/shell"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// instantClock makes retry sleeps free; the idle timer stays real.
type instantClock struct{}

func (instantClock) Sleep(ctx context.Context, d time.Duration) error { return ctx.Err() }
func (instantClock) AfterFunc(d time.Duration, f func()) model.Timer {
	return time.AfterFunc(d, f)
}

// A real engine turn over the chat wire: the model calls shell and the freeform apply_patch
// in parallel, the engine runs both (the patch lands on disk), and the next request carries
// the results as tool messages answering the assistant's tool calls.
func TestEngineTurnOverChatWire(t *testing.T) {
	srv := testkit.NewChatServer(t)
	c, err := New(model.ClientOptions{Provider: model.ProviderInfo{Name: "Mock", BaseURL: srv.BaseURL(), WireAPI: "chat"},
		APIKey: "sk-test", Clock: instantClock{}})
	if err != nil {
		t.Fatal(err)
	}
	patch := "*** Begin Patch\n*** Add File: hello.txt\n+hello from chat\n*** End Patch\n"
	patchArgs, _ := json.Marshal(map[string]string{"input": patch})
	srv.Enqueue(
		testkit.ChatSSE(testkit.ChatReasoning("Shell and patch."), testkit.ChatText("Working."),
			testkit.ChatToolCall(0, "call_sh", "shell"), testkit.ChatToolCall(1, "call_ap", "apply_patch"),
			testkit.ChatToolArgs(0, `{"command":["bash","-c",`), testkit.ChatToolArgs(1, string(patchArgs[:10])),
			testkit.ChatToolArgs(0, `"echo hi"]}`), testkit.ChatToolArgs(1, string(patchArgs[10:])),
			testkit.ChatFinish("tool_calls"), testkit.ChatUsage(testkit.Usage{Input: 100, Output: 20}), testkit.ChatDone()),
		testkit.ChatAnswer("Done.", testkit.Usage{Input: 150, Output: 5}))

	cwd := t.TempDir()
	mgr := agent.NewThreadManager(nil)
	th, err := mgr.StartThread(context.Background(), agent.ThreadConfig{
		Model:          "mock-model",
		Streamer:       c.Streamer(),
		Cwd:            cwd,
		ApprovalPolicy: protocol.ApprovalNever,
		SandboxPolicy:  protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess},
		Shell:          "bash",
		Timezone:       "Etc/UTC",
		ModelInfo: agent.ModelInfo{ContextWindow: 200000, ParallelToolCalls: true,
			Tools: tool.Options{ShellType: "default", ApplyPatchToolType: "freeform"}},
		ToolHandlers: map[string]tool.Handler{
			"shell":       shell.NewShell(&shell.Config{}),
			"apply_patch": applypatch.New(applypatch.Options{Freeform: true}),
		},
		Now: func() time.Time { return time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := mgr.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	if _, err := th.Submit(protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput("go")}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a hang guard, not a timing assertion
	defer cancel()
	var last string
	for {
		ev, err := th.NextEvent(ctx)
		if err != nil {
			t.Fatalf("next event: %v", err)
		}
		if m, ok := ev.Msg.(protocol.TurnCompleteEvent); ok {
			if m.LastAgentMessage != nil {
				last = *m.LastAgentMessage
			}
			break
		}
		if m, ok := ev.Msg.(protocol.ErrorEvent); ok {
			t.Fatalf("turn failed: %s", m.Message)
		}
	}
	if last != "Done." {
		t.Errorf("last agent message %q", last)
	}
	if b, err := os.ReadFile(filepath.Join(cwd, "hello.txt")); err != nil || string(b) != "hello from chat\n" {
		t.Errorf("patched file %q, %v", b, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var body request
	if err := json.Unmarshal(reqs[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	var calls []string
	results := map[string]string{}
	for _, m := range body.Messages {
		for _, tc := range m.ToolCalls {
			calls = append(calls, tc.ID+" "+tc.Function.Name)
		}
		// The reasoning of the turn that called tools goes back with it.
		if len(m.ToolCalls) > 0 && (m.ReasoningContent != "Shell and patch." || m.Content != "Working.") {
			t.Errorf("assistant message %+v", m)
		}
		if m.Role == "tool" {
			s, _ := m.Content.(string)
			results[m.ToolCallID] = s
		}
	}
	if strings.Join(calls, ",") != "call_sh shell,call_ap apply_patch" {
		t.Errorf("assistant tool calls %v", calls)
	}
	if !strings.Contains(results["call_sh"], "hi") || !strings.Contains(results["call_ap"], "hello.txt") {
		t.Errorf("tool results %q", results)
	}
}
