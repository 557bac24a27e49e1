package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// addUpdateMoveDeletePatch does one of each hunk kind to the files seedPatchFiles writes.
var addUpdateMoveDeletePatch = strings.Join([]string{
	"*** Begin Patch",
	"*** Add File: added.txt",
	"+brand new",
	"*** Update File: update.txt",
	"@@",
	" one",
	"-two",
	"+TWO",
	" three",
	"*** Update File: old/name.txt",
	"*** Move to: new/name.txt",
	"@@",
	"-moving",
	"+moved",
	"*** Delete File: gone.txt",
	"*** End Patch",
}, "\n")

func seedPatchFiles(t *testing.T, dir string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "update.txt"), "one\ntwo\nthree\n")
	writeFile(t, filepath.Join(dir, "old/name.txt"), "moving\n")
	writeFile(t, filepath.Join(dir, "gone.txt"), "bye\n")
}

func TestPatchAddUpdateMoveDelete(t *testing.T) {
	e := newEnv(t)
	seedPatchFiles(t, e.Workdir)
	patch := addUpdateMoveDeletePatch
	e.Model.Enqueue(tk.SSE(tk.Created(), tk.CustomToolCall("call_p", "apply_patch", patch), tk.Completed(tk.Usage{})), answer("patched"))
	p := e.startProto()
	p.until("session_configured")
	p.send("1", userInput("edit files"))
	evs := p.until("task_complete")

	if got := readFile(t, filepath.Join(e.Workdir, "added.txt")); got != "brand new\n" {
		t.Errorf("added.txt = %q", got)
	}
	if got := readFile(t, filepath.Join(e.Workdir, "update.txt")); got != "one\nTWO\nthree\n" {
		t.Errorf("update.txt = %q", got)
	}
	if got := readFile(t, filepath.Join(e.Workdir, "new/name.txt")); got != "moved\n" {
		t.Errorf("new/name.txt = %q", got)
	}
	for _, gone := range []string{"gone.txt", "old/name.txt"} {
		if _, err := os.Stat(filepath.Join(e.Workdir, gone)); !os.IsNotExist(err) {
			t.Errorf("%s still exists", gone)
		}
	}
	if countType(evs, "patch_apply_begin") != 1 || countType(evs, "patch_apply_end") != 1 {
		t.Errorf("events: %v", msgTypes(evs))
	}
	var diff string
	for _, ev := range evs {
		if msgType(ev) == "turn_diff" {
			diff = ev["msg"].(map[string]any)["unified_diff"].(string)
		}
	}
	for _, want := range []string{"added.txt", "+brand new", "-two", "+TWO", "gone.txt", "new/name.txt"} {
		if !strings.Contains(diff, want) {
			t.Errorf("turn_diff lacks %q:\n%s", want, diff)
		}
	}
	reqs := e.Model.Requests()
	out := customOutput(t, reqs[1].JSON, "call_p")
	for _, want := range []string{"Success. Updated the following files:", "A added.txt", "M update.txt", "M new/name.txt", "D gone.txt"} {
		if !strings.Contains(out, want) {
			t.Errorf("model received %q, lacking %q", out, want)
		}
	}
}

func customOutput(t *testing.T, body map[string]any, callID string) string {
	t.Helper()
	for _, raw := range body["input"].([]any) {
		it := raw.(map[string]any)
		if it["type"] == "custom_tool_call_output" && it["call_id"] == callID {
			if s, ok := it["output"].(string); ok {
				return s
			}
			b, _ := json.Marshal(it["output"])
			return string(b)
		}
	}
	t.Fatalf("no custom_tool_call_output for %s", callID)
	return ""
}

func TestInteractiveProgramThroughPTY(t *testing.T) {
	e := newEnv(t)
	script := `read -p 'name? ' n; echo "hello $n"`
	args, _ := json.Marshal(map[string]any{"cmd": script, "tty": true, "yield_time_ms": 1500})
	e.Model.Enqueue(tk.SSE(tk.Created(), tk.FunctionCall("call_1", "exec_command", string(args)), tk.Completed(tk.Usage{})))
	p := e.startProto()
	p.until("session_configured")
	p.send("1", userInput("talk to it"))
	// The second response must name the session id of the running program, which the
	// scripted server learns from exec_command_begin while the first call is still waiting.
	evs := p.until("exec_command_begin")
	session := evs[len(evs)-1]["msg"].(map[string]any)["process_id"].(string)
	e.Model.Enqueue(
		tk.SSE(tk.Created(), tk.FunctionCall("call_2", "write_stdin", `{"session_id":`+session+`,"chars":"gopher\n","yield_time_ms":2000}`), tk.Completed(tk.Usage{})),
		// A poll, as a model does when the program has not finished: on a loaded machine the
		// sandboxed shell may start after the first two yields.
		tk.SSE(tk.Created(), tk.FunctionCall("call_3", "write_stdin", `{"session_id":`+session+`,"chars":"","yield_time_ms":5000}`), tk.Completed(tk.Usage{})),
		answer("greeted"),
	)
	p.until("task_complete")
	reqs := e.Model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	first := functionOutput(t, reqs[1].JSON, "call_1")
	if !strings.Contains(first, "Process running with session ID "+session) {
		t.Errorf("exec_command output:\n%s", first)
	}
	second := functionOutput(t, reqs[2].JSON, "call_2")
	third := functionOutput(t, reqs[3].JSON, "call_3")
	all := first + second + third
	if !strings.Contains(all, "name? ") || !strings.Contains(all, "hello gopher") ||
		!(strings.Contains(second, "Process exited with code 0") || strings.Contains(third, "Process exited with code 0")) ||
		strings.Index(all, "name? ") > strings.Index(all, "hello gopher") {
		t.Errorf("the program's prompt, greeting and exit are not in its outputs, in order:\n%s\n---\n%s\n---\n%s", first, second, third)
	}
}

// A model that runs apply_patch through exec_command (a heredoc in the shell) gets the patch
// applied by the apply_patch tool, with patch events, as Codex does.
func TestApplyPatchThroughShellHeredoc(t *testing.T) {
	e := newEnv(t)
	script := "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: via-shell.txt\n+written by a heredoc\n*** End Patch\nEOF"
	args, _ := json.Marshal(map[string]any{"cmd": script})
	e.Model.Enqueue(tk.SSE(tk.Created(), tk.FunctionCall("call_1", "exec_command", string(args)), tk.Completed(tk.Usage{})), answer("ok"))
	p := e.startProto()
	p.until("session_configured")
	p.send("1", userInput("patch via shell"))
	evs := p.until("task_complete")
	if got := readFile(t, filepath.Join(e.Workdir, "via-shell.txt")); got != "written by a heredoc\n" {
		t.Errorf("via-shell.txt = %q", got)
	}
	if countType(evs, "patch_apply_begin") != 1 || countType(evs, "exec_command_begin") != 0 {
		t.Errorf("events: %v", msgTypes(evs))
	}
	out := functionOutput(t, e.Model.Requests()[1].JSON, "call_1")
	if !strings.Contains(out, "Output:\nSuccess. Updated the following files:\nA via-shell.txt") {
		t.Errorf("model received:\n%s", out)
	}
}
