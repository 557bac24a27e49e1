package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// skillsSeenByModel sets extra skill roots, starts a thread and a turn, and says whether the
// model's request names the skill found under them.
func skillsSeenByModel(t *testing.T, bin string) bool {
	e := newEnv(t)
	extra := filepath.Join(e.home(), "extra-skills")
	writeFile(t, filepath.Join(extra, "extra", "SKILL.md"), "---\nname: extraordinary\ndescription: An extra skill.\n---\nSay hi.\n")
	c, stop := e.startAppServerOf(bin)
	defer stop()
	c.mustCall("skills/extraRoots/set", map[string]any{"extraRoots": []string{extra}}, nil)
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	e.Model.Enqueue(answer("hi"))
	c.turn(id, "hello")
	c.until("turn/completed")
	reqs := e.Model.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	return strings.Contains(string(reqs[len(reqs)-1].Body), "extraordinary")
}

// Skills under the roots skills/extraRoots/set names are offered to the model of a thread
// started afterwards, as Codex 0.169 offers them (checked live where it is installed).
func TestExtraSkillRootsReachTheModel(t *testing.T) {
	if !skillsSeenByModel(t, binary) {
		t.Error("the model was not told of the extra root's skill")
	}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" && !skillsSeenByModel(t, ref) {
		t.Error("Codex 0.169 no longer offers extra roots' skills: this test's premise changed")
	}
}

// disabledSkillSeenByModel turns a skill off with skills/config/write, starts a thread and a
// turn, and says whether the model's request still names it.
func disabledSkillSeenByModel(t *testing.T, bin string) bool {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.CodexHome, "skills", "demo", "SKILL.md"), "---\nname: demonstrative\ndescription: A demo skill.\n---\nSay hi.\n")
	c, stop := e.startAppServerOf(bin)
	defer stop()
	c.mustCall("skills/config/write", map[string]any{"name": "demonstrative", "enabled": false}, nil)
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	e.Model.Enqueue(answer("hi"))
	c.turn(id, "hello")
	c.until("turn/completed")
	reqs := e.Model.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	return strings.Contains(string(reqs[len(reqs)-1].Body), "demonstrative")
}

// A skill turned off is not offered to the model of a thread started afterwards, as in
// Codex 0.169 (checked live where it is installed).
func TestDisabledSkillIsNotOffered(t *testing.T) {
	if disabledSkillSeenByModel(t, binary) {
		t.Error("the model was told of a disabled skill")
	}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" && disabledSkillSeenByModel(t, ref) {
		t.Error("Codex 0.169 offers disabled skills: this test's premise changed")
	}
}
