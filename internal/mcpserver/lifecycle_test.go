package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

func TestPatchApprovalCarriesTheChanges(t *testing.T) {
	for _, action := range []string{"accept", "decline"} {
		t.Run(action, func(t *testing.T) {
			h := newHarness(t, tk.ConfigOptions{ApprovalPolicy: "untrusted"}, func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: action}, nil
			})
			patch := "*** Begin Patch\n*** Add File: hello.txt\n+hi <there>\n*** End Patch\n"
			h.Model.Enqueue(
				tk.SSE(tk.Created(), tk.CustomToolCall("call_p", "apply_patch", patch), tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6})),
				answer("patched"),
			)
			res := h.call("codex", map[string]any{"prompt": "add a file", "cwd": h.Workdir})
			if res.IsError || resultText(t, res) != "patched" {
				t.Fatalf("result = %+v", res)
			}
			el := h.Wire.Elicitations()
			if len(el) != 1 {
				t.Fatalf("%d elicitations, want 1", len(el))
			}
			p := el[0]
			path := filepath.Join(h.Workdir, "hello.txt")
			want := map[string]any{path: map[string]any{"type": "add", "content": "hi <there>\n"}}
			if p["codex_elicitation"] != "patch-approval" || p["codex_call_id"] != "call_p" || p["message"] != "Allow Codex to apply proposed code changes?" {
				t.Errorf("elicitation = %v", p)
			}
			if diff := cmp.Diff(want, p["codex_changes"]); diff != "" {
				t.Errorf("codex_changes (-want +got):\n%s", diff)
			}
			_, err := os.Stat(path)
			if applied := err == nil; applied != (action == "accept") {
				t.Errorf("patch applied = %v after %s", applied, action)
			}
		})
	}
}

// A call the client cancels interrupts its turn; the thread stays usable, and a reply to a
// thread that is still running is refused rather than interleaved.
func TestCancelledCallInterruptsAndBusyThreadIsRefused(t *testing.T) {
	h := newHarness(t, tk.ConfigOptions{}, nil)
	h.Model.Enqueue(tk.Stall(1, tk.Created(), tk.TextDelta("thinking…")), answer("back again"))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := h.Client.CallTool(ctx, &mcp.CallToolParams{Name: "codex", Arguments: map[string]any{"prompt": "think forever"}})
		done <- err
	}()
	threadID := ""
	deadline := time.After(30 * time.Second)
	for threadID == "" {
		select {
		case ev := <-h.Wire.events:
			if msgType(ev) == "task_started" {
				threadID, _ = ev["_meta"].(map[string]any)["threadId"].(string)
			}
		case <-deadline:
			t.Fatal("no task_started event")
		}
	}
	if _, err := h.Model.AwaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	busy := h.call("codex-reply", map[string]any{"threadId": threadID, "prompt": "hello?"})
	if !busy.IsError || resultText(t, busy) != "A Codex request is still running for this thread; wait for its response before replying." {
		t.Errorf("reply to a running thread = %+v", busy)
	}

	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call returned %v", err)
	}
	// The go-sdk client sends notifications/cancelled in the background; the server's
	// turn_aborted shows it arrived. A reply from then on waits for the wind-down (the
	// cancelled call may still hold the thread) and then runs.
	for aborted := false; !aborted; {
		select {
		case ev := <-h.Wire.events:
			aborted = msgType(ev) == "turn_aborted"
		case <-deadline:
			t.Fatal("no turn_aborted after the cancel")
		}
	}
	res := h.call("codex-reply", map[string]any{"threadId": threadID, "prompt": "are you there?"})
	if res.IsError || resultText(t, res) != "back again" {
		t.Fatalf("reply after cancel = %+v", res)
	}
}

// A client that leaves in the middle of a turn ends the session: Serve returns and no
// goroutine stays behind (goleak checks at the end of the package).
func TestClientLeavingMidTurnEndsTheSession(t *testing.T) {
	h := newHarness(t, tk.ConfigOptions{}, nil)
	h.Model.Enqueue(tk.Stall(1, tk.Created(), tk.TextDelta("…")))
	done := make(chan error, 1)
	go func() {
		_, err := h.Client.CallTool(context.Background(), &mcp.CallToolParams{Name: "codex", Arguments: map[string]any{"prompt": "long"}})
		done <- err
	}()
	if _, err := h.Model.AwaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	h.Wire.Kill()
	if err := <-done; err == nil {
		t.Error("the call survived its connection")
	}
	// newHarness's cleanup fails if Serve does not return.
}

// A client that cannot answer elicitations gets its commands denied, never a hung call.
func TestClientWithoutElicitationDenies(t *testing.T) {
	h := newHarness(t, tk.ConfigOptions{ApprovalPolicy: "untrusted"}, nil)
	h.Model.Enqueue(commandCall("call_1", "touch marker"), answer("could not"))
	res := h.call("codex", map[string]any{"prompt": "make a marker", "cwd": h.Workdir})
	if res.IsError || resultText(t, res) != "could not" {
		t.Fatalf("result = %+v", res)
	}
	if _, err := os.Stat(filepath.Join(h.Workdir, "marker")); err == nil {
		t.Error("the command ran without an approval")
	}
	out, _ := h.Model.Requests()[1].ToolOutput("call_1")
	if s, _ := out.(string); !strings.Contains(s, "rejected by user") {
		t.Errorf("model received %q", s)
	}
}

// A turn that fails ends the call with an error result that still names the thread, so the
// client can reply to it once the cause is fixed.
func TestFailedTurnIsAnErrorResultWithTheThread(t *testing.T) {
	h := newHarness(t, tk.ConfigOptions{RequestMaxRetries: tk.Int(0), StreamMaxRetries: tk.Int(0)}, nil)
	h.Model.Enqueue(tk.Status(400), answer("recovered"))
	res := h.call("codex", map[string]any{"prompt": "hi"})
	if !res.IsError {
		t.Fatalf("result = %+v", res)
	}
	text := resultText(t, res)
	sc := structured(t, res)
	if !strings.Contains(text, "scripted status 400") || sc["content"] != text || sc["threadId"] == "" {
		t.Errorf("text %q, structuredContent %v", text, sc)
	}
	if types := msgTypes(h.Wire.Events()); !contains(types, "error") || types[len(types)-1] != "task_complete" {
		t.Errorf("events = %v", types)
	}
	again := h.call("codex-reply", map[string]any{"threadId": sc["threadId"], "prompt": "retry"})
	if again.IsError || resultText(t, again) != "recovered" {
		t.Errorf("reply after a failed turn = %+v", again)
	}
}

// Calls run concurrently, each on its own thread, and each event names its own call.
func TestConcurrentCallsKeepTheirEventsApart(t *testing.T) {
	h := newHarness(t, tk.ConfigOptions{}, nil)
	const n = 3
	for range n {
		h.Model.Enqueue(answer("done"))
	}
	threads := make(chan string, n)
	for range n {
		go func() {
			res, err := h.Client.CallTool(t.Context(), &mcp.CallToolParams{Name: "codex", Arguments: map[string]any{"prompt": "in parallel"}})
			if err != nil || res.IsError {
				t.Errorf("call: %v %+v", err, res)
				threads <- ""
				return
			}
			threads <- structured(t, res)["threadId"].(string)
		}()
	}
	seen := map[string]bool{}
	for range n {
		seen[<-threads] = true
	}
	if len(seen) != n || seen[""] {
		t.Fatalf("thread ids %v, want %d distinct", seen, n)
	}
	// Every thread's events carry one request id, and no two threads share one.
	requestOf := map[string]any{}
	owner := map[string]string{}
	for _, ev := range h.Wire.Events() {
		meta := ev["_meta"].(map[string]any)
		th, _ := meta["threadId"].(string)
		rid := meta["requestId"]
		if prev, ok := requestOf[th]; ok && prev != rid {
			t.Errorf("thread %s has events of requests %v and %v", th, prev, rid)
		}
		requestOf[th] = rid
		key := fmt.Sprint(rid)
		if o, ok := owner[key]; ok && o != th {
			t.Errorf("request %v names threads %s and %s", rid, o, th)
		}
		owner[key] = th
	}
	if len(requestOf) != n {
		t.Errorf("events of %d threads, want %d", len(requestOf), n)
	}
}
