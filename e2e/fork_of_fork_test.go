package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// forkOfForkRecording holds the two rollouts of a fork made by Codex 0.169 (`codex exec
// fork`): the base thread ("alpha") and its fork ("bravo", "charlie"), which points at the
// base's prefix (history_base) instead of copying it. Made by TestForkOfForkKeepsHistory
// with the reference Codex and GOCODEX_RECORD_CODEX_FORK=1.
const forkOfForkRecording = "testdata/codex_fork_of_fork"

// The conversation every first fork holds, in order: alpha in its base, bravo and charlie
// in the fork itself.
var (
	forkQuestions = []string{"alpha", "bravo", "charlie"}
	forkAnswers   = []string{"ALPHA-ANSWER", "BRAVO-ANSWER", "CHARLIE-ANSWER"}
)

// TestForkOfForkKeepsHistory (issue 30): a thread forked once — by Codex, which records a
// fork as a pointer to its base's history, and by gocodex, which copies it — is forked again
// through `exec fork`, the app-server's `thread/fork` (then a turn) and the TUI's `/fork`;
// the new thread's first request to the model carries the whole history, in order, each
// message once.
func TestForkOfForkKeepsHistory(t *testing.T) {
	makers := map[string]func(e *env) string{"codex": codexMadeFork, "gocodex": gocodexMadeFork}
	forkers := map[string]func(e *env, id string){
		"exec fork": func(e *env, id string) {
			threadStarted(e.t, e.run("", "exec", "fork", "--json", id, "delta"))
		},
		"thread/fork": func(e *env, id string) {
			r := e.startRawAppServer()
			r.initialize()
			r.send(fmt.Sprintf(`{"id":1,"method":"thread/fork","params":{"threadId":%q}}`, id))
			res := r.response(1)
			fork, _ := res["result"].(map[string]any)["thread"].(map[string]any)["id"].(string)
			if fork == "" || fork == id {
				e.t.Fatalf("thread/fork: %v", res)
			}
			r.send(fmt.Sprintf(`{"id":2,"method":"turn/start","params":{"threadId":%q,"input":[{"type":"text","text":"delta"}]}}`, fork))
			for m := r.next(); m["method"] != "turn/completed"; m = r.next() {
			}
		},
		"tui /fork": func(e *env, id string) {
			u := e.startTmuxUI("resume", id)
			u.waitFor("› charlie", "Ask gocodex to do anything")
			u.typeLine("/fork")
			u.waitFor("Forked into session")
			u.typeLine("delta")
			u.waitFor("DELTA-ANSWER")
			waitIdle(u)
			u.quit()
		},
	}
	for _, maker := range []string{"codex", "gocodex"} {
		for _, path := range []string{"exec fork", "thread/fork", "tui /fork"} {
			t.Run(maker+"/"+path, func(t *testing.T) {
				e := newEnv(t)
				id := makers[maker](e)
				seeded := len(e.Model.Requests())
				e.Model.Enqueue(answer("DELTA-ANSWER"))
				forkers[path](e, id)
				reqs := e.Model.Requests()[seeded:]
				if len(reqs) != 1 {
					t.Fatalf("%d model requests after the fork, want 1", len(reqs))
				}
				if got, want := userTexts(reqs[0]), append(append([]string(nil), forkQuestions...), "delta"); !cmp.Equal(got, want) {
					t.Errorf("the fork's first request carries the questions %q, want %q", got, want)
				}
				if got := reqs[0].MessageTexts("assistant"); !cmp.Equal(got, forkAnswers) {
					t.Errorf("the fork's first request carries the answers %q, want %q", got, forkAnswers)
				}
			})
		}
	}
}

// gocodexMadeFork asks alpha in a new thread, forks it with bravo and goes on with charlie,
// all with gocodex; it returns the fork's id.
func gocodexMadeFork(e *env) string {
	e.Model.Enqueue(answer(forkAnswers[0]), answer(forkAnswers[1]), answer(forkAnswers[2]))
	base := threadStarted(e.t, e.run("", "exec", "--json", forkQuestions[0]))
	fork := threadStarted(e.t, e.run("", "exec", "fork", "--json", base, forkQuestions[1]))
	threadStarted(e.t, e.run("", "exec", "--json", "resume", fork, forkQuestions[2]))
	return fork
}

// codexMadeFork is the same conversation made by Codex 0.169 where the reference is
// installed (recorded into testdata with GOCODEX_RECORD_CODEX_FORK=1), else the recording.
func codexMadeFork(e *env) string {
	bin := tk.ReferenceCodex()
	if bin == "" {
		copyTree(e.t, forkOfForkRecording, e.CodexHome)
		relocateRecording(e.t, e.CodexHome, e.Workdir)
		return forkedThreadID(e.t, e.CodexHome)
	}
	e.Model.Enqueue(answer(forkAnswers[0]), answer(forkAnswers[1]), answer(forkAnswers[2]))
	codex := func(args ...string) string {
		r := e.runBin(bin, "", append([]string{"exec", "--json", "--skip-git-repo-check"}, args...)...)
		return threadStarted(e.t, r)
	}
	base := codex(forkQuestions[0])
	fork := codex("fork", base, forkQuestions[1])
	codex("resume", fork, forkQuestions[2])
	if got := forkedThreadID(e.t, e.CodexHome); got != fork {
		e.t.Fatalf("Codex's fork %s is not recorded as a fork (found %q)", fork, got)
	}
	if os.Getenv("GOCODEX_RECORD_CODEX_FORK") == "1" {
		if err := os.RemoveAll(forkOfForkRecording); err != nil {
			e.t.Fatal(err)
		}
		copyTree(e.t, filepath.Join(e.CodexHome, "sessions"), filepath.Join(forkOfForkRecording, "sessions"))
		for _, p := range sessionFiles(e.t, forkOfForkRecording) {
			data, _ := os.ReadFile(p)
			data = baseInstructionsText.ReplaceAll(data, []byte(`"base_instructions":{"text":"[base instructions elided from the fixture]"`))
			if err := os.WriteFile(p, data, 0o600); err != nil {
				e.t.Fatal(err)
			}
		}
	}
	return fork
}

// relocateRecording moves the recorded threads into this test's work tree: the directory
// they were recorded in (the base's cwd) becomes workdir. The fork's history base is cut by
// ordinal, which the move leaves alone.
func relocateRecording(t *testing.T, home, workdir string) {
	t.Helper()
	files := sessionFiles(t, home)
	var recorded string
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, rest, ok := strings.Cut(string(data), `"cwd":"`); ok && recorded == "" {
			recorded, _, _ = strings.Cut(rest, `"`)
		}
	}
	if recorded == "" {
		t.Fatal("the recording names no cwd")
	}
	for _, p := range files {
		data, _ := os.ReadFile(p)
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(data), recorded, workdir)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// baseInstructionsText is Codex's base instructions in a session_meta line, which a
// recording leaves out (gocodex cuts a history base by ordinal, so the shorter lines do not
// move it).
var baseInstructionsText = regexp.MustCompile(`"base_instructions":\{"text":"(?:[^"\\]|\\.)*"`)

// forkedThreadID is the id of the one rollout under home that records a history base.
func forkedThreadID(t *testing.T, home string) string {
	t.Helper()
	var id string
	for _, p := range sessionFiles(t, home) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(string(data), "\n")
		if strings.Contains(head, `"history_base"`) {
			name := strings.TrimSuffix(filepath.Base(p), ".jsonl")
			id = name[len(name)-36:]
		}
	}
	return id
}
