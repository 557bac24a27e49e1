package model_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

func topLevelKeys(t *testing.T, raw []byte) []string {
	t.Helper()
	keys, err := testkit.ObjectKeys(raw)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestReferenceRequestShape runs the real Codex 0.169 against the scripted server and checks
// that our request body has the same top-level fields in the same order, and that every
// header we send is one Codex sends too. Skipped when the reference binary is not installed.
func TestReferenceRequestShape(t *testing.T) {
	bin := testkit.ReferenceCodex()
	if bin == "" || testing.Short() {
		t.Skip("reference Codex binary not installed (../shared/tools/reference-codex)")
	}
	srv := testkit.NewServer(t)
	srv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessageStream("msg_1", "Hi."), testkit.Completed(testkit.Usage{Input: 5, Output: 1})))
	home, work := t.TempDir(), t.TempDir()
	testkit.WriteConfig(t, home, srv.URL())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "exec", "--json", "--skip-git-repo-check", "hi")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "CODEX_HOME="+home, "MOCK_API_KEY=x", "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("reference codex: %v\n%s", err, out)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	ref := reqs[0]

	ours := newHarness(t, nil)
	ours.srv.Enqueue(ok())
	s, err := ours.client.Stream(context.Background(), modelstream.Prompt{
		Model:             "gpt-5.5",
		Input:             []protocol.ResponseItem{protocol.MessageItem{Role: "user", Content: []protocol.ContentItem{{Type: "input_text", Text: "hi"}}}},
		Tools:             []json.RawMessage{json.RawMessage(`{"type":"function","name":"exec_command"}`)},
		ParallelToolCalls: true,
		Reasoning:         &modelstream.Reasoning{Effort: "medium", Summary: "none"},
		PromptCacheKey:    "thread",
		Verbosity:         "low",
		ClientMetadata:    json.RawMessage(`{"x-codex-installation-id":"i"}`),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	mine := ours.srv.Requests()[0]
	if diff := cmp.Diff(topLevelKeys(t, ref.Body), topLevelKeys(t, mine.Body)); diff != "" {
		t.Errorf("body fields (-codex +ours):\n%s", diff)
	}
	var extra []string
	for k := range mine.Header {
		// Go's transport adds Accept-Encoding itself (and decompresses transparently).
		if _, ok := ref.Header[k]; !ok && k != "Accept-Encoding" {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("headers Codex does not send: %v", extra)
	}
	if got := ref.Header.Get("Originator"); got != "codex_exec" {
		t.Logf("note: Codex exec sends originator %q", got)
	}
}
