package unifiedexec

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/internal/tools/shell"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

type recorder struct {
	mu     sync.Mutex
	events []protocol.EventMsg
}

func (r *recorder) emit(e protocol.EventMsg) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) count(typ string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if e.EventType() == typ {
			n++
		}
	}
	return n
}

type harness struct {
	t   *testing.T
	m   *Manager
	env *tool.Env
	rec *recorder
	n   int
}

func newHarness(t *testing.T, opts Options) *harness {
	t.Helper()
	if opts.Rand == nil {
		opts.Rand = rand.New(rand.NewPCG(1, 2))
	}
	cfg := &shell.Config{
		EnvPolicy: process.DefaultEnvPolicy(),
		Environ:   func() []string { return []string{"PATH=" + os.Getenv("PATH"), "SHELL=/bin/sh", "HOME=" + t.TempDir()} },
	}
	rec := &recorder{}
	h := &harness{t: t, m: New(cfg, opts), rec: rec, env: &tool.Env{
		ThreadID: "thread-9", TurnID: "turn-1", Cwd: t.TempDir(),
		Sandbox: protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess},
		Emit:    rec.emit,
	}}
	t.Cleanup(h.m.Close)
	return h
}

func (h *harness) call(ctx context.Context, name, args string) (tool.Result, error) {
	h.n++
	handler := h.m.Handlers()[name]
	return handler.Handle(ctx, h.env, tool.Call{CallID: fmt.Sprintf("call_%d", h.n), Name: name, Arguments: args})
}

func (h *harness) mustCall(name, args string) string {
	h.t.Helper()
	res, err := h.call(context.Background(), name, args)
	if err != nil {
		h.t.Fatal(err)
	}
	return res.Output
}

var (
	wallRe    = regexp.MustCompile(`(?m)^Wall time: \d+\.\d{4} seconds$`)
	sessionRe = regexp.MustCompile(`Process running with session ID (\d+)`)
)

func normalize(s string) string { return wallRe.ReplaceAllString(s, "Wall time: X.XXXX seconds") }

func sessionID(t *testing.T, out string) int {
	t.Helper()
	m := sessionRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no session id in %q", out)
	}
	id, _ := strconv.Atoi(m[1])
	return id
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

func TestOutputGoldens(t *testing.T) {
	h := newHarness(t, Options{})
	var all strings.Builder
	steps := []struct{ tool, args string }{
		{"exec_command", `{"cmd":"echo hi"}`},
		{"exec_command", `{"cmd":"exit 3"}`},
		{"exec_command", `{"cmd":"seq 1 3000","max_output_tokens":100}`},
		{"exec_command", `{"cmd":"kill -TERM $$"}`},
		{"exec_command", `{"cmd":"printf 'a\\377b'"}`},
		{"write_stdin", `{"session_id":4242,"chars":"x"}`},
		{"exec_command", `{"cmd":"echo hi","workdir":"/nonexistent/dir"}`},
		{"exec_command", `{"cmd":""}`},
	}
	for _, st := range steps {
		fmt.Fprintf(&all, "### %s %s\n%s\n", st.tool, st.args, normalize(h.mustCall(st.tool, st.args)))
	}
	golden(t, "outputs.txt", all.String())
}

func TestRunningSessionThenExit(t *testing.T) {
	h := newHarness(t, Options{})
	dir := h.env.Cwd
	out := h.mustCall("exec_command", fmt.Sprintf(`{"cmd":"echo first; while [ ! -e %s/go ]; do sleep 0.05; done; echo second","yield_time_ms":250}`, dir))
	id := sessionID(t, out)
	if h.m.Len() != 1 {
		t.Errorf("live %d", h.m.Len())
	}
	if err := os.WriteFile(dir+"/go", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	first := out
	out = h.mustCall("write_stdin", fmt.Sprintf(`{"session_id":%d,"chars":"","yield_time_ms":30000}`, id))
	// On a loaded machine "first" may arrive with the poll rather than the first call.
	if !strings.Contains(out, "Process exited with code 0\n") || !strings.HasSuffix(out, "second\n") || !strings.Contains(first+out, "first\n") {
		t.Errorf("outputs %q then %q", first, out)
	}
	if h.m.Len() != 0 {
		t.Errorf("exited process still stored")
	}
	again := h.mustCall("write_stdin", fmt.Sprintf(`{"session_id":%d}`, id))
	if again != fmt.Sprintf("write_stdin failed: Unknown process id %d", id) {
		t.Errorf("reuse after exit: %q", again)
	}
	if h.rec.count("exec_command_begin") != 1 || h.rec.count("exec_command_end") != 1 {
		t.Errorf("begin/end counts %d/%d", h.rec.count("exec_command_begin"), h.rec.count("exec_command_end"))
	}
}

func TestWriteToPipeSessionIsRefused(t *testing.T) {
	h := newHarness(t, Options{})
	id := sessionID(t, h.mustCall("exec_command", `{"cmd":"sleep 30","yield_time_ms":250}`))
	out := h.mustCall("write_stdin", fmt.Sprintf(`{"session_id":%d,"chars":"x"}`, id))
	if out != "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open" {
		t.Errorf("got %q", out)
	}
}

// waitOutput polls a session until want appears in its output (or the session ends),
// returning everything seen; slow machines get more polls, never a timing assertion.
func (h *harness) waitOutput(id int, seen, want string) string {
	h.t.Helper()
	for i := 0; i < 6 && !strings.Contains(seen, want); i++ {
		out := h.mustCall("write_stdin", fmt.Sprintf(`{"session_id":%d,"yield_time_ms":5000}`, id))
		seen += out
		if !strings.Contains(out, "Process running") {
			break
		}
	}
	if !strings.Contains(seen, want) {
		h.t.Fatalf("never saw %q in %q", want, seen)
	}
	return seen
}

func TestPTYInteraction(t *testing.T) {
	h := newHarness(t, Options{})
	out := h.mustCall("exec_command", `{"cmd":"stty size; while read line; do echo \"got:$line\"; done","tty":true,"yield_time_ms":500}`)
	id := sessionID(t, out)
	h.waitOutput(id, out, "24 80\r\n")
	out = h.mustCall("write_stdin", fmt.Sprintf(`{"session_id":%d,"chars":"hello\n","yield_time_ms":1000}`, id))
	h.waitOutput(id, out, "got:hello\r\n")
	out = h.mustCall("write_stdin", fmt.Sprintf(`{"session_id":%d,"chars":"\u0004","yield_time_ms":5000}`, id))
	h.waitOutput(id, out, "Process exited with code 0")
	if h.rec.count("terminal_interaction") < 2 {
		t.Errorf("terminal_interaction events %d", h.rec.count("terminal_interaction"))
	}
}

func TestPythonREPL(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	h := newHarness(t, Options{})
	out := h.mustCall("exec_command", `{"cmd":"python3 -q -i","tty":true,"yield_time_ms":1000}`)
	id := sessionID(t, out)
	out = h.mustCall("write_stdin", fmt.Sprintf(`{"session_id":%d,"chars":"print(6*7)\n","yield_time_ms":1000}`, id))
	h.waitOutput(id, out, "42\r\n")
}
func TestEnvironment(t *testing.T) {
	h := newHarness(t, Options{})
	out := h.mustCall("exec_command", `{"cmd":"echo $NO_COLOR $PAGER $LC_ALL $CODEX_CI $CODEX_THREAD_ID"}`)
	if !strings.HasSuffix(out, "Output:\n1 cat C.UTF-8 1 thread-9\n") {
		t.Errorf("env: %q", out)
	}
}

func TestProcessCapPrunesLeastRecentlyUsed(t *testing.T) {
	h := newHarness(t, Options{MaxProcesses: 10, WarnProcesses: 9})
	var ids []int
	for i := 0; i < 10; i++ {
		ids = append(ids, sessionID(t, h.mustCall("exec_command", `{"cmd":"sleep 30","tty":true,"yield_time_ms":250}`)))
	}
	// Touch the oldest so the second oldest becomes the least recently used. (A write
	// rather than an empty poll, which would wait at least five seconds.)
	h.mustCall("write_stdin", fmt.Sprintf(`{"session_id":%d,"chars":"\n","yield_time_ms":1}`, ids[0]))
	_ = sessionID(t, h.mustCall("exec_command", `{"cmd":"sleep 30","tty":true,"yield_time_ms":250}`))
	if h.m.Len() != 10 {
		t.Errorf("live %d, want 10", h.m.Len())
	}
	out := h.mustCall("write_stdin", fmt.Sprintf(`{"session_id":%d,"chars":"x","yield_time_ms":1}`, ids[1]))
	if out != fmt.Sprintf("write_stdin failed: Unknown process id %d", ids[1]) {
		t.Errorf("pruned session still answers: %q", out)
	}
	if h.rec.count("warning") == 0 {
		t.Error("no warning near the cap")
	}
}

func TestInterruptLeavesProcessRunning(t *testing.T) {
	h := newHarness(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	h.env.Emit = func(e protocol.EventMsg) {
		h.rec.emit(e)
		if _, ok := e.(protocol.ExecCommandOutputDeltaEvent); ok {
			cancel()
		}
	}
	res, err := h.call(ctx, "exec_command", `{"cmd":"echo up; sleep 30","yield_time_ms":30000}`)
	if !errors.Is(err, context.Canceled) || res.Output != "aborted by user" {
		t.Fatalf("%q %v", res.Output, err)
	}
	if h.m.Len() != 1 {
		t.Errorf("live %d, want the process kept", h.m.Len())
	}
	h.m.CleanBackgroundTerminals()
	if h.m.Len() != 0 || h.rec.count("exec_command_end") != 1 {
		t.Errorf("after clean: live %d ends %d", h.m.Len(), h.rec.count("exec_command_end"))
	}
}

func TestClosedManagerRefuses(t *testing.T) {
	h := newHarness(t, Options{})
	h.mustCall("exec_command", `{"cmd":"sleep 30","yield_time_ms":250}`)
	h.m.Close()
	if out := h.mustCall("exec_command", `{"cmd":"echo hi"}`); out != "exec_command failed: the thread has ended" {
		t.Errorf("got %q", out)
	}
}

func TestGateDenies(t *testing.T) {
	h := newHarness(t, Options{})
	h.env.Sandbox = protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}
	out := h.mustCall("exec_command", `{"cmd":"echo hi"}`)
	if !strings.Contains(out, "command not run") || h.rec.count("exec_command_begin") != 0 {
		t.Errorf("got %q", out)
	}
}

func TestYieldClamping(t *testing.T) {
	ms := func(v int64) *int64 { return &v }
	tests := []struct {
		got, want string
	}{
		{clampYield(nil, DefaultExecYield).String(), "10s"},
		{clampYield(ms(1), DefaultExecYield).String(), "250ms"},
		{clampYield(ms(99_000), DefaultExecYield).String(), "30s"},
		{pollYield(nil).String(), "5s"},
		{pollYield(ms(1_000_000)).String(), "5m0s"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%d: %s, want %s", i, tt.got, tt.want)
		}
	}
}

func TestSandboxDenialRetry(t *testing.T) {
	h := newHarness(t, Options{})
	denying := func(ctx context.Context, argv []string, cwd string, env []string) (*exec.Cmd, error) {
		return process.PlainCommand(ctx, []string{"sh", "-c", "echo 'touch: x: Read-only file system' >&2; exit 1"}, cwd, env)
	}
	asked := 0
	h.m.cfg.Gate = func(context.Context, *tool.Env, shell.GateRequest) (shell.Decision, error) {
		return shell.Decision{Spawner: denying, Sandboxed: true, OnDenied: func(context.Context, process.Result) (shell.Decision, bool, error) {
			asked++
			return shell.Decision{}, true, nil
		}}, nil
	}
	out := h.mustCall("exec_command", `{"cmd":"echo unconfined"}`)
	if asked != 1 || !strings.HasSuffix(out, "Process exited with code 0\nOriginal token count: 3\nOutput:\nunconfined\n") {
		t.Errorf("asked %d, output %q", asked, out)
	}
	if h.rec.count("exec_command_begin") != 2 || h.rec.count("exec_command_end") != 2 {
		t.Errorf("begin/end %d/%d", h.rec.count("exec_command_begin"), h.rec.count("exec_command_end"))
	}
}
