package e2e

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// feedback/upload posts the report's zip to the collector GOCODEX_FEEDBACK_URL names (a
// scripted one here); without one, or with one that cannot be reached, it answers -32603
// saying why.
func TestFeedbackUploadToCollector(t *testing.T) {
	var mu sync.Mutex
	var got [][]string // the entries of each zip received
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
		if err != nil || r.Header.Get("Content-Type") != "application/zip" {
			http.Error(w, "not a zip", http.StatusBadRequest)
			return
		}
		var names []string
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
		mu.Lock()
		got = append(got, names)
		mu.Unlock()
	}))
	defer collector.Close()

	upload := func(url string) (json.RawMessage, *rpcMsg) {
		e := newEnv(t)
		if url != "" {
			e.ExtraEnv = append(e.ExtraEnv, "GOCODEX_FEEDBACK_URL="+url)
		}
		c, stop := e.startAppServer()
		defer stop()
		return c.call("feedback/upload", map[string]any{"classification": "bug", "reason": "it broke", "includeLogs": false})
	}
	res, em := upload(collector.URL + "/feedback")
	if em != nil {
		t.Fatalf("upload: %d %s", em.Error.Code, em.Error.Message)
	}
	var r struct {
		ThreadID string `json:"threadId"`
	}
	_ = json.Unmarshal(res, &r)
	mu.Lock()
	if len(got) != 1 || strings.Join(got[0], " ") != "report.json manifest.json" || !strings.HasPrefix(r.ThreadID, "no-active-thread-") {
		t.Errorf("collector got %v, answer %s", got, res)
	}
	mu.Unlock()
	for _, url := range []string{"", "http://127.0.0.1:9/feedback"} {
		if _, em := upload(url); em == nil || em.Error.Code != -32603 || !strings.HasPrefix(em.Error.Message, "failed to upload feedback: ") {
			t.Errorf("upload to %q: %+v", url, em)
		}
	}
}
