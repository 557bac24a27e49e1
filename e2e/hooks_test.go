package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/hooks"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

// writeHooks writes $CODEX_HOME/hooks.json; trust, when set, also trusts every hook in it
// through [hooks.state] in config.toml, as Codex's hooks/list would record it.
func (e *env) writeHooks(t *testing.T, hooksJSON string, trust bool) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(e.CodexHome, "hooks.json"), []byte(hooksJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	if !trust {
		return
	}
	engine, warnings := hooks.Load(hooks.Options{CodexHome: e.CodexHome, BypassTrust: true})
	if len(warnings) > 0 {
		t.Fatalf("hooks.json: %v", warnings)
	}
	var b strings.Builder
	for _, h := range engine.Handlers() {
		b.WriteString("\n[hooks.state." + quoteTOML(h.Key()) + "]\ntrusted_hash = " + quoteTOML(h.Hash()) + "\n")
	}
	f, err := os.OpenFile(filepath.Join(e.CodexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
}

func quoteTOML(s string) string { b, _ := json.Marshal(s); return string(b) }

// hookScript writes an executable script into dir and returns its path.
func hookScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func shellCall(cmd string) tk.Response {
	args, _ := json.Marshal(map[string]string{"cmd": cmd})
	return tk.SSE(tk.Created(), tk.FunctionCall("call_1", "exec_command", string(args)), tk.Completed(tk.Usage{Input: 20, Output: 3, Total: 23}))
}

// A PreToolUse hook exiting 2 blocks the command: it never runs, and the model is told why.
func TestHooksPreToolUseBlocksCommand(t *testing.T) {
	e := newEnv(t)
	deny := hookScript(t, t.TempDir(), "deny.sh", "cat >/dev/null\necho 'no touching' >&2\nexit 2")
	e.writeHooks(t, `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":`+quoteTOML(deny)+`}]}]}}`, true)
	e.Model.Enqueue(shellCall("touch marker.txt"), answer("blocked, fine"))
	r := e.run("", "exec", "--json", "touch it")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(e.Workdir, "marker.txt")); err == nil {
		t.Errorf("the blocked command ran")
	}
	out, ok := e.Model.Requests()[1].ToolOutput("call_1")
	if want := "Command blocked by PreToolUse hook: no touching. Command: touch marker.txt"; !ok || out != want {
		t.Errorf("tool output %v, want %q", out, want)
	}
	for _, ty := range types(jsonl(t, r.Stdout)) {
		if strings.Contains(ty, "command_execution") {
			t.Errorf("a blocked command shows as %s", ty)
		}
	}
}

// A UserPromptSubmit hook's additionalContext reaches the model as a developer message
// right after the prompt; an untrusted hook does not run and is reported.
func TestHooksUserPromptSubmitAddsContext(t *testing.T) {
	e := newEnv(t)
	ctx := hookScript(t, t.TempDir(), "ctx.sh", `cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"the build is red"}}'`)
	e.writeHooks(t, `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":`+quoteTOML(ctx)+`}]}]}}`, true)
	e.Model.Enqueue(answer("ok"))
	if r := e.run("", "exec", "--json", "fix the build"); r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	input := e.Model.Requests()[0].Input()
	var tail []string
	for _, it := range input[len(input)-2:] {
		content := it["content"].([]any)
		tail = append(tail, it["role"].(string)+": "+content[0].(map[string]any)["text"].(string))
	}
	if diff := cmp.Diff([]string{"user: fix the build", "developer: the build is red"}, tail); diff != "" {
		t.Errorf("request tail (-want +got):\n%s", diff)
	}

	// Untrusted (no [hooks.state]): the hook does not run, and the person is told.
	u := newEnv(t)
	u.writeHooks(t, `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":`+quoteTOML(ctx)+`}]}]}}`, false)
	u.Model.Enqueue(answer("ok"))
	r := u.run("", "exec", "fix the build")
	if strings.Contains(strings.Join(u.Model.Requests()[0].MessageTexts("developer"), "\n"), "the build is red") {
		t.Errorf("an untrusted hook ran")
	}
	if !strings.Contains(r.Stderr, "is not trusted and will not run") {
		t.Errorf("stderr does not say the hook is untrusted:\n%s", r.Stderr)
	}
}

// A hook that hangs is stopped at its timeout, the failure is shown (hook/completed), and
// the turn goes on to the model.
func TestHooksTimeoutTurnGoesOn(t *testing.T) {
	e := newEnv(t)
	slow := hookScript(t, t.TempDir(), "slow.sh", "cat >/dev/null\nsleep 30")
	e.writeHooks(t, `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":`+quoteTOML(slow)+`,"timeout":1}]}]}}`, true)
	e.Model.Enqueue(answer("still here"))
	c, stop := e.startAppServer()
	defer stop()
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	c.turn(id, "hello")
	ms := c.until("turn/completed")
	if st := lastTurnStatus(t, ms); st != "completed" {
		t.Errorf("turn %s", st)
	}
	started, done := pick(ms, "hook/started"), pick(ms, "hook/completed")
	if len(started) != 1 || len(done) != 1 {
		t.Fatalf("hook notifications: %d started, %d completed", len(started), len(done))
	}
	run := done[0]["run"].(map[string]any)
	entries, _ := json.Marshal(run["entries"])
	if run["status"] != "failed" || run["eventName"] != "userPromptSubmit" || string(entries) != `[{"kind":"error","text":"hook timed out after 1s"}]` {
		t.Errorf("hook/completed run: %v", run)
	}
	if n := len(e.Model.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1", n)
	}
}

// The event JSON a hook receives has the keys Codex 0.169 sends, event by event.
func TestHooksStdinMatchesReference(t *testing.T) {
	ref := referenceBinary(t)
	run := func(bin string) map[string][]string {
		e := newEnv(t)
		logDir := t.TempDir()
		script := hookScript(t, t.TempDir(), "log.sh", `cat > "`+logDir+`/$1.json"`)
		var groups []string
		for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"} {
			groups = append(groups, `"`+ev+`":[{"hooks":[{"type":"command","command":`+quoteTOML(script+" "+ev)+`}]}]`)
		}
		e.writeHooks(t, `{"hooks":{`+strings.Join(groups, ",")+`}}`, true)
		e.Model.Enqueue(shellCall("echo hi"), answer("Done."))
		if r := e.runBin(bin, "", "exec", "--json", "--skip-git-repo-check", "say hi"); r.Code != 0 {
			t.Fatalf("%s: exit %d\n%s", bin, r.Code, r.Stderr)
		}
		got := map[string][]string{}
		files, _ := filepath.Glob(filepath.Join(logDir, "*.json"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("%s: %v: %s", f, err, b)
			}
			var keys []string
			for k, v := range m {
				keys = append(keys, k+":"+jsonKind(v))
			}
			sort.Strings(keys)
			got[filepath.Base(f)] = append(keys, "tool_input="+asJSON(m["tool_input"]), "tool_name="+asJSON(m["tool_name"]))
		}
		return got
	}
	theirs, ours := run(ref), run(binary)
	if len(theirs) != 5 {
		t.Fatalf("the reference ran %d hooks: %v", len(theirs), theirs)
	}
	if diff := cmp.Diff(theirs, ours); diff != "" {
		t.Errorf("hook stdin (-reference +ours):\n%s", diff)
	}
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "bool"
	case float64:
		return "number"
	case []any:
		return "array"
	}
	return "object"
}

func asJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// A UserPromptSubmit block ends the turn before the model: exec shows an empty turn, as
// Codex 0.169 does (plus the bypass warning, which Codex prints twice).
func TestHooksBlockedPromptNeverReachesTheModel(t *testing.T) {
	e := newEnv(t)
	gate := hookScript(t, t.TempDir(), "gate.sh", `if grep -q secret; then echo '{"decision":"block","reason":"no secrets"}'; fi`)
	e.writeHooks(t, `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":`+quoteTOML(gate)+`}]}]}}`, false)
	r := e.run("", "exec", "--json", "--dangerously-bypass-hook-trust", "my secret plan")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	want := []string{"thread.started", "item.completed:error", "turn.started", "turn.completed"}
	if diff := cmp.Diff(want, types(jsonl(t, r.Stdout))); diff != "" {
		t.Errorf("events (-want +got):\n%s\n%s", diff, r.Stdout)
	}
	if n := len(e.Model.Requests()); n != 0 {
		t.Errorf("%d model requests after a blocked prompt", n)
	}
}
