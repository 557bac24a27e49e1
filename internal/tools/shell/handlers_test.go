package shell

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

var wallTime = regexp.MustCompile(`Wall time: [0-9.]+ seconds`)

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

func (r *recorder) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		out = append(out, e.EventType())
	}
	return out
}

func (r *recorder) end(t *testing.T) protocol.ExecCommandEndEvent {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if end, ok := e.(protocol.ExecCommandEndEvent); ok {
			return end
		}
	}
	t.Fatal("no exec_command_end")
	return protocol.ExecCommandEndEvent{}
}

func fullAccessEnv(t *testing.T, rec *recorder) *tool.Env {
	return &tool.Env{
		ThreadID: "thread-1", TurnID: "turn-1", Cwd: t.TempDir(),
		Sandbox: protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess},
		Emit:    rec.emit,
	}
}

func testConfig() *Config {
	return &Config{
		EnvPolicy: process.DefaultEnvPolicy(),
		Environ:   func() []string { return []string{"PATH=" + os.Getenv("PATH"), "SHELL=/bin/sh", "SECRET_TOKEN=x"} },
	}
}

func TestShellRunsArgvWithEvents(t *testing.T) {
	rec := &recorder{}
	env := fullAccessEnv(t, rec)
	h := NewShell(testConfig())
	res, err := h.Handle(context.Background(), env, tool.Call{CallID: "c1", Name: "shell",
		Arguments: `{"command":["sh","-c","echo out; echo err >&2; echo $CODEX_THREAD_ID; exit 3"]}`})
	if err != nil {
		t.Fatal(err)
	}
	if res.Success {
		t.Error("non-zero exit reported as success")
	}
	if !strings.HasPrefix(res.Output, `{"output":"`) || !strings.Contains(res.Output, `"metadata":{"exit_code":3,"duration_seconds":`) {
		t.Errorf("output %q", res.Output)
	}
	types := rec.types()
	if types[0] != "exec_command_begin" || types[len(types)-1] != "exec_command_end" {
		t.Errorf("event order %v", types)
	}
	end := rec.end(t)
	if end.ExitCode != 3 || end.Stdout != "out\nthread-1\n" || end.Stderr != "err\n" || end.CallID != "c1" || end.TurnID != "turn-1" {
		t.Errorf("end event %+v", end)
	}
	if end.Cwd != env.Cwd {
		t.Errorf("cwd %q", end.Cwd)
	}
}

func TestShellCommandUsesUserShell(t *testing.T) {
	rec := &recorder{}
	env := fullAccessEnv(t, rec)
	h := NewShellCommand(testConfig())
	res, err := h.Handle(context.Background(), env, tool.Call{CallID: "c2", Name: "shell_command",
		Arguments: `{"command":"echo $0 hi","login":false}`})
	if err != nil {
		t.Fatal(err)
	}
	want := "Exit code: 0\nWall time: X seconds\nOutput:\n/bin/sh hi\n"
	if diff := cmp.Diff(want, wallTime.ReplaceAllString(res.Output, "Wall time: X seconds")); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if !res.Success {
		t.Error("success not set")
	}
	if got := rec.end(t).Command; !cmp.Equal(got, []string{"/bin/sh", "-c", "echo $0 hi"}) {
		t.Errorf("command %q", got)
	}
}

func TestShellCommandTimeout(t *testing.T) {
	rec := &recorder{}
	h := NewShellCommand(testConfig())
	res, err := h.Handle(context.Background(), fullAccessEnv(t, rec), tool.Call{CallID: "c3", Name: "shell_command",
		Arguments: `{"command":"echo a; sleep 30","timeout_ms":200}`})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "Exit code: 124\n") || !strings.Contains(res.Output, "Output:\ncommand timed out after ") || !strings.HasSuffix(res.Output, " milliseconds\na\n") {
		t.Errorf("output %q", res.Output)
	}
	if rec.end(t).ExitCode != 124 {
		t.Error("end event exit code")
	}
}

func TestLocalShellAction(t *testing.T) {
	rec := &recorder{}
	h := NewLocalShell(testConfig())
	res, err := h.Handle(context.Background(), fullAccessEnv(t, rec), tool.Call{Kind: tool.LocalShellCall, CallID: "c4",
		Arguments: `{"type":"exec","command":["sh","-c","echo $EXTRA"],"env":{"EXTRA":"x1"},"timeout_ms":5000}`})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, `{"output":"x1\n","metadata":{"exit_code":0,"duration_seconds":`) {
		t.Errorf("output %q", res.Output)
	}
	// The whole item form is accepted as well.
	res, err = h.Handle(context.Background(), fullAccessEnv(t, rec), tool.Call{Kind: tool.LocalShellCall, CallID: "c5",
		Arguments: `{"type":"local_shell_call","call_id":"c5","status":"completed","action":{"type":"exec","command":["echo","y"]}}`})
	if err != nil || !strings.HasPrefix(res.Output, `{"output":"y\n"`) {
		t.Errorf("item form: %q %v", res.Output, err)
	}
}

func TestFullAccessOnlyGateRefusesOtherPolicies(t *testing.T) {
	for _, mode := range []protocol.SandboxMode{protocol.SandboxReadOnly, protocol.SandboxWorkspaceWrite} {
		rec := &recorder{}
		env := fullAccessEnv(t, rec)
		env.Sandbox = protocol.SandboxPolicy{Mode: mode}
		marker := env.Cwd + "/ran"
		res, err := NewShell(testConfig()).Handle(context.Background(), env, tool.Call{CallID: "c", Name: "shell",
			Arguments: `{"command":["touch","` + marker + `"]}`})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Output, "command not run") || !strings.Contains(res.Output, string(mode)) || res.Success {
			t.Errorf("%s: output %q", mode, res.Output)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("%s: the command ran", mode)
		}
		if len(rec.types()) != 0 {
			t.Errorf("%s: events for a refused command: %v", mode, rec.types())
		}
	}
}

func TestGateDecisions(t *testing.T) {
	rec := &recorder{}
	cfg := testConfig()
	var seen GateRequest
	cfg.Gate = func(_ context.Context, _ *tool.Env, req GateRequest) (Decision, error) {
		seen = req
		return Decision{Deny: "exec command rejected by user", EndTurn: true}, nil
	}
	res, err := NewShell(cfg).Handle(context.Background(), fullAccessEnv(t, rec), tool.Call{CallID: "g1", Name: "shell",
		Arguments: `{"command":["rm","-rf","x"],"workdir":"sub","sandbox_permissions":"require_escalated","justification":"why","prefix_rule":["rm"]}`})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "exec command rejected by user" || !res.EndTurn {
		t.Errorf("result %+v", res)
	}
	if seen.ToolName != "shell" || seen.SandboxPermissions != "require_escalated" || seen.Justification != "why" || !strings.HasSuffix(seen.Cwd, "/sub") {
		t.Errorf("gate saw %+v", seen)
	}
}

func TestSandboxDenialRetry(t *testing.T) {
	rec := &recorder{}
	cfg := testConfig()
	denying := func(ctx context.Context, argv []string, cwd string, env []string) (*exec.Cmd, error) {
		return process.PlainCommand(ctx, []string{"sh", "-c", "echo 'Permission denied' >&2; exit 1"}, cwd, env)
	}
	retried := false
	cfg.Gate = func(context.Context, *tool.Env, GateRequest) (Decision, error) {
		return Decision{Spawner: denying, Sandboxed: true, OnDenied: func(context.Context, process.Result) (Decision, bool, error) {
			retried = true
			return Decision{}, true, nil
		}}, nil
	}
	res, err := NewShell(cfg).Handle(context.Background(), fullAccessEnv(t, rec), tool.Call{CallID: "d1", Name: "shell",
		Arguments: `{"command":["echo","fine"]}`})
	if err != nil {
		t.Fatal(err)
	}
	if !retried || !strings.HasPrefix(res.Output, `{"output":"fine\n"`) {
		t.Errorf("retried %v output %q", retried, res.Output)
	}
}

func TestSpawnFailureIsAResult(t *testing.T) {
	rec := &recorder{}
	res, err := NewShell(testConfig()).Handle(context.Background(), fullAccessEnv(t, rec), tool.Call{CallID: "s1", Name: "shell",
		Arguments: `{"command":["/nonexistent/prog"]}`})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "execution error: ") {
		t.Errorf("output %q", res.Output)
	}
	if got := rec.types(); !cmp.Equal(got, []string{"exec_command_begin", "exec_command_end"}) {
		t.Errorf("events %v", got)
	}
}

func TestBadArguments(t *testing.T) {
	rec := &recorder{}
	res, err := NewShell(testConfig()).Handle(context.Background(), fullAccessEnv(t, rec), tool.Call{CallID: "b", Name: "shell", Arguments: `{"command":"ls"}`})
	if err != nil || !strings.HasPrefix(res.Output, "failed to parse function arguments: ") {
		t.Errorf("%q %v", res.Output, err)
	}
}

func TestInterruptEndsPromptly(t *testing.T) {
	rec := &recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	env := fullAccessEnv(t, rec)
	env.Emit = func(e protocol.EventMsg) {
		rec.emit(e)
		if _, ok := e.(protocol.ExecCommandOutputDeltaEvent); ok {
			cancel()
		}
	}
	res, err := NewShellCommand(testConfig()).Handle(ctx, env, tool.Call{CallID: "i", Name: "shell_command",
		Arguments: `{"command":"echo started; sleep 30","timeout_ms":60000}`})
	if !errors.Is(err, context.Canceled) || res.Output != "aborted by user" {
		t.Errorf("%q %v", res.Output, err)
	}
	types := rec.types()
	if types[len(types)-1] != "exec_command_end" {
		t.Errorf("no end after interrupt: %v", types)
	}
}
