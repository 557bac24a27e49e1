package hooks

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/gocodex/gocodex/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// events collects what Run emits.
type events struct {
	mu  sync.Mutex
	all []protocol.EventMsg
}

func (e *events) emit(m protocol.EventMsg) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, m)
}

func (e *events) completed() []protocol.HookRunSummary {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []protocol.HookRunSummary
	for _, m := range e.all {
		if c, ok := m.(protocol.HookCompletedEvent); ok {
			out = append(out, c.Run)
		}
	}
	return out
}

// engineWith loads a hooks.json of one event with the given handlers, bypassing trust.
func engineWith(t *testing.T, ev Event, matcher string, handlers ...string) *Engine {
	t.Helper()
	home := t.TempDir()
	m := ""
	if matcher != "" {
		m = `"matcher":` + quote(matcher) + `,`
	}
	write(t, filepath.Join(home, "hooks.json"), `{"hooks":{"`+string(ev)+`":[{`+m+`"hooks":[`+strings.Join(handlers, ",")+`]}]}}`)
	e, warnings := Load(Options{CodexHome: home, BypassTrust: true})
	if len(warnings) > 0 {
		t.Fatalf("warnings: %v", warnings)
	}
	return e
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func command(cmd string, timeout int) string {
	s := `{"type":"command","command":` + quote(cmd)
	if timeout > 0 {
		s += `,"timeout":` + itoa(timeout)
	}
	return s + "}"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func input(ev Event, cwd string) Input {
	return Input{Event: ev, SessionID: "th", TurnID: "tu", Cwd: cwd, Model: "gpt-5.5", PermissionMode: "bypassPermissions",
		Prompt: "hi", ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"echo hi"}`), ToolUseID: "call_1", Source: "startup"}
}

// The event JSON has exactly the keys, in the order, Codex 0.169 sends (testdata pinned from
// the reference binary).
func TestPayloadMatchesCodex(t *testing.T) {
	f, err := os.Open("testdata/codex0169_stdin.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	msg := "Done."
	for sc.Scan() {
		var ev struct {
			HookEventName Event `json:"hook_event_name"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		in := input(ev.HookEventName, "/cwd")
		in.TranscriptPath, in.LastAssistantMessage = "/rollout.jsonl", &msg
		got, err := in.payload()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(keyOrder(t, sc.Bytes()), keyOrder(t, got)); diff != "" {
			t.Errorf("%s keys (-codex +ours):\n%s", ev.HookEventName, diff)
		}
		if strings.HasSuffix(string(got), "\n") {
			t.Errorf("%s: payload ends with a newline", ev.HookEventName)
		}
	}
}

// keyOrder lists an object's top-level keys in order.
func keyOrder(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// The trust hash is the one Codex's hooks/list reported for the same hooks.
func TestHashMatchesCodex(t *testing.T) {
	one := int64(1)
	bash := "Bash"
	cases := []struct {
		h    Handler
		want string
	}{
		{Handler{Event: UserPromptSubmit, Command: "/tmp/hk/obs3/slow.sh", timeout: &one}, "sha256:85ad5104c3f6ef2979681e5537a583af3b89ad839850b56acec6d062d8d8bd2c"},
		{Handler{Event: PreToolUse, Matcher: &bash, Command: "/tmp/hk/obs3/deny.sh"}, "sha256:f13f12aebddb63d3eca0cd4b9e4812f68229bf7480b703435d3a5a0eb67c4485"},
		{Handler{Event: SessionStart, Command: "/tmp/hk/obs3/ctx.sh"}, "sha256:59e157bb2d061a39350ac3965d116ade0f3d5347ecb39b39334681015dea43bd"},
	}
	for _, c := range cases {
		if got := c.h.Hash(); got != c.want {
			t.Errorf("%s %s: hash %s, want %s", c.h.Event, c.h.Command, got, c.want)
		}
	}
}

// Hooks run only when trusted; disabled ones never; project hooks only in trusted projects.
func TestTrust(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "hooks.json"), `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"},{"type":"command","command":"false"}]}]}}`)
	write(t, filepath.Join(project, ".codex", "hooks.json"), `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo project"}]}]}}`)

	e, warnings := Load(Options{CodexHome: home, NotLoaded: []string{filepath.Join(project, ".codex")}})
	if len(e.Handlers()) != 0 || len(warnings) != 3 {
		t.Fatalf("untrusted: %d handlers, warnings %q", len(e.Handlers()), warnings)
	}
	if !strings.Contains(warnings[2], "not trusted") || !strings.Contains(warnings[0], "project is not trusted") {
		t.Errorf("warnings: %q", warnings)
	}

	// Trust the first user hook, disable the second.
	bypass, _ := Load(Options{CodexHome: home, BypassTrust: true})
	first, second := bypass.Handlers()[0], bypass.Handlers()[1]
	write(t, filepath.Join(home, "config.toml"), "model = \"m\"\n[hooks.state."+quote(first.Key())+"]\ntrusted_hash = "+quote(first.Hash())+
		"\n[hooks.state."+quote(second.Key())+"]\nenabled = false\n")
	e, warnings = Load(Options{CodexHome: home, ProjectFolders: []string{filepath.Join(project, ".codex")}})
	var keys []string
	for _, h := range e.Handlers() {
		keys = append(keys, h.Key())
	}
	if diff := cmp.Diff([]string{filepath.Join(home, "hooks.json") + ":stop:0:0"}, keys); diff != "" {
		t.Errorf("trusted handlers (-want +got):\n%s", diff)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], filepath.Join(project, ".codex", "hooks.json")+":stop:0:0 is not trusted") {
		t.Errorf("warnings: %q", warnings)
	}

	// A modified command is no longer trusted.
	write(t, filepath.Join(home, "hooks.json"), `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true # changed"}]}]}}`)
	if e, _ := Load(Options{CodexHome: home}); len(e.Handlers()) != 0 {
		t.Errorf("a changed hook still runs")
	}
}

// Inline [[hooks.<Event>]] tables load like hooks.json, with their config.toml as source.
func TestInlineTOML(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, "config.toml"), `model = "m"
[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "echo inline"
timeout = 7
statusMessage = "checking"
`)
	e, warnings := Load(Options{CodexHome: home, BypassTrust: true})
	if len(warnings) != 0 || len(e.Handlers()) != 1 {
		t.Fatalf("handlers %d, warnings %q", len(e.Handlers()), warnings)
	}
	h := e.Handlers()[0]
	if h.Key() != filepath.Join(home, "config.toml")+":pre_tool_use:0:0" || h.Timeout.Seconds() != 7 || *h.Matcher != "Bash" || *h.StatusMessage != "checking" || h.Source != "user" {
		t.Errorf("handler: %+v", h)
	}
}

// Bad configuration is reported with file, line and column; the rest still loads.
func TestBadConfigurationIsReported(t *testing.T) {
	cases := []struct {
		name, file, content, want string
	}{
		{"json syntax", "hooks.json", "{\"hooks\":{\n  \"Stop\": [,]\n}}", "hooks.json:2:12: invalid character ','"},
		{"json type", "hooks.json", "{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"x\",\"timeout\":\"soon\"}]}]}}", "hooks.json:1:"},
		{"toml syntax", "config.toml", "model = \"m\"\n[hooks\n", "config.toml:2:"},
		{"unknown event", "hooks.json", `{"hooks":{"BeforeTool":[]}}`, `unknown hook event "BeforeTool"`},
		{"unsupported event", "hooks.json", `{"hooks":{"PreCompact":[{"hooks":[{"type":"command","command":"x"}]}]}}`, "PreCompact hooks are not supported by gocodex"},
		{"bad matcher", "hooks.json", `{"hooks":{"PreToolUse":[{"matcher":"(","hooks":[{"type":"command","command":"x"}]}]}}`, "not a valid regular expression"},
		{"prompt type", "hooks.json", `{"hooks":{"Stop":[{"hooks":[{"type":"prompt","command":"x"}]}]}}`, `hook type "prompt" is not supported`},
		{"async", "hooks.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x","async":true}]}]}}`, "async hooks are not supported"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			write(t, filepath.Join(home, c.file), c.content)
			_, warnings := Load(Options{CodexHome: home, BypassTrust: true})
			if len(warnings) != 1 || !strings.Contains(warnings[0], c.want) || !strings.Contains(warnings[0], filepath.Join(home, c.file)) {
				t.Errorf("warnings %q, want one naming %s and saying %q", warnings, c.file, c.want)
			}
		})
	}
}

func runOne(t *testing.T, ev Event, matcher string, handlers ...string) (Outcome, []protocol.HookRunSummary) {
	t.Helper()
	e := engineWith(t, ev, matcher, handlers...)
	var got events
	out := e.Run(context.Background(), input(ev, t.TempDir()), got.emit)
	return out, got.completed()
}

func TestRunOutcomes(t *testing.T) {
	deny := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not here"}}`
	cases := []struct {
		name    string
		ev      Event
		cmd     string
		blocked string
		context []string
		status  protocol.HookRunStatus
		entry   string
	}{
		{"deny json", PreToolUse, "cat >/dev/null; echo '" + deny + "'", "not here", nil, protocol.HookBlocked, "not here"},
		{"exit 2", PreToolUse, "echo ' no shell today ' >&2; exit 2", "no shell today", nil, protocol.HookBlocked, "no shell today"},
		{"legacy block", UserPromptSubmit, `echo '{"decision":"block","reason":"nope"}'`, "nope", nil, protocol.HookBlocked, "nope"},
		{"exit 1 does not block", PreToolUse, "echo bad >&2; exit 1", "", nil, protocol.HookFailed, "hook exited with code 1: bad"},
		{"plain context", UserPromptSubmit, "echo '  some context  '", "", []string{"some context"}, protocol.HookCompleted, "some context"},
		{"json context", SessionStart, `echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"}}'`, "", []string{"ctx"}, protocol.HookCompleted, "ctx"},
		{"post tool use block", PostToolUse, `echo '{"decision":"block","reason":"output looks wrong"}'`, "output looks wrong", nil, protocol.HookBlocked, "output looks wrong"},
		{"plain stdout of a tool hook is not context", PostToolUse, "echo looked", "", nil, protocol.HookCompleted, ""},
		{"garbage", UserPromptSubmit, "echo '{not json'", "", nil, protocol.HookFailed, "hook returned invalid user prompt submit JSON output"},
		{"crash", Stop, "kill -SEGV $$", "", nil, protocol.HookFailed, "hook was killed by a signal"},
		{"deny without reason", PreToolUse, `echo '{"hookSpecificOutput":{"permissionDecision":"deny"}}'`, "", nil, protocol.HookFailed, "without a permissionDecisionReason"},
		{"allow is unsupported", PreToolUse, `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`, "", nil, protocol.HookFailed, "unsupported permissionDecision:allow"},
		{"missing program", Stop, "/no/such/hook", "", nil, protocol.HookFailed, "hook exited with code 127"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			matcher := ""
			if c.ev == PreToolUse || c.ev == PostToolUse {
				matcher = "Bash"
			}
			out, runs := runOne(t, c.ev, matcher, command(c.cmd, 0))
			if out.Blocked != (c.blocked != "") || out.Reason != c.blocked {
				t.Errorf("outcome %+v, want block %q", out, c.blocked)
			}
			if diff := cmp.Diff(c.context, out.Context); diff != "" {
				t.Errorf("context (-want +got):\n%s", diff)
			}
			if len(runs) != 1 {
				t.Fatalf("%d runs", len(runs))
			}
			if runs[0].Status != c.status {
				t.Errorf("status %s, want %s (%+v)", runs[0].Status, c.status, runs[0].Entries)
			}
			if c.entry != "" && (len(runs[0].Entries) == 0 || !strings.Contains(runs[0].Entries[0].Text, c.entry)) {
				t.Errorf("entries %+v, want %q", runs[0].Entries, c.entry)
			}
		})
	}
}

// A hook gets the event JSON on stdin, runs in the session cwd, and matchers select.
func TestRunStdinCwdAndMatcher(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "stdin.json")
	e := engineWith(t, PreToolUse, "^Ba", command("cat > "+log+"; pwd > "+log+".cwd", 0))
	var got events
	in := input(PreToolUse, dir)
	e.Run(context.Background(), in, got.emit)
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := in.payload()
	if string(b) != string(want) {
		t.Errorf("stdin %s, want %s", b, want)
	}
	if cwd, _ := os.ReadFile(log + ".cwd"); strings.TrimSpace(string(cwd)) != dir {
		t.Errorf("cwd %q, want %q", cwd, dir)
	}
	in.ToolName = "apply_patch"
	var none events
	e.Run(context.Background(), in, none.emit)
	if len(none.all) != 0 {
		t.Errorf("a non-matching tool ran hooks: %v", none.all)
	}
	if len(got.all) != 2 || got.all[0].EventType() != "hook_started" || got.all[1].EventType() != "hook_completed" {
		t.Errorf("events %v", got.all)
	}
}

// A hook that hangs past its timeout is killed with whatever it started, and reported; the
// other hooks of the event still count.
func TestTimeout(t *testing.T) {
	out, runs := runOne(t, UserPromptSubmit, "", command("sleep 30 & sleep 30", 1), command("echo after", 0))
	if diff := cmp.Diff([]string{"after"}, out.Context); diff != "" {
		t.Errorf("context (-want +got):\n%s", diff)
	}
	var timedOut bool
	for _, r := range runs {
		if r.Status == protocol.HookFailed && len(r.Entries) == 1 && r.Entries[0].Text == "hook timed out after 1s" {
			timedOut = true
		}
	}
	if !timedOut {
		t.Errorf("runs %+v", runs)
	}
}

// Huge output is capped, read to the end (the hook is not blocked on its pipe) and reported.
func TestHugeOutputIsCapped(t *testing.T) {
	out, runs := runOne(t, UserPromptSubmit, "", command("head -c 5000000 /dev/zero | tr '\\0' x", 0))
	if len(out.Context) != 1 || len(out.Context[0]) != OutputLimit {
		t.Fatalf("context of %d texts", len(out.Context))
	}
	if runs[0].Entries[0].Kind != "warning" || !strings.Contains(runs[0].Entries[0].Text, "cut") {
		t.Errorf("entries %+v", runs[0].Entries[0])
	}
}

// An interrupted turn stops its hooks.
func TestCanceledRunStops(t *testing.T) {
	e := engineWith(t, Stop, "", command("sleep 30", 0))
	ctx, cancel := context.WithCancel(context.Background())
	var got events
	done := make(chan Outcome)
	go func() { done <- e.Run(ctx, input(Stop, t.TempDir()), got.emit) }()
	for {
		got.mu.Lock()
		n := len(got.all)
		got.mu.Unlock()
		if n > 0 {
			break
		}
		runtimeGosched()
	}
	cancel()
	<-done
	if runs := got.completed(); len(runs) != 1 || runs[0].Status != protocol.HookStopped {
		t.Errorf("runs %+v", runs)
	}
}

// Hooks load from every trusted .codex folder between the project root and cwd, root first,
// except the files Keep refuses (an untrusted session wrote them).
func TestProjectFoldersAndKeep(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	outer, inner := filepath.Join(root, ".codex"), filepath.Join(root, "sub", ".codex")
	write(t, filepath.Join(outer, "hooks.json"), `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo outer"}]}]}}`)
	write(t, filepath.Join(inner, "hooks.json"), `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo inner"}]}]}}`)
	planted := filepath.Join(inner, "config.toml")
	write(t, planted, "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"echo planted\"\n")
	listed, _, _ := List(Options{CodexHome: home, ProjectFolders: []string{outer, inner}, Keep: func(p string) bool { return p != planted }})
	var commands []string
	for _, it := range listed {
		commands = append(commands, it.Handler.Command)
	}
	if diff := cmp.Diff([]string{"echo outer", "echo inner"}, commands); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
	}
}
