package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/rollout"
	tk "github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type world struct {
	home, work string
	model      *tk.Server
	app        *App
}

func newWorld(t *testing.T, extra string) *world {
	t.Helper()
	w := &world{home: t.TempDir(), work: t.TempDir(), model: tk.NewServer(t)}
	tk.WriteConfig(t, w.home, w.model.URL(), tk.ConfigOptions{Extra: extra})
	env := func(k string) string {
		switch k {
		case "MOCK_API_KEY":
			return "test-key"
		case "CODEX_HOME":
			return w.home
		}
		return ""
	}
	cfg, _, err := config.Load(config.LoadOptions{CodexHome: w.home, Cwd: w.work, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Config: cfg, Getenv: env, Environ: func() []string { return nil }, Originator: "test_face"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	w.app = a
	return w
}

// turn runs one user turn on th and returns its events.
func turn(t *testing.T, th *agent.Thread, text string) []protocol.Event {
	t.Helper()
	if _, err := th.Submit(protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput(text)}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var evs []protocol.Event
	for {
		ev, err := th.NextEvent(ctx)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
		switch ev.Msg.(type) {
		case protocol.TurnCompleteEvent, protocol.TurnAbortedEvent:
			return evs
		}
	}
}

func shutdown(t *testing.T, th *agent.Thread) {
	t.Helper()
	th.Submit(protocol.ShutdownOp{})
	select {
	case <-th.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("thread did not shut down")
	}
}

func answer(text string) tk.Response {
	return tk.SSE(tk.Created(), tk.AssistantMessage("m", text), tk.Completed(tk.Usage{Input: 10, Output: 2, Total: 12}))
}

func TestThreadsAreRecordedUnlessEphemeral(t *testing.T) {
	w := newWorld(t, "")
	w.model.Enqueue(answer("recorded"), answer("not recorded"))
	th, err := w.app.StartThread(context.Background(), ThreadOptions{Source: "exec"})
	if err != nil {
		t.Fatal(err)
	}
	evs := turn(t, th, "hello")
	conf := evs[0].Msg.(protocol.SessionConfiguredEvent)
	want := filepath.Join(w.home, "sessions")
	if !strings.HasPrefix(conf.RolloutPath, want) || !strings.HasSuffix(conf.RolloutPath, th.ID()+".jsonl") {
		t.Errorf("rollout_path = %q", conf.RolloutPath)
	}
	shutdown(t, th)
	r, err := rollout.ReadFile(conf.RolloutPath)
	if err != nil {
		t.Fatal(err)
	}
	if r.Meta.ID != th.ID() || r.Meta.Originator != "test_face" || r.Meta.SourceString() != "exec" || r.Meta.ModelProvider != "mock" ||
		r.Meta.Cwd != w.work || r.Meta.BaseInstructions == nil || r.Meta.BaseInstructions.Text == "" {
		t.Errorf("session_meta = %+v", r.Meta)
	}

	eph, err := w.app.StartThread(context.Background(), ThreadOptions{Ephemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	evs = turn(t, eph, "hello")
	if p := evs[0].Msg.(protocol.SessionConfiguredEvent).RolloutPath; p != "" {
		t.Errorf("ephemeral thread reports rollout_path %q", p)
	}
	shutdown(t, eph)
	if _, _, err := rollout.Find(w.home, eph.ID()); err == nil {
		t.Error("the ephemeral thread has a rollout")
	}
}

func TestResumeCarriesIDHistoryUsageAndInstructions(t *testing.T) {
	w := newWorld(t, "")
	w.model.Enqueue(answer("first answer"), answer("second answer"))
	th, err := w.app.StartThread(context.Background(), ThreadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	turn(t, th, "first")
	shutdown(t, th)
	path, _, err := rollout.Find(w.home, th.ID())
	if err != nil {
		t.Fatal(err)
	}
	// A different base text in the rollout shows which one the resumed thread uses.
	data, _ := os.ReadFile(path)
	var b strings.Builder
	for i, line := range strings.SplitAfter(string(data), "\n") {
		if i == 0 {
			line = strings.Replace(line, `"base_instructions":{"text":"`, `"base_instructions":{"text":"RECORDED BASE. `, 1)
		}
		b.WriteString(line)
	}
	os.WriteFile(path, []byte(b.String()), 0o600)
	ro, err := rollout.Load(w.home, path)
	if err != nil {
		t.Fatal(err)
	}
	to := ThreadOptions{Resume: ro}
	resumed, err := w.app.StartThread(context.Background(), to)
	if err != nil {
		t.Fatal(err)
	}
	if resumed.ID() != th.ID() {
		t.Errorf("resumed id %s, want %s", resumed.ID(), th.ID())
	}
	evs := turn(t, resumed, "second")
	shutdown(t, resumed)
	req := w.model.Requests()[1]
	if got := req.MessageTexts("user"); got[len(got)-2] != "first" || got[len(got)-1] != "second" {
		t.Errorf("resumed request user messages = %q", got)
	}
	if dev := req.MessageTexts("developer"); len(dev) == 0 || !strings.HasPrefix(dev[0], "RECORDED BASE. ") {
		t.Errorf("base instructions not kept: %.60q", dev)
	}
	var tok protocol.TokenCountEvent
	for _, ev := range evs {
		if m, ok := ev.Msg.(protocol.TokenCountEvent); ok {
			tok = m
		}
	}
	if tok.Info == nil || tok.Info.TotalTokenUsage.TotalTokens != 24 {
		t.Errorf("token usage after resume = %+v (want the recorded 12 plus 12)", tok.Info)
	}
	after, err := rollout.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(after.Reconstruct().History); n < 5 {
		t.Errorf("rollout after the resumed turn has %d items", n)
	}
}

func TestMessageHistoryWired(t *testing.T) {
	w := newWorld(t, "")
	th, err := w.app.StartThread(context.Background(), ThreadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	th.Submit(protocol.AddToHistoryOp{Text: "kept"})
	shutdown(t, th)
	th2, err := w.app.StartThread(context.Background(), ThreadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ev, err := th2.NextEvent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conf := ev.Msg.(protocol.SessionConfiguredEvent)
	if conf.HistoryEntryCount != 1 || conf.HistoryLogID == 0 {
		t.Errorf("history in session_configured: %d entries, log %d", conf.HistoryEntryCount, conf.HistoryLogID)
	}
	shutdown(t, th2)
}
