package e2e

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// exec --oss against a scripted Ollama: the model is pulled when missing (progress on
// stderr), then the turn goes to the local server's Responses endpoint.
func TestExecOSSPullsAndAnswers(t *testing.T) {
	e := newEnv(t)
	ollama := tk.NewOllamaServer(t, e.Model)
	e.ExtraEnv = append(e.ExtraEnv, "CODEX_OSS_BASE_URL="+ollama.BaseURL())
	e.Model.Enqueue(answer("LOCALANSWER"))
	r := e.run("", "exec", "--oss", "--local-provider", "ollama", "-m", "gpt-oss:20b", "--skip-git-repo-check", "hi")
	if r.Code != 0 || !strings.Contains(r.Stdout, "LOCALANSWER") {
		t.Fatalf("exec --oss: %+v", r)
	}
	if p := ollama.Pulls(); len(p) != 1 || p[0] != "gpt-oss:20b" {
		t.Errorf("pulls = %v", p)
	}
	if !strings.Contains(r.Stderr, "Pulling model gpt-oss:20b") || !strings.Contains(r.Stderr, "downloading 100%") {
		t.Errorf("no pull progress:\n%s", r.Stderr)
	}
	// Pulled once: the next session finds it.
	e.Model.Enqueue(answer("AGAIN"))
	if r := e.run("", "exec", "--oss", "-m", "gpt-oss:20b", "--skip-git-repo-check", "hi"); r.Code != 0 || len(ollama.Pulls()) != 1 {
		t.Errorf("second run: %+v, pulls %v", r, ollama.Pulls())
	}
}

// Nothing listening: Codex's message, at once (no retries for seconds).
func TestExecOSSNothingListening(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	e := newEnv(t)
	e.ExtraEnv = append(e.ExtraEnv, "CODEX_OSS_PORT="+strconv.Itoa(port))
	for provider, want := range map[string]string{
		"ollama":   "OSS setup failed: No running Ollama server detected. Start it with: `ollama serve`",
		"lmstudio": "OSS setup failed: LM Studio is not responding. Install from https://lmstudio.ai/download and run 'lms server start'.",
	} {
		start := time.Now()
		r := e.run("", "exec", "--oss", "--local-provider", provider, "--skip-git-repo-check", "hi")
		if r.Code == 0 || !strings.Contains(r.Stderr, want) {
			t.Errorf("%s: %+v", provider, r)
		}
		if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
			// The message is Codex 0.169's, seen from the same setup.
			if rr := e.runBin(ref, "", "exec", "--oss", "--local-provider", provider, "--skip-git-repo-check", "hi"); rr.Code == 0 || !strings.Contains(rr.Stderr, want) {
				t.Errorf("codex %s: %+v", provider, rr)
			}
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: took %v", provider, d)
		}
	}
}
