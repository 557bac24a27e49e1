package e2e

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	_ "modernc.org/sqlite"

	"github.com/gocodex/gocodex/internal/codexstate"
	"github.com/gocodex/gocodex/internal/testkit"
)

// Codex 0.169's `resume --last` and pickers list threads from its state database only. A
// thread gocodex writes after Codex made that database is written into it at each turn end
// (internal/codexstate), so Codex sees it at once, not only after its next thread/list.

// TestCodexResumeLastSeesOurNewThreadAtOnce: Codex runs first (its database exists), gocodex
// writes a thread, and Codex's `exec resume --last` continues ours with nothing in between.
func TestCodexResumeLastSeesOurNewThreadAtOnce(t *testing.T) {
	ref := referenceBinary(t)
	e := newEnv(t)
	e.Model.Enqueue(answer("codex one"), answer("ours"), answer("codex again"))
	threadStarted(t, codexExec(t, e, ref, "from codex first"))
	ourID := threadStarted(t, e.run("", "exec", "--json", "from gocodex"))

	if id := threadStarted(t, codexExec(t, e, ref, "resume", "--last", "again from codex")); id != ourID {
		t.Fatalf("codex exec resume --last continued %s, want our new thread %s", id, ourID)
	}
	reqs := e.Model.Requests()
	if got := userTexts(reqs[len(reqs)-1]); !cmp.Equal(got, []string{"from gocodex", "again from codex"}) {
		t.Errorf("codex's resumed request has user messages %q", got)
	}
}

// TestOurStateRowMatchesCodexRepair: the row gocodex writes for its thread is the row Codex's
// own repair (app-server thread/list) makes from the same rollout, column for column but for
// the times of the last write, which may differ by the moment each looked.
func TestOurStateRowMatchesCodexRepair(t *testing.T) {
	ref := referenceBinary(t)
	e := newEnv(t)
	e.Model.Enqueue(answer("codex one"), answer("ours"))
	threadStarted(t, codexExec(t, e, ref, "from codex first"))
	ourID := threadStarted(t, e.run("", "exec", "--json", "-s", "workspace-write", "from gocodex"))

	db, err := sql.Open("sqlite", filepath.Join(e.CodexHome, codexstate.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ours := stateRow(t, db, ourID)
	if ours == nil {
		t.Fatal("gocodex wrote no row into Codex's state database")
	}
	if _, err := db.Exec(`DELETE FROM threads WHERE id = ?`, ourID); err != nil {
		t.Fatal(err)
	}
	listThreads(t, e, ref) // Codex's read-repair writes the row again
	theirs := stateRow(t, db, ourID)
	if theirs == nil {
		t.Fatal("codex's thread/list did not repair the row")
	}
	for _, k := range []string{"updated_at", "updated_at_ms", "recency_at", "recency_at_ms"} {
		a, b := ours[k].(int64), theirs[k].(int64)
		if k[len(k)-3:] == "_ms" && (a-b > 2000 || b-a > 2000) || k[len(k)-3:] != "_ms" && (a-b > 2 || b-a > 2) {
			t.Errorf("%s: ours %d, codex's %d", k, a, b)
		}
		delete(ours, k)
		delete(theirs, k)
	}
	if diff := cmp.Diff(theirs, ours); diff != "" {
		t.Errorf("our row against codex's repair (-codex +ours):\n%s", diff)
	}
}

// stateRow is every column of the thread's row in Codex's threads table, or nil.
func stateRow(t *testing.T, db *sql.DB, id string) map[string]any {
	t.Helper()
	return testkit.SQLRow(t, db, `SELECT * FROM threads WHERE id = ?`, id)
}

// TestOurThreadChangesReachCodexState: archiving, naming and deleting a thread through
// gocodex change its row in Codex's state database as Codex 0.169's own app-server does
// (recorded: archive sets archived, archived_at and the rollout's new path; thread/name/set
// sets name), so Codex's lists never offer a thread as it no longer is.
func TestOurThreadChangesReachCodexState(t *testing.T) {
	ref := referenceBinary(t)
	e := newEnv(t)
	e.Model.Enqueue(answer("codex one"), answer("ours"))
	threadStarted(t, codexExec(t, e, ref, "from codex first"))
	ourID := threadStarted(t, e.run("", "exec", "--json", "from gocodex"))
	db, err := sql.Open("sqlite", filepath.Join(e.CodexHome, codexstate.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	e.appServerCall(binary, "thread/name/set", map[string]any{"threadId": ourID, "name": "our named thread"})
	if got := stateRow(t, db, ourID); got["name"] != "our named thread" {
		t.Errorf("after thread/name/set, name = %v", got["name"])
	}
	e.appServerCall(binary, "thread/archive", map[string]any{"threadId": ourID})
	got := stateRow(t, db, ourID)
	if got["archived"] != int64(1) || got["archived_at"] == nil || filepath.Base(filepath.Dir(got["rollout_path"].(string))) != "archived_sessions" {
		t.Errorf("after thread/archive: archived %v, archived_at %v, rollout_path %v", got["archived"], got["archived_at"], got["rollout_path"])
	}
	if r := e.run("", "unarchive", ourID); r.Code != 0 {
		t.Fatalf("gocodex unarchive: %d %s", r.Code, r.Stderr)
	}
	got = stateRow(t, db, ourID)
	if got["archived"] != int64(0) || got["archived_at"] != nil || filepath.Base(filepath.Dir(got["rollout_path"].(string))) == "archived_sessions" {
		t.Errorf("after gocodex unarchive: archived %v, archived_at %v, rollout_path %v", got["archived"], got["archived_at"], got["rollout_path"])
	}
	if r := e.run("", "delete", "--force", ourID); r.Code != 0 {
		t.Fatalf("gocodex delete: %d %s", r.Code, r.Stderr)
	}
	if stateRow(t, db, ourID) != nil {
		t.Error("the deleted thread's row is still in Codex's state database")
	}
}

// TestCodexPickerShowsOurNewThread: Codex's own session picker (`codex resume`, a TUI read in
// tmux) lists a thread gocodex wrote after Codex made its database, by its first message.
func TestCodexPickerShowsOurNewThread(t *testing.T) {
	ref := referenceBinary(t)
	e := newEnv(t)
	e.Model.Enqueue(answer("codex one"), answer("ours"))
	threadStarted(t, codexExec(t, e, ref, "from codex first"))
	threadStarted(t, e.run("", "exec", "--json", "a thread only gocodex wrote"))

	withoutCodexDaemon(t, e.CodexHome)
	env := append(e.environ(), "TERM=xterm-256color")
	ui := &tmuxUI{t: t, pane: startTmux(t, env, e.Workdir, 100, 30, ref, "resume", "--include-non-interactive")}
	scr := ui.waitFor("Resume a previous session", "a thread only gocodex wrote", "from codex first")
	if strings.Index(scr, "a thread only gocodex wrote") > strings.Index(scr, "from codex first") {
		t.Errorf("codex's picker does not show our newer thread first:\n%s", scr)
	}
}

// TestThreadChangesInStateMatchCodex: the same app-server calls (rename, archive, unarchive,
// delete) change a thread's row in Codex's state database and its names in
// session_index.jsonl the same way whether Codex 0.169 or gocodex serves them.
func TestThreadChangesInStateMatchCodex(t *testing.T) {
	ref := referenceBinary(t)
	trace := func(bin string) []string {
		e := newEnv(t)
		e.Model.Enqueue(answer("codex one"), answer("the thread"))
		threadStarted(t, codexExec(t, e, ref, "from codex first"))
		var id string
		if bin == ref {
			id = threadStarted(t, codexExec(t, e, ref, "the thread"))
		} else {
			id = threadStarted(t, e.run("", "exec", "--json", "the thread"))
		}
		db, err := sql.Open("sqlite", filepath.Join(e.CodexHome, codexstate.FileName))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var out []string
		for _, call := range []string{"thread/name/set", "thread/archive", "thread/unarchive", "thread/delete"} {
			params := map[string]any{"threadId": id}
			if call == "thread/name/set" {
				params["name"] = "named"
			}
			e.appServerCall(bin, call, params)
			row := stateRow(t, db, id)
			index, _ := os.ReadFile(filepath.Join(e.CodexHome, "session_index.jsonl"))
			state := fmt.Sprintf("%s: named in index %v", call, strings.Contains(string(index), id))
			if row != nil {
				state += fmt.Sprintf(", row name %v archived %v archived_at set %v in %s", row["name"], row["archived"],
					row["archived_at"] != nil, filepath.Base(filepath.Dir(row["rollout_path"].(string))))
			}
			out = append(out, state)
		}
		return out
	}
	theirs, ours := trace(ref), trace(binary)
	if diff := cmp.Diff(theirs, ours); diff != "" {
		t.Errorf("state after each call (-codex +gocodex):\n%s", diff)
	}
}
