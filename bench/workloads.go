package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// Sizes are the workload sizes of a mode (full or -quick).
type Sizes struct {
	Runs     int           // alternating runs of every workload
	Turns    int           // turns of the long session
	Threads  int           // concurrent threads in one app-server
	Deltas   int           // deltas per concurrent turn
	Gap      time.Duration // the model's pacing between deltas
	Rollouts int           // rollouts thread/list pages over
	Items    int           // items of the resumed thread
}

var (
	fullSizes  = Sizes{Runs: 5, Turns: 500, Threads: 50, Deltas: 20, Gap: 5 * time.Millisecond, Rollouts: 10000, Items: 10000}
	quickSizes = Sizes{Runs: 2, Turns: 12, Threads: 5, Deltas: 5, Gap: 2 * time.Millisecond, Rollouts: 60, Items: 200}
)

// Metrics are one run's figures, by metric key (see metricInfo).
type Metrics map[string]float64

// errSkip marks a subject a workload does not measure (the floor has no --version).
var errSkip = errors.New("not measured")

// Workload is one measured situation.
type Workload struct {
	Key   string
	Title string
	// Baseline names the baseline subject the "÷ floor" column divides by: the floor program
	// for turns, the hello-world for start-up.
	Baseline string
	// Prepare builds, once per subject, what the runs need (rollouts to list); may be nil.
	Prepare func(b *Bench, s Subject, sb Sandbox) error
	// Run measures one run of subject s in its sandbox.
	Run func(b *Bench, s Subject, sb Sandbox) (Metrics, error)
	// WarmUp runs it once, unmeasured, before the measured runs: the first start of a
	// program reads it from disk, which would be one run's figure and not the others'.
	WarmUp bool
}

// Bench is one suite run: the sizes, the model server and the subjects' sandboxes.
type Bench struct {
	Sizes   Sizes
	Model   *tk.Server // answers every request with a one-message answer
	Stamp   *stampServer
	TempDir string
	Log     func(format string, args ...any)
	// FloorBody is the request body gocodex sent for the one-message turn, which the floor
	// program sends too ("" until prepareExecTurn has captured it).
	FloorBody string
}

func answer(text string) tk.Response {
	return tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_1", text), tk.Completed(tk.Usage{Input: 10, Cached: 2, Output: 5, Total: 15}))
}

func usageMetrics(u Usage) Metrics {
	return Metrics{"wall_ms": ms(u.Wall), "cpu_ms": ms(u.CPU), "rss_mib": mib(u.PeakRSS)}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func mib(b int64) float64        { return float64(b) / (1 << 20) }

const execTimeout = 2 * time.Minute

var execArgs = []string{"exec", "--json", "--skip-git-repo-check"}

// workloads is the suite, in table order.
func workloads() []Workload {
	return []Workload{
		{Key: "version", Title: "`--version`", Baseline: Hello, Run: runVersion, WarmUp: true},
		{Key: "exec-turn", Title: "exec one-message turn", Baseline: Floor, Prepare: prepareExecTurn, Run: runExecTurn, WarmUp: true},
		{Key: "exec-tools", Title: "exec turn: 3 commands + a patch", Baseline: Floor, Run: runExecTools, WarmUp: true},
		{Key: "appserver-init", Title: "app-server spawn → initialize", Baseline: Hello, Run: runAppServerInit, WarmUp: true},
		{Key: "appserver-turn", Title: "app-server spawn → completed turn", Baseline: Floor, Run: runAppServerTurn, WarmUp: true},
		{Key: "threads", Title: "concurrent threads in one app-server", Run: runThreads},
		{Key: "session", Title: "long session (RSS growth)", Run: runSession},
		{Key: "list", Title: "`thread/list` over many rollouts", Prepare: prepareList, Run: runList},
		{Key: "resume", Title: "`thread/resume` of a long thread", Prepare: prepareResume, Run: runResume},
		{Key: "size", Title: "binary size", Baseline: Hello, Run: runSize},
	}
}

func onlyAgents(s Subject) bool { return s.Name == Gocodex || s.Name == Reference }

func runVersion(b *Bench, s Subject, sb Sandbox) (Metrics, error) {
	if s.Name == Floor {
		return nil, errSkip
	}
	args := []string{"--version"}
	if s.Name == Hello {
		args = nil
	}
	u, _, err := runOnce(sb, time.Minute, s.Bin, args...)
	if err != nil {
		return nil, err
	}
	return usageMetrics(u), nil
}

func runExecTurn(b *Bench, s Subject, sb Sandbox) (Metrics, error) {
	if s.Name == Hello {
		return nil, errSkip
	}
	args := append(append([]string(nil), execArgs...), "hi")
	if s.Name == Floor {
		args = []string{b.Model.BaseURL()}
		if b.FloorBody != "" {
			args = append(args, b.FloorBody)
		}
	}
	u, out, err := runOnce(sb, execTimeout, s.Bin, args...)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(string(out), "Hello world") {
		return nil, fmt.Errorf("%s: the answer is not in its output:\n%s", s.Name, tail(out, 1000))
	}
	return usageMetrics(u), nil
}

// prepareExecTurn runs gocodex's one-message turn once and keeps the body of the request it
// sent, so the floor program makes the very same POST.
func prepareExecTurn(b *Bench, s Subject, sb Sandbox) error {
	if s.Name != Gocodex {
		return nil
	}
	if _, err := runExecTurn(b, s, sb); err != nil {
		return err
	}
	reqs := b.Model.Requests()
	if len(reqs) == 0 {
		return fmt.Errorf("gocodex made no request")
	}
	path := filepath.Join(b.TempDir, "floor-body.json")
	if err := os.WriteFile(path, reqs[len(reqs)-1].Body, 0o644); err != nil {
		return err
	}
	b.FloorBody = path
	return nil
}

// toolsScript is a turn that runs three commands, applies a patch and answers.
func toolsScript() []tk.Response {
	call := func(id, cmd string) tk.Response {
		return tk.SSE(tk.Created(), tk.FunctionCall(id, "exec_command", fmt.Sprintf(`{"cmd":%q}`, cmd)), tk.Completed(tk.Usage{Input: 20, Output: 3, Total: 23}))
	}
	return []tk.Response{
		call("call_1", "echo one"),
		call("call_2", "ls -la"),
		call("call_3", "cat notes.txt"),
		tk.SSE(tk.Created(), tk.CustomToolCall("call_4", "apply_patch", "*** Begin Patch\n*** Add File: added.txt\n+hello from the patch\n*** End Patch\n"), tk.Completed(tk.Usage{Input: 30, Output: 5, Total: 35})),
		answer("Hello world, all done"),
	}
}

func runExecTools(b *Bench, s Subject, sb Sandbox) (Metrics, error) {
	if !onlyAgents(s) {
		return nil, errSkip
	}
	srv, err := tk.NewStandaloneServer("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	srv.Enqueue(toolsScript()...)
	work, err := os.MkdirTemp(sb.Work, "tools-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("some notes\n"), 0o644); err != nil {
		return nil, err
	}
	own := sb
	own.Work = work
	own.CodexHome = filepath.Join(work, ".codex-home")
	if _, err := tk.WriteConfigFile(own.CodexHome, srv.URL(), tk.ConfigOptions{}); err != nil {
		return nil, err
	}
	u, out, err := runOnce(own, execTimeout, s.Bin, append(append([]string(nil), execArgs...), "run the tools")...)
	if err != nil {
		return nil, err
	}
	if srv.Pending() != 0 || !strings.Contains(string(out), "all done") {
		return nil, fmt.Errorf("%s: the scripted turn did not finish (%d responses left):\n%s", s.Name, srv.Pending(), tail(out, 1500))
	}
	if _, err := os.Stat(filepath.Join(work, "added.txt")); err != nil {
		return nil, fmt.Errorf("%s: the patch was not applied: %v", s.Name, err)
	}
	return usageMetrics(u), nil
}

func runAppServerInit(b *Bench, s Subject, sb Sandbox) (Metrics, error) {
	if !onlyAgents(s) {
		return nil, errSkip
	}
	a, err := spawnAppServer(sb, s.Bin, nil)
	if err != nil {
		return nil, err
	}
	at, err := a.initialize()
	mem := procStatus(a.pid())
	u, cerr := a.close()
	if err != nil {
		return nil, err
	}
	if cerr != nil {
		return nil, cerr
	}
	m := Metrics{"init_ms": ms(at.Sub(u.Start)), "cpu_ms": ms(u.CPU), "rss_mib": mib(u.PeakRSS)}
	// Most of a fresh process's RSS is its binary's pages, not memory it allocated.
	if anon, ok := mem["RssAnon"]; ok {
		m["rss_anon_mib"], m["rss_file_mib"] = mib(anon), mib(mem["RssFile"])
	}
	return m, nil
}

func runAppServerTurn(b *Bench, s Subject, sb Sandbox) (Metrics, error) {
	if !onlyAgents(s) {
		return nil, errSkip
	}
	completed := make(chan time.Time, 1)
	onNote := func(method string, _ json.RawMessage, at time.Time) {
		if method == "turn/completed" {
			select {
			case completed <- at:
			default:
			}
		}
	}
	var doneAt time.Time
	m, u, err := onAppServer(sb, s.Bin, onNote, func(a *appServer) (Metrics, error) {
		id, err := a.startThread(sb.Work, false)
		if err != nil {
			return nil, err
		}
		if _, _, err := a.call("turn/start", turnParams(id, "hi"), 30*time.Second); err != nil {
			return nil, err
		}
		select {
		case doneAt = <-completed:
			return Metrics{}, nil
		case <-time.After(time.Minute):
			return nil, fmt.Errorf("no turn/completed within a minute")
		}
	})
	if err != nil {
		return nil, err
	}
	// The launcher's clock starts at spawn; wall time runs to turn/completed, not to exit.
	m["wall_ms"], m["cpu_ms"] = ms(doneAt.Sub(u.Start)), ms(u.CPU)
	return m, nil
}

func turnParams(threadID, text string) map[string]any {
	return map[string]any{"threadId": threadID, "input": []map[string]any{{"type": "text", "text": text}}}
}

// runThreads starts b.Sizes.Threads threads in one app-server and runs one streamed turn on
// each at once against the stamping server: the latency of each delta from the model's write
// to the client's read, the deltas per second, the memory of an idle thread and the peak.
func runThreads(b *Bench, s Subject, sb Sandbox) (Metrics, error) {
	if !onlyAgents(s) {
		return nil, errSkip
	}
	n := b.Sizes.Threads
	own := sb
	own.CodexHome = filepath.Join(sb.Work, ".codex-home-threads")
	if _, err := tk.WriteConfigFile(own.CodexHome, b.Stamp.URL(), tk.ConfigOptions{}); err != nil {
		return nil, err
	}
	defer os.RemoveAll(own.CodexHome)
	var mu sync.Mutex
	var lat []float64
	var deltas, completed int
	allDone := make(chan struct{})
	onNote := func(method string, params json.RawMessage, at time.Time) {
		switch method {
		case "item/agentMessage/delta":
			var p struct {
				Delta string `json:"delta"`
			}
			_ = json.Unmarshal(params, &p)
			ls := tk.StampLatencies(p.Delta, at)
			mu.Lock()
			for _, l := range ls {
				lat = append(lat, ms(l))
			}
			deltas += len(ls)
			mu.Unlock()
		case "turn/completed":
			mu.Lock()
			completed++
			if completed == n {
				close(allDone)
			}
			mu.Unlock()
		}
	}
	m, _, err := onAppServer(own, s.Bin, onNote, func(a *appServer) (Metrics, error) {
		base := currentRSS(a.pid())
		ids := make([]string, n)
		for i := range ids {
			id, err := a.startThread(own.Work, true)
			if err != nil {
				return nil, err
			}
			ids[i] = id
		}
		idle := currentRSS(a.pid())
		start := time.Now()
		errs := make(chan error, n)
		for _, id := range ids {
			go func() {
				_, _, err := a.call("turn/start", turnParams(id, "go"), time.Minute)
				errs <- err
			}()
		}
		for range ids {
			if err := <-errs; err != nil {
				return nil, err
			}
		}
		select {
		case <-allDone:
		case <-time.After(2 * time.Minute):
			return nil, fmt.Errorf("only %d of %d turns completed", completed, n)
		}
		wall := time.Since(start)
		mu.Lock()
		defer mu.Unlock()
		if len(lat) == 0 {
			return nil, fmt.Errorf("no deltas arrived")
		}
		return Metrics{
			"p50_ms":          Percentile(lat, 50),
			"p99_ms":          Percentile(lat, 99),
			"deltas_per_s":    float64(deltas) / wall.Seconds(),
			"idle_kib_thread": float64(idle-base) / 1024 / float64(n),
		}, nil
	})
	return m, err
}

// runSession runs b.Sizes.Turns one-message turns one after the other on one thread and
// compares the resident memory after the tenth with the memory after the last.
func runSession(b *Bench, s Subject, sb Sandbox) (Metrics, error) {
	if !onlyAgents(s) {
		return nil, errSkip
	}
	completed := make(chan struct{}, 1)
	onNote := func(method string, _ json.RawMessage, _ time.Time) {
		if method == "turn/completed" {
			completed <- struct{}{}
		}
	}
	m, _, err := onAppServer(sb, s.Bin, onNote, func(a *appServer) (Metrics, error) {
		id, err := a.startThread(sb.Work, true)
		if err != nil {
			return nil, err
		}
		var early int64
		var turns []float64
		for i := 1; i <= b.Sizes.Turns; i++ {
			t0 := time.Now()
			if _, _, err := a.call("turn/start", turnParams(id, fmt.Sprintf("turn %d", i)), time.Minute); err != nil {
				return nil, fmt.Errorf("turn %d: %w", i, err)
			}
			select {
			case <-completed:
			case <-time.After(time.Minute):
				return nil, fmt.Errorf("turn %d did not complete within a minute", i)
			}
			turns = append(turns, ms(time.Since(t0)))
			if i == min(10, b.Sizes.Turns) {
				early = currentRSS(a.pid())
			}
		}
		late := currentRSS(a.pid())
		return Metrics{"rss10_mib": mib(early), "rssN_mib": mib(late), "growth": Ratio(float64(late), float64(early)),
			"turn_ms": Summarize(turns).Median}, nil
	})
	return m, err
}

func runSize(b *Bench, s Subject, sb Sandbox) (Metrics, error) {
	st, err := os.Stat(s.Bin)
	if err != nil {
		return nil, err
	}
	return Metrics{"size_mib": mib(st.Size())}, nil
}
