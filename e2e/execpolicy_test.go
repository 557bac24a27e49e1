package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// `gocodex execpolicy check` prints the matching rules as Codex does; with the reference
// binary available the outputs are compared byte for byte.
func TestExecpolicyCheckCommand(t *testing.T) {
	e := newEnv(t)
	rules := filepath.Join(t.TempDir(), "test.rules")
	if err := os.WriteFile(rules, []byte(`prefix_rule(pattern=["git", ["status", "log"]], decision="allow")
prefix_rule(pattern=["rm"], decision="forbidden", justification="no deleting")
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		`{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git","status"],"decision":"allow"}}],"decision":"allow"}` + "\n":                             {"git", "status"},
		`{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["rm"],"decision":"forbidden","justification":"no deleting"}}],"decision":"forbidden"}` + "\n": {"rm", "-rf", "x"},
		`{"matchedRules":[]}` + "\n": {"ls"},
	}
	ref := os.Getenv("GOCODEX_REFERENCE_CODEX")
	for want, cmd := range cases {
		args := append([]string{"execpolicy", "check", "--rules", rules, "--"}, cmd...)
		r := e.run("", args...)
		if r.Code != 0 || r.Stdout != want {
			t.Errorf("%v: exit %d, stdout %q, want %q (stderr %s)", cmd, r.Code, r.Stdout, want, r.Stderr)
		}
		if ref != "" {
			saved := binary
			binary = ref
			theirs := e.run("", args...)
			binary = saved
			if theirs.Stdout != r.Stdout {
				t.Errorf("%v: ours %q, Codex %q", cmd, r.Stdout, theirs.Stdout)
			}
		}
	}
}
