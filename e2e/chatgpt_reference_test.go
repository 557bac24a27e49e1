package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// chatgptTurnHeaders runs one exec turn signed in with ChatGPT through bin and returns the
// path of the model request on the backend and its credential headers.
func chatgptTurnHeaders(t *testing.T, bin string) (string, map[string]string) {
	w := newChatGPTWorld(t, time.Hour)
	w.Model.Enqueue(answer("PLANANSWER"))
	w.ExtraEnv = append(w.ExtraEnv, "SSL_CERT_FILE="+w.backend.CAFile, "HOME="+t.TempDir())
	r := w.runBin(bin, "", "exec", "--json", "--skip-git-repo-check", "hi")
	if r.Code != 0 || !strings.Contains(r.Stdout, "PLANANSWER") {
		t.Fatalf("%s exec: %+v", bin, r)
	}
	var path string
	for _, p := range w.backend.Paths() {
		if strings.HasPrefix(p, "POST ") && strings.HasSuffix(p, "/responses") {
			path = p
		}
	}
	reqs := w.Model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%s: %d model requests", bin, len(reqs))
	}
	h := map[string]string{}
	for _, k := range []string{"Authorization", "Chatgpt-Account-Id", "Originator", "X-Testkit-Content-Encoding", "Accept"} {
		h[k] = strings.ReplaceAll(reqs[0].Header.Get(k), w.access, "<access token>")
	}
	return path, h
}

// Signed in with ChatGPT, our exec turn goes to the same backend path with the same
// credential headers as Codex 0.169's (signin.md §2.1).
func TestChatGPTTurnMatchesReference(t *testing.T) {
	ref := referenceBinary(t)
	ourPath, ours := chatgptTurnHeaders(t, binary)
	refPath, theirs := chatgptTurnHeaders(t, ref)
	if ourPath != refPath {
		t.Errorf("path: codex %q, ours %q", refPath, ourPath)
	}
	if diff := cmp.Diff(theirs, ours); diff != "" {
		t.Errorf("headers (-codex +ours):\n%s", diff)
	}
}
