package e2e

import (
	"os"
	"testing"
)

// hooks/list answers the configured hooks with their trust (schema-validated), where it
// used to answer an empty list whatever was configured.
func TestAppServerHooksList(t *testing.T) {
	e := appServerEnv(t, "never")
	e.writeHooks(t, `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true","timeout":30}]}],`+
		`"Stop":[{"hooks":[{"type":"command","command":"echo done"}]}]}}`, false)
	c, _ := e.startAppServer()
	var res struct {
		Data []struct {
			Cwd   string
			Hooks []struct {
				EventName, TrustStatus, Command, CurrentHash, Source string
				TimeoutSec                                           int64
				Enabled                                              bool
			}
		}
	}
	c.mustCall("hooks/list", map[string]any{"cwds": []string{e.Workdir}}, &res)
	if len(res.Data) != 1 || len(res.Data[0].Hooks) != 2 {
		t.Fatalf("hooks/list: %+v", res)
	}
	h := res.Data[0].Hooks[0]
	if h.EventName != "preToolUse" || h.TrustStatus != "untrusted" || h.Command != "true" || h.TimeoutSec != 30 || h.CurrentHash == "" || h.Source != "user" || !h.Enabled {
		t.Errorf("first hook %+v", h)
	}
	// Trusting the hooks shows them trusted.
	os.Remove(e.CodexHome + "/hooks.json")
	e.writeHooks(t, `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true","timeout":30}]}]}}`, true)
	c.mustCall("hooks/list", map[string]any{}, &res)
	if len(res.Data) != 1 || len(res.Data[0].Hooks) != 1 || res.Data[0].Hooks[0].TrustStatus != "trusted" {
		t.Errorf("after trusting: %+v", res)
	}
}

// A hook runs inside the session's sandbox policy: under read-only it cannot write into the
// workspace, with full access it can. (Codex 0.169 runs hooks unconfined; the issue asks for
// the policy, judged here from outside the sandbox.)
func TestHookRunsInsideTheSandbox(t *testing.T) {
	for _, c := range []struct {
		args  []string
		wrote bool
	}{
		{[]string{"-s", "read-only"}, false},
		{[]string{"--dangerously-bypass-approvals-and-sandbox"}, true},
	} {
		e := newEnv(t)
		target := e.Workdir + "/pwned"
		e.writeHooks(t, `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"touch `+target+`"}]}]}}`, true)
		e.Model.Enqueue(answer("ok"))
		r := e.run("", append([]string{"exec", "--skip-git-repo-check"}, append(c.args, "hi")...)...)
		if r.Code != 0 {
			t.Fatalf("%v: %+v", c.args, r)
		}
		if _, err := os.Stat(target); (err == nil) != c.wrote {
			t.Errorf("%v: the hook wrote into the workspace: %v (want %v)", c.args, err == nil, c.wrote)
		}
	}
}
