package e2e

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// A patch under workspace-write is written by apply_patch inside the sandbox; the person and
// the model see exactly what they see when it is written in-process under
// danger-full-access: the same events with the same contents, the same output.
func TestSandboxedPatchKeepsItsEvents(t *testing.T) {
	run := func(sandbox string) (events []string, output string) {
		e := newEnv(t)
		tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{SandboxMode: sandbox})
		seedPatchFiles(t, e.Workdir)
		e.Model.Enqueue(tk.SSE(tk.Created(), tk.CustomToolCall("call_p", "apply_patch", addUpdateMoveDeletePatch), tk.Completed(tk.Usage{})), answer("patched"))
		p := e.startProto()
		p.until("session_configured")
		p.send("1", userInput("edit files"))
		for _, ev := range p.until("task_complete") {
			switch msgType(ev) {
			case "patch_apply_begin", "patch_apply_end", "turn_diff", "apply_patch_approval_request":
				b, _ := json.Marshal(ev["msg"])
				// The work trees differ by name only.
				events = append(events, strings.ReplaceAll(string(b), e.Workdir, "$WORK"))
			}
		}
		if got := readFile(t, filepath.Join(e.Workdir, "new/name.txt")); got != "moved\n" {
			t.Errorf("%s: new/name.txt = %q", sandbox, got)
		}
		out := customOutput(t, e.Model.Requests()[1].JSON, "call_p")
		return events, regexp.MustCompile(`Wall time: [0-9.]+ seconds`).ReplaceAllString(out, "Wall time: X seconds")
	}
	inProcess, inProcessOut := run("danger-full-access")
	sandboxed, sandboxedOut := run("workspace-write")
	if len(inProcess) != 3 {
		t.Fatalf("in-process events: %v", inProcess)
	}
	if diff := cmp.Diff(inProcess, sandboxed); diff != "" {
		t.Errorf("events differ (-in-process +sandboxed):\n%s", diff)
	}
	if sandboxedOut != inProcessOut || !strings.Contains(sandboxedOut, "Success. Updated the following files:") {
		t.Errorf("the model received\n%s\nfrom the sandbox, and\n%s\nin-process", sandboxedOut, inProcessOut)
	}
}
