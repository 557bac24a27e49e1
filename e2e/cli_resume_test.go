package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sessionMetaOf reads the session_meta payload's id and forked_from_id of a rollout.
func sessionMetaOf(t *testing.T, path string) (id, forkedFrom string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	m := jsonl(t, first)[0]["payload"].(map[string]any)
	id, _ = m["id"].(string)
	forkedFrom, _ = m["forked_from_id"].(string)
	return id, forkedFrom
}

// TestCLIResumeAndForkOpenTheUI: `gocodex resume --last`, `resume ID` and `fork ID` open the
// terminal UI on a saved thread with its conversation on screen; what is typed next continues
// it (the model sees the earlier turn), in the same rollout for resume and in a new one,
// pointing back at the original, for fork.
func TestCLIResumeAndForkOpenTheUI(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("FIRSTANSWER"), answer("RESUMEDANSWER"), answer("BYIDANSWER"), answer("FORKEDANSWER"))
	s := e.startTUI("FIRSTQUESTION")
	s.quit(s.screen.waitFor(t, "FIRSTANSWER", 0))
	files := rolloutFiles(t, e.CodexHome)
	if len(files) != 1 {
		t.Fatalf("rollouts after the first session: %v", files)
	}
	original := filepath.Join(e.CodexHome, files[0])
	id, _ := sessionMetaOf(t, original)

	s = e.startTUI("resume", "--last")
	pos := s.screen.waitFor(t, "FIRSTQUESTION", 0)
	pos = s.screen.waitFor(t, "FIRSTANSWER", pos)
	s.screen.waitFor(t, "Ask gocodex to do anything", 0)
	s.typeKeys("SECONDQUESTION\r")
	s.quit(s.screen.waitFor(t, "RESUMEDANSWER", pos))

	s = e.startTUI("resume", id, "THIRDQUESTION")
	pos = s.screen.waitFor(t, "SECONDQUESTION", 0)
	s.quit(s.screen.waitFor(t, "BYIDANSWER", pos))
	if got := rolloutFiles(t, e.CodexHome); len(got) != 1 {
		t.Fatalf("resume made a new rollout: %v", got)
	}

	s = e.startTUI("fork", id)
	pos = s.screen.waitFor(t, "THIRDQUESTION", 0)
	pos = s.screen.waitFor(t, "BYIDANSWER", pos)
	s.screen.waitFor(t, "Ask gocodex to do anything", 0)
	s.typeKeys("FORKQUESTION\r")
	s.quit(s.screen.waitFor(t, "FORKEDANSWER", pos))

	reqs := e.Model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	for i, want := range [][]string{{"FIRSTQUESTION", "FIRSTANSWER", "SECONDQUESTION"}, {"SECONDQUESTION", "RESUMEDANSWER", "THIRDQUESTION"}, {"THIRDQUESTION", "BYIDANSWER", "FORKQUESTION"}} {
		body := string(reqs[i+1].Body)
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("request %d lacks %q: the earlier conversation did not carry over", i+2, w)
			}
		}
	}
	files = rolloutFiles(t, e.CodexHome)
	if len(files) != 2 {
		t.Fatalf("rollouts after the fork: %v", files)
	}
	for _, f := range files {
		path := filepath.Join(e.CodexHome, f)
		if path == original {
			continue
		}
		newID, from := sessionMetaOf(t, path)
		if newID == id || from != id {
			t.Errorf("fork: id %s forked_from_id %s, want a new id forked from %s", newID, from, id)
		}
	}
	data, _ := os.ReadFile(original)
	if strings.Contains(string(data), "FORKQUESTION") {
		t.Errorf("the fork wrote into the original rollout")
	}
}

// TestCLIResumeWithoutPickerAndBadIDs: without an id or --last, and without a terminal for
// the picker, resume and fork list the sessions the picker would offer and exit 1 (the
// message says why there is no picker, not that there is none); an unknown id or
// name is named with how to choose one; an archived one says how to bring it back. None of
// these needs a terminal or starts a thread.
func TestCLIResumeWithoutPickerAndBadIDs(t *testing.T) {
	e := newEnv(t)
	e.Model.SetDefault(answer("ok"))
	if r := e.run("", "resume"); r.Code != 1 || !strings.Contains(r.Stderr, "the session picker needs a terminal: name the session to resume") ||
		!strings.Contains(r.Stderr, "There are no sessions in this directory") || strings.Contains(r.Stderr, "no session picker") {
		t.Errorf("resume with no sessions: %+v", r)
	}
	s := e.startTUI("LISTEDQUESTION")
	s.quit(s.screen.waitFor(t, "ok", 0))
	r := e.run("", "exec", "--json", "EXECQUESTION")
	execID, _ := jsonl(t, r.Stdout)[0]["thread_id"].(string)
	uiID, _ := sessionMetaOf(t, filepath.Join(e.CodexHome, rolloutFiles(t, e.CodexHome)[0]))
	if uiID == execID {
		uiID, _ = sessionMetaOf(t, filepath.Join(e.CodexHome, rolloutFiles(t, e.CodexHome)[1]))
	}

	for _, verb := range []string{"resume", "fork"} {
		r := e.run("", verb)
		if r.Code != 1 || !strings.Contains(r.Stdout, uiID) || !strings.Contains(r.Stdout, "LISTEDQUESTION") || strings.Contains(r.Stdout, execID) ||
			!strings.Contains(r.Stderr, "Run `gocodex "+verb+" <SESSION_ID>`") {
			t.Errorf("%s with no id: %+v", verb, r)
		}
	}
	if r := e.run("", "resume", "--include-non-interactive"); r.Code != 1 || !strings.Contains(r.Stdout, execID) || !strings.Contains(r.Stdout, "EXECQUESTION") {
		t.Errorf("resume --include-non-interactive: %+v", r)
	}
	if r := e.run("", "resume", "--all"); r.Code != 1 || !strings.Contains(r.Stdout, "CWD") || !strings.Contains(r.Stdout, e.Workdir) {
		t.Errorf("resume --all: %+v", r)
	}
	for _, tc := range []struct{ args []string }{
		{[]string{"resume", "nosuch"}}, {[]string{"resume", "01a21eaa-c7df-7b72-b2b5-f8665158c6f0"}}, {[]string{"fork", "nosuch"}},
	} {
		r := e.run("", tc.args...)
		want := "No saved session found with ID " + tc.args[1] + ". Run `gocodex " + tc.args[0] + "` without an ID to choose from existing sessions."
		if r.Code != 1 || !strings.Contains(r.Stderr, want) {
			t.Errorf("%v: %+v", tc.args, r)
		}
	}
	if r := e.run("", "archive", uiID); r.Code != 0 {
		t.Fatalf("archive: %+v", r)
	}
	if r := e.run("", "resume", uiID); r.Code != 1 || !strings.Contains(r.Stderr, "is archived; run `gocodex unarchive "+uiID+"`") {
		t.Errorf("resume of an archived session: %+v", r)
	}
	// A known id without a terminal: the UI's own refusal, after the lookup; a fork refused
	// so leaves no copy behind.
	if r := e.run("", "resume", execID); r.Code != 1 || !strings.Contains(r.Stderr, "stdin is not a terminal") {
		t.Errorf("resume without a terminal: %+v", r)
	}
	before := len(rolloutFiles(t, e.CodexHome))
	if r := e.run("", "fork", execID); r.Code != 1 || !strings.Contains(r.Stderr, "stdin is not a terminal") {
		t.Errorf("fork without a terminal: %+v", r)
	}
	if after := len(rolloutFiles(t, e.CodexHome)); after != before {
		t.Errorf("a refused fork left a copy: %d rollouts, was %d", after, before)
	}
	for _, flag := range []string{"--worktree", "--approve-for-me", "--remote=ws://127.0.0.1:1"} {
		if r := e.run("", "resume", "--last", flag); r.Code != 1 || !strings.Contains(r.Stderr, "not support") {
			t.Errorf("resume --last %s: %+v", flag, r)
		}
	}
	if n := len(e.Model.Requests()); n != 2 {
		t.Errorf("%d model requests, want the two that made the sessions", n)
	}

	// --strict-config refuses keys gocodex does not recognise (before the terminal check).
	cfg, _ := os.ReadFile(filepath.Join(e.CodexHome, "config.toml"))
	if err := os.WriteFile(filepath.Join(e.CodexHome, "config.toml"), append([]byte("bogus_setting = 1\n"), cfg...), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e.run("", "resume", "--last", "--strict-config"); r.Code != 1 || !strings.Contains(r.Stderr, "unknown configuration field `bogus_setting`") {
		t.Errorf("resume --strict-config: %+v", r)
	}
	if r := e.run("", "resume", "--last"); r.Code != 1 || !strings.Contains(r.Stderr, "stdin is not a terminal") {
		t.Errorf("resume without --strict-config: %+v", r)
	}
}
