package agent

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/internal/tools/shell"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// testUserShell runs the person's commands with a stand-in for their login shell that reads
// no profile, so what a test sees does not depend on the machine's shell start-up files.
func testUserShell(t *testing.T) *shell.Config {
	t.Helper()
	sh := filepath.Join(t.TempDir(), "loginsh")
	if err := os.WriteFile(sh, []byte("#!/bin/sh\n# $1 is -lc\nexec /bin/sh -c \"$2\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &shell.Config{UserShell: sh, Environ: func() []string { return []string{"PATH=" + os.Getenv("PATH")} }}
}

// userShellHarness is a harness whose person's commands run in testUserShell.
func userShellHarness(t *testing.T, rec *memRecorder) *harness {
	t.Helper()
	return newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.UserShell = testUserShell(t)
		if rec != nil {
			c.Recorder = rec
		}
	}})
}

// durationRE hides the measured duration in a <user_shell_command> record.
const durationRE = `Duration: \d+\.\d{4} seconds`

func TestUserShellCommandTurn(t *testing.T) {
	rec := &memRecorder{}
	h := userShellHarness(t, rec)
	h.srv.Enqueue(answer("m1", "ok", 10))
	const cmd = "echo hi; echo err >&2; exit 3"
	id := h.submit(protocol.RunUserShellCommandOp{Command: cmd})
	evs := h.until(turnEnd)
	if evs[0].Msg.EventType() == "session_configured" {
		evs = evs[1:]
	}
	want := []string{"task_started", "exec_command_begin", "exec_command_output_delta", "exec_command_end", "task_complete"}
	if diff := cmp.Diff(want, compact(types(evs))); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	for _, e := range evs {
		if e.ID != id {
			t.Errorf("%s has id %q, want the submission's %q", e.Msg.EventType(), e.ID, id)
		}
	}
	started, _ := find[protocol.TurnStartedEvent](evs)
	begin, _ := find[protocol.ExecCommandBeginEvent](evs)
	end, _ := find[protocol.ExecCommandEndEvent](evs)
	argv := []string{h.thread.cfg.UserShell.UserShellArgv("")[0], "-lc", cmd}
	if diff := cmp.Diff(protocol.ExecCommandBeginEvent{CallID: begin.CallID, TurnID: started.TurnID, Command: argv,
		Cwd: h.thread.cfg.Cwd, ParsedCmd: []protocol.ParsedCommand{{Type: "unknown", Cmd: cmd}}, Source: protocol.SourceUserShell}, begin); diff != "" {
		t.Errorf("exec_command_begin (-want +got):\n%s", diff)
	}
	end.Duration = 0
	// Codex reports stdout then stderr, whatever order they arrived in.
	if diff := cmp.Diff(protocol.ExecCommandEndEvent{CallID: begin.CallID, TurnID: started.TurnID, Command: argv,
		Cwd: h.thread.cfg.Cwd, ParsedCmd: begin.ParsedCmd, Source: protocol.SourceUserShell,
		Stdout: "hi\n", Stderr: "err\n", AggregatedOutput: "hi\nerr\n", ExitCode: 3, FormattedOutput: "hi\nerr\n",
		Status: protocol.ExecFailed}, end); diff != "" {
		t.Errorf("exec_command_end (-want +got):\n%s", diff)
	}
	if done, _ := find[protocol.TurnCompleteEvent](evs); done.LastAgentMessage != nil || done.TurnID != started.TurnID {
		t.Errorf("turn_complete = %+v", done)
	}
	if len(h.srv.Requests()) != 0 {
		t.Errorf("the command alone sampled the model %d times", len(h.srv.Requests()))
	}

	h.say("hello")
	h.until(turnEnd)
	// The record comes first: the initial context is recorded by the first model turn.
	wantInput := []string{"user: <user_shell_command>", "developer: <permissions instructions>", "user: <environment_context>", "user: hello"}
	input := h.requestInput(0)
	if diff := cmp.Diff(wantInput, summarize(input)); diff != "" {
		t.Errorf("next request (-want +got):\n%s", diff)
	}
	text := input[0]["content"].([]any)[0].(map[string]any)["text"].(string)
	wantText := "<user_shell_command>\n<command>\n" + cmd + "\n</command>\n<result>\nExit code: 3\nDuration: X\nOutput:\nhi\nerr\n\n</result>\n</user_shell_command>"
	if got := regexpReplace(text, durationRE, "Duration: X"); got != wantText {
		t.Errorf("record = %q\nwant %q", got, wantText)
	}

	// The rollout has the end event before the record, then turn_complete.
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.items) == 0 || rec.items[0].(protocol.MessageItem).Content[0].Text != text {
		t.Errorf("first recorded item is not the command's record: %+v", rec.items)
	}
}

func TestUserShellCommandInterrupt(t *testing.T) {
	h := userShellHarness(t, nil)
	h.srv.Enqueue(answer("m1", "ok", 10))
	h.submit(protocol.RunUserShellCommandOp{Command: "echo start; exec sleep 60"})
	evs := h.until(isType("exec_command_output_delta"))
	h.submit(protocol.InterruptOp{})
	evs = append(evs, h.until(turnEnd)...)
	end, ok := find[protocol.ExecCommandEndEvent](evs)
	if !ok {
		t.Fatalf("no exec_command_end in %v", types(evs))
	}
	if end.ExitCode != -1 || end.AggregatedOutput != userShellAborted || end.Stderr != userShellAborted ||
		end.Stdout != "" || end.Duration != 0 || end.Status != protocol.ExecFailed {
		t.Errorf("exec_command_end = %+v", end)
	}
	if ab, ok := evs[len(evs)-1].Msg.(protocol.TurnAbortedEvent); !ok || ab.Reason != protocol.AbortInterrupted {
		t.Errorf("last event = %#v, want turn_aborted (interrupted)", evs[len(evs)-1].Msg)
	}

	h.say("hello")
	h.until(turnEnd)
	input := h.requestInput(0)
	want := []string{"user: <user_shell_command>", "user: <turn_aborted>", "developer: <permissions instructions>", "user: <environment_context>", "user: hello"}
	if diff := cmp.Diff(want, summarize(input)); diff != "" {
		t.Errorf("next request (-want +got):\n%s", diff)
	}
	text := input[0]["content"].([]any)[0].(map[string]any)["text"].(string)
	wantText := "<user_shell_command>\n<command>\necho start; exec sleep 60\n</command>\n<result>\nExit code: -1\nDuration: 0.0000 seconds\nOutput:\ncommand aborted by user\n</result>\n</user_shell_command>"
	if text != wantText {
		t.Errorf("record = %q\nwant %q", text, wantText)
	}
}

// TestUserShellRecordTruncated compares with what Codex 0.169 sent the model for
// `seq 1 30000; seq 1 30000 >&2; exit 3` (a 10,000-token budget), captured from its request.
func TestUserShellRecordTruncated(t *testing.T) {
	var out strings.Builder
	for range 2 {
		for i := 1; i <= 30000; i++ {
			out.WriteString(strconv.Itoa(i))
			out.WriteByte('\n')
		}
	}
	output := process.FormattedTruncate(out.String(), process.Tokens(10_000))
	got := userShellRecord("seq 1 30000; seq 1 30000 >&2; exit 3", 3, 393600*time.Microsecond, output)
	golden := filepath.Join("testdata", "user_shell_truncated.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("record (-codex +ours):\n%s", diff)
	}
}

// TestUserShellCommandBesideTurn: while a model turn runs, the command runs beside it with
// that turn's id, and its record reaches the model after the outputs of the tools that
// were running, as in Codex 0.169.
func TestUserShellCommandBesideTurn(t *testing.T) {
	release := make(chan struct{})
	wait := fakeTool{name: "shell", handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		env.Emit(protocol.BackgroundEventEvent{Message: "waiting"})
		select {
		case <-release:
		case <-ctx.Done():
		}
		return tool.Result{Output: "ok", Success: true}, nil
	}}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.ToolHandlers = map[string]tool.Handler{tools.NameShell: wait}
		c.UserShell = testUserShell(t)
	}})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.FunctionCall("c1", "shell", `{}`), testkit.Completed(testkit.Usage{})), answer("m1", "done", 10))
	h.say("go")
	evs := h.until(isType("background_event"))
	started, _ := find[protocol.TurnStartedEvent](evs)
	h.submit(protocol.RunUserShellCommandOp{Command: "echo aux"})
	evs = h.until(isType("exec_command_end"))
	if diff := cmp.Diff([]string{"exec_command_begin", "exec_command_output_delta", "exec_command_end"}, compact(types(evs))); diff != "" {
		t.Errorf("events beside the turn (-want +got):\n%s", diff)
	}
	if end := evs[len(evs)-1].Msg.(protocol.ExecCommandEndEvent); end.TurnID != started.TurnID || end.Source != protocol.SourceUserShell {
		t.Errorf("exec_command_end = %+v, want turn %s", end, started.TurnID)
	}
	close(release)
	h.until(turnEnd)
	want := []string{"developer: <permissions instructions>", "user: <environment_context>", "user: go",
		"function_call shell c1", "function_call_output c1: ok", "user: <user_shell_command>"}
	if diff := cmp.Diff(want, summarize(h.requestInput(1))); diff != "" {
		t.Errorf("request after the command (-want +got):\n%s", diff)
	}
}

// TestUserShellRecordIsNotAUserTurn: rolling back one turn drops the last message the person
// typed and everything after it, the record of their command included.
func TestUserShellRecordIsNotAUserTurn(t *testing.T) {
	h := userShellHarness(t, nil)
	h.srv.Enqueue(answer("m1", "one", 10), answer("m2", "two", 10))
	h.say("first")
	h.until(turnEnd)
	h.submit(protocol.RunUserShellCommandOp{Command: "echo x"})
	h.until(turnEnd)
	h.submit(protocol.ThreadRollbackOp{NumTurns: 1})
	h.until(isType("thread_rolled_back"))
	h.say("again")
	h.until(turnEnd)
	want := []string{"developer: <permissions instructions>", "user: <environment_context>", "user: again"}
	if diff := cmp.Diff(want, summarize(h.requestInput(1))); diff != "" {
		t.Errorf("request after rollback (-want +got):\n%s", diff)
	}
}

// TestUserShellCommandTimeout: a command its timeout kills is reported as Codex 0.169 reports
// it (captured with thread/shellCommand timeoutMs 1000 and `echo a; sleep 5; echo b`).
func TestUserShellCommandTimeout(t *testing.T) {
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.UserShell = testUserShell(t)
		c.UserShellTimeout = 200 * time.Millisecond
	}})
	h.srv.Enqueue(answer("m1", "ok", 10))
	h.submit(protocol.RunUserShellCommandOp{Command: "echo a; sleep 60; echo b"})
	evs := h.until(turnEnd)
	end, _ := find[protocol.ExecCommandEndEvent](evs)
	const want = `execution error: Sandbox(Timeout { output: ExecToolCallOutput { exit_code: 124, stdout: StreamOutput { text: "a\n", truncated_after_lines: None }, stderr: StreamOutput { text: "", truncated_after_lines: None }, aggregated_output: StreamOutput { text: "a\n", truncated_after_lines: None }, duration: D, timed_out: true } })`
	got := regexpReplace(end.AggregatedOutput, `duration: [0-9.]+(s|ms), `, "duration: D, ")
	if got != want || end.ExitCode != -1 || end.Duration != 0 || end.Status != protocol.ExecFailed {
		t.Errorf("exec_command_end = %+v\nwant output %s", end, want)
	}
	if _, ok := evs[len(evs)-1].Msg.(protocol.TurnCompleteEvent); !ok {
		t.Errorf("last event = %s, want task_complete", evs[len(evs)-1].Msg.EventType())
	}
	h.say("next")
	h.until(turnEnd)
	text := h.requestInput(0)[0]["content"].([]any)[0].(map[string]any)["text"].(string)
	wantText := "<user_shell_command>\n<command>\necho a; sleep 60; echo b\n</command>\n<result>\nExit code: -1\nDuration: 0.0000 seconds\nOutput:\n" + want + "\n</result>\n</user_shell_command>"
	if got := regexpReplace(text, `duration: [0-9.]+(s|ms), `, "duration: D, "); got != wantText {
		t.Errorf("record = %q\nwant %q", got, wantText)
	}
}

func TestRustDebugForms(t *testing.T) {
	durations := []struct {
		d    time.Duration
		want string
	}{
		{1007983046 * time.Nanosecond, "1.007983046s"},
		{time.Second, "1s"},
		{250 * time.Millisecond, "250ms"},
		{1500 * time.Microsecond, "1.5ms"},
		{1500 * time.Nanosecond, "1.5µs"},
		{7, "7ns"},
		{0, "0ns"},
	}
	for _, c := range durations {
		if got := rustDebugDuration(c.d); got != c.want {
			t.Errorf("rustDebugDuration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
	if got, want := rustDebugString("a\"b\\c\td\n\x01é"), `"a\"b\\c\td\n\u{1}é"`; got != want {
		t.Errorf("rustDebugString = %s, want %s", got, want)
	}
}

// TestUserShellCommandBesideTurnInterrupted: interrupting the turn stops the command beside
// it; its record comes before the aborted tool call's output and the <turn_aborted> note,
// as in Codex 0.169.
func TestUserShellCommandBesideTurnInterrupted(t *testing.T) {
	wait := fakeTool{name: "shell", handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		env.Emit(protocol.BackgroundEventEvent{Message: "waiting"})
		<-ctx.Done()
		return tool.Result{}, ctx.Err()
	}}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.ToolHandlers = map[string]tool.Handler{tools.NameShell: wait}
		c.UserShell = testUserShell(t)
	}})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.FunctionCall("c1", "shell", `{}`), testkit.Completed(testkit.Usage{})), answer("m1", "done", 10))
	h.say("go")
	h.until(isType("background_event"))
	h.submit(protocol.RunUserShellCommandOp{Command: "echo s; exec sleep 60"})
	h.until(isType("exec_command_output_delta"))
	h.submit(protocol.InterruptOp{})
	evs := h.until(turnEnd)
	var got []string
	for _, typ := range compact(types(evs)) {
		if typ != "token_count" && typ != "exec_command_output_delta" {
			got = append(got, typ)
		}
	}
	want := []string{"exec_command_end", "turn_aborted"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events after the interrupt (-want +got):\n%s", diff)
	}
	if end, _ := find[protocol.ExecCommandEndEvent](evs); end.AggregatedOutput != userShellAborted || end.ExitCode != -1 {
		t.Errorf("exec_command_end = %+v", end)
	}
	h.say("next")
	h.until(turnEnd)
	wantInput := []string{"developer: <permissions instructions>", "user: <environment_context>", "user: go",
		"function_call shell c1", "user: <user_shell_command>", "function_call_output c1: aborted", "user: <turn_aborted>", "user: next"}
	if diff := cmp.Diff(wantInput, summarize(h.requestInput(1))); diff != "" {
		t.Errorf("request after the interrupt (-want +got):\n%s", diff)
	}
}

// TestUserShellCommandOutlivesTurn: a command beside a turn that completes keeps running; its
// end still carries that turn's id and its record goes into the history before the next
// turn's input, as in Codex 0.169.
func TestUserShellCommandOutlivesTurn(t *testing.T) {
	release := make(chan struct{})
	wait := fakeTool{name: "shell", handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		env.Emit(protocol.BackgroundEventEvent{Message: "waiting"})
		select {
		case <-release:
		case <-ctx.Done():
		}
		return tool.Result{Output: "ok", Success: true}, nil
	}}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.ToolHandlers = map[string]tool.Handler{tools.NameShell: wait}
		c.UserShell = testUserShell(t)
	}})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.FunctionCall("c1", "shell", `{}`), testkit.Completed(testkit.Usage{})),
		answer("m1", "done", 10), answer("m2", "next done", 10))
	flag := filepath.Join(t.TempDir(), "go")
	h.say("go")
	evs := h.until(isType("background_event"))
	started, _ := find[protocol.TurnStartedEvent](evs)
	h.submit(protocol.RunUserShellCommandOp{Command: "echo s; while [ ! -e " + flag + " ]; do sleep 0.01; done; echo e"})
	h.until(isType("exec_command_output_delta"))
	close(release)
	h.until(turnEnd)
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	evs = h.until(isType("exec_command_end"))
	if end := evs[len(evs)-1].Msg.(protocol.ExecCommandEndEvent); end.TurnID != started.TurnID || end.AggregatedOutput != "s\ne\n" {
		t.Errorf("exec_command_end = %+v, want turn %s", end, started.TurnID)
	}
	h.say("next")
	h.until(turnEnd)
	want := []string{"developer: <permissions instructions>", "user: <environment_context>", "user: go",
		"function_call shell c1", "function_call_output c1: ok", "assistant: done", "user: <user_shell_command>", "user: next"}
	if diff := cmp.Diff(want, summarize(h.requestInput(2))); diff != "" {
		t.Errorf("next request (-want +got):\n%s", diff)
	}
}

// BenchmarkUserShellRecord formats the record of a command with 330 KB of output (the
// truncation dominates).
func BenchmarkUserShellRecord(b *testing.B) {
	var out strings.Builder
	for i := 1; i <= 60000; i++ {
		out.WriteString(strconv.Itoa(i))
		out.WriteByte('\n')
	}
	text := out.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = userShellRecord("seq", 0, time.Second, process.FormattedTruncate(text, process.Tokens(10_000)))
	}
}
