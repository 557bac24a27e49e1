package e2e

import (
	"encoding/json"
	"os"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// startKeys are the keys of thread/start's answer, with the values of the fixed ones.
func startKeys(t *testing.T, bin string) map[string]string {
	e := appServerEnv(t, "never")
	c, _ := e.startAppServerOf(bin)
	res, er := c.call("thread/start", map[string]any{"cwd": e.Workdir})
	if er != nil {
		t.Fatalf("%s: %+v", bin, er)
	}
	var m map[string]json.RawMessage
	json.Unmarshal(res, &m)
	out := map[string]string{}
	for k, v := range m {
		switch k {
		case "thread", "cwd":
			out[k] = "…"
		case "runtimeWorkspaceRoots":
			var roots []string
			json.Unmarshal(v, &roots)
			sort.Strings(roots)
			if len(roots) == 1 && roots[0] == e.Workdir {
				out[k] = "[cwd]"
			} else {
				out[k] = string(v)
			}
		default:
			out[k] = string(v)
		}
	}
	return out
}

// thread/start answers every key Codex 0.169 sends (activePermissionProfile,
// disabledPluginIds, runtimeWorkspaceRoots, multiAgentMode were missing), with its values.
func TestAppServerThreadStartKeys(t *testing.T) {
	ours := startKeys(t, binary)
	want := map[string]string{"thread": "…", "cwd": "…", "model": `"gpt-5.5"`, "modelProvider": `"mock"`, "serviceTier": "null",
		"activePermissionProfile": "null", "disabledPluginIds": "[]", "runtimeWorkspaceRoots": "[cwd]", "instructionSources": "[]",
		"approvalPolicy": `"never"`, "approvalsReviewer": `"user"`, "sandbox": `{"type":"dangerFullAccess"}`, "reasoningEffort": "null",
		"multiAgentMode": `"explicitRequestOnly"`}
	if diff := cmp.Diff(want, ours); diff != "" {
		t.Errorf("thread/start (-want +got):\n%s", diff)
	}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		if diff := cmp.Diff(startKeys(t, ref), ours); diff != "" {
			t.Errorf("thread/start (-codex +ours):\n%s", diff)
		}
	}
}
