package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// instantClock makes the client's retry sleeps free; the idle timer stays real.
type instantClock struct{}

func (instantClock) Sleep(ctx context.Context, d time.Duration) error { return ctx.Err() }
func (instantClock) AfterFunc(d time.Duration, f func()) model.Timer {
	return time.AfterFunc(d, f)
}

// hangGuard bounds every wait of a test so a bug fails it instead of hanging CI. It is not a
// timing assertion: nothing here should come close to it.
const hangGuard = 20 * time.Second

type harness struct {
	t      *testing.T
	srv    *testkit.Server
	mgr    *ThreadManager
	thread *Thread
}

type harnessOpts struct {
	cfg      func(*ThreadConfig)
	provider func(*model.ProviderInfo)
}

func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	srv := testkit.NewServer(t)
	retries := int64(2)
	p := model.ProviderInfo{Name: "mock", BaseURL: srv.BaseURL(), WireAPI: "responses", StreamMaxRetries: &retries, RequestMaxRetries: &retries}
	if o.provider != nil {
		o.provider(&p)
	}
	client, err := model.NewClient(model.ClientOptions{Provider: p, APIKey: "test-key", Clock: instantClock{}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := ThreadConfig{
		Model:          "test-model",
		Streamer:       client.Streamer(),
		Cwd:            t.TempDir(),
		ApprovalPolicy: protocol.ApprovalNever,
		SandboxPolicy:  protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess},
		Shell:          "bash",
		Timezone:       "Etc/UTC",
		ModelInfo:      ModelInfo{ContextWindow: 200000, Tools: tool.Options{ShellType: tools.ShellTypeDefault, PlanTool: true}},
		Now:            func() time.Time { return time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC) },
	}
	if o.cfg != nil {
		o.cfg(&cfg)
	}
	mgr := NewThreadManager(nil)
	th, err := mgr.StartThread(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, srv: srv, mgr: mgr, thread: th}
	t.Cleanup(h.shutdown)
	return h
}

// shutdown stops the thread and drains it, so no goroutine outlives the test.
func (h *harness) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	if err := h.mgr.Close(ctx); err != nil {
		h.t.Errorf("close: %v", err)
	}
}

func (h *harness) submit(op protocol.Op) string {
	h.t.Helper()
	id, err := h.thread.Submit(op)
	if err != nil {
		h.t.Fatalf("submit %s: %v", op.OpType(), err)
	}
	return id
}

func (h *harness) say(text string) string {
	return h.submit(protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput(text)}})
}

// until reads events until stop returns true for one, returning all read (that one
// included).
func (h *harness) until(stop func(protocol.EventMsg) bool) []protocol.Event {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	var out []protocol.Event
	for {
		ev, err := h.thread.NextEvent(ctx)
		if err != nil {
			h.t.Fatalf("next event after %v: %v", types(out), err)
		}
		out = append(out, ev)
		if stop(ev.Msg) {
			return out
		}
	}
}

func isType(typ string) func(protocol.EventMsg) bool {
	return func(m protocol.EventMsg) bool { return m.EventType() == typ }
}

// turnEnd matches the last event of a turn.
func turnEnd(m protocol.EventMsg) bool {
	switch m.(type) {
	case protocol.TurnCompleteEvent, protocol.TurnAbortedEvent:
		return true
	}
	return false
}

func types(evs []protocol.Event) []string {
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		out = append(out, e.Msg.EventType())
	}
	return out
}

// compact drops consecutive repeats of delta types, so coalescing does not change what a
// test compares.
func compact(ts []string) []string {
	var out []string
	for _, t := range ts {
		if strings.HasSuffix(t, "_delta") && len(out) > 0 && out[len(out)-1] == t {
			continue
		}
		out = append(out, t)
	}
	return out
}

func find[T protocol.EventMsg](evs []protocol.Event) (T, bool) {
	for _, e := range evs {
		if m, ok := e.Msg.(T); ok {
			return m, true
		}
	}
	var zero T
	return zero, false
}

// requestInput returns the `input` array of the i-th recorded request.
func (h *harness) requestInput(i int) []map[string]any {
	h.t.Helper()
	reqs := h.srv.Requests()
	if i >= len(reqs) {
		h.t.Fatalf("want request %d, have %d", i, len(reqs))
	}
	var body struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(reqs[i].Body, &body); err != nil {
		h.t.Fatal(err)
	}
	if h.thread.cfg.InstructionsField {
		return body.Input
	}
	// The base instructions lead the input as a developer message; tests look past them.
	if len(body.Input) == 0 || body.Input[0]["role"] != "developer" {
		h.t.Fatalf("request %d does not start with the base instructions", i)
	}
	return body.Input[1:]
}

// summarize turns an input array into one line per item for comparison.
func summarize(items []map[string]any) []string {
	var out []string
	for _, it := range items {
		switch it["type"] {
		case "message":
			var texts []string
			for _, c := range it["content"].([]any) {
				cm := c.(map[string]any)
				s, _ := cm["text"].(string)
				if i := strings.IndexByte(s, '\n'); i >= 0 {
					s = s[:i]
				}
				texts = append(texts, s)
			}
			out = append(out, fmt.Sprintf("%s: %s", it["role"], strings.Join(texts, " | ")))
		case "function_call":
			out = append(out, fmt.Sprintf("function_call %s %s", it["name"], it["call_id"]))
		case "custom_tool_call":
			out = append(out, fmt.Sprintf("custom_tool_call %s %s", it["name"], it["call_id"]))
		case "function_call_output", "custom_tool_call_output":
			out = append(out, fmt.Sprintf("%s %s: %v", it["type"], it["call_id"], it["output"]))
		default:
			out = append(out, fmt.Sprint(it["type"]))
		}
	}
	return out
}

// fakeTool is a scriptable handler.
type fakeTool struct {
	name   string
	handle func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error)
}

func (f fakeTool) Spec() tool.Spec {
	return tool.Spec(fmt.Sprintf(`{"type":"function","name":%q,"description":"fake","strict":false,"parameters":{"type":"object","properties":{}}}`, f.name))
}

func (f fakeTool) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	return f.handle(ctx, env, call)
}

var errBoom = errors.New("boom")

func regexpReplace(s, pattern, repl string) string {
	return regexp.MustCompile(pattern).ReplaceAllString(s, repl)
}
