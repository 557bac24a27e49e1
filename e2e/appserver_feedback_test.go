package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// feedbackPromptHashes saves feedback for a fresh thread, then again after a turn, and
// returns both promptHash answers ("" for null).
func feedbackPromptHashes(t *testing.T, bin string) (before, after string) {
	e := newEnv(t)
	c, stop := e.startAppServerOf(bin)
	defer stop()
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	hash := func(name string) string {
		var res struct {
			PromptHash *string `json:"promptHash"`
		}
		c.mustCall("feedback/save", map[string]any{"classification": "bug", "savePath": filepath.Join(e.Workdir, name), "threadId": id}, &res)
		if res.PromptHash == nil {
			return ""
		}
		return *res.PromptHash
	}
	before = hash("before.zip")
	e.Model.Enqueue(answer("hi"))
	c.turn(id, "hello")
	c.until("turn/completed")
	return before, hash("after.zip")
}

// feedback/save's promptHash is the whitespace-normalized SHA-256 of the thread's base
// instructions (Codex 0.169's definition, checked on its own rollouts while recording), null
// while the thread has no rollout. gocodex's base instructions are its own text, so the
// values differ from Codex's; when each is there is the same.
func TestFeedbackPromptHash(t *testing.T) {
	before, after := feedbackPromptHashes(t, binary)
	if before != "" || len(after) != 64 {
		t.Fatalf("promptHash before a turn %q, after %q", before, after)
	}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		refBefore, refAfter := feedbackPromptHashes(t, ref)
		if refBefore != "" || len(refAfter) != 64 {
			t.Errorf("Codex 0.169: %q then %q", refBefore, refAfter)
		}
	}
}
