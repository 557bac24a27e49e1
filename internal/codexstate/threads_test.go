package codexstate

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/testkit"
)

// codexDB makes a CODEX_HOME holding a state database with Codex 0.169's threads table
// (testdata/state_5.schema.sql), in WAL mode as Codex keeps it.
func codexDB(t *testing.T) (home string, db *sql.DB) {
	t.Helper()
	home = t.TempDir()
	schema, err := os.ReadFile("testdata/state_5.schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	db, err = sql.Open("sqlite", filepath.Join(home, FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("PRAGMA journal_mode=WAL;\n" + string(schema)); err != nil {
		t.Fatal(err)
	}
	return home, db
}

func sampleThread(home string) Thread {
	created := time.Date(2026, 11, 27, 23, 28, 1, 581e6, time.UTC)
	return Thread{
		ID: "01a21f56-5672-707b-824e-be7fa3c505e4", RolloutPath: filepath.Join(home, "sessions", "r.jsonl"),
		CreatedAt: created, UpdatedAt: created.Add(103 * time.Millisecond),
		Source: "exec", ModelProvider: "mock", Cwd: "/tmp/p", FirstUserMessage: "fix the tests",
		SandboxPolicy: `{"type":"disabled"}`, ApprovalMode: "never", TokensUsed: 23, CLIVersion: "0.1.0",
		Model: "gpt-5.5", ReasoningEffort: "medium", HistoryMode: "paginated", Originator: "codex_exec",
	}
}

// row reads the columns Codex's lists and resume use.
func row(t *testing.T, db *sql.DB, id string) map[string]any {
	t.Helper()
	return testkit.SQLRow(t, db, `SELECT rollout_path, created_at, updated_at, created_at_ms, updated_at_ms, recency_at, recency_at_ms,
		source, model_provider, cwd, title, first_user_message, preview, sandbox_policy, approval_mode, tokens_used,
		archived, archived_at, model, reasoning_effort, history_mode, originator, memory_mode, cli_version, git_sha, name
		FROM threads WHERE id = ?`, id)
}

func TestIndexThreadWritesCodexsRow(t *testing.T) {
	home, db := codexDB(t)
	th := sampleThread(home)
	if err := IndexThread(home, th); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"rollout_path": th.RolloutPath, "created_at": int64(1795822081), "updated_at": int64(1795822081),
		"created_at_ms": int64(1795822081581), "updated_at_ms": int64(1795822081684),
		"recency_at": int64(1795822081), "recency_at_ms": int64(1795822081684),
		"source": "exec", "model_provider": "mock", "cwd": "/tmp/p",
		"title": "fix the tests", "first_user_message": "fix the tests", "preview": "fix the tests",
		"sandbox_policy": `{"type":"disabled"}`, "approval_mode": "never", "tokens_used": int64(23),
		"archived": int64(0), "archived_at": nil, "model": "gpt-5.5", "reasoning_effort": "medium",
		"history_mode": "paginated", "originator": "codex_exec", "memory_mode": "enabled", "cli_version": "0.1.0",
		"git_sha": nil, "name": nil,
	}
	if diff := cmp.Diff(want, row(t, db, th.ID)); diff != "" {
		t.Errorf("row (-want +got):\n%s", diff)
	}

	// A later turn moves the times and the token count on; a title Codex gave stays.
	if _, err := db.Exec(`UPDATE threads SET title = 'named by codex' WHERE id = ?`, th.ID); err != nil {
		t.Fatal(err)
	}
	th.UpdatedAt = th.UpdatedAt.Add(5 * time.Second)
	th.TokensUsed, th.Model, th.FirstUserMessage = 90, "gpt-5.4", "something else"
	if err := IndexThread(home, th); err != nil {
		t.Fatal(err)
	}
	got := row(t, db, th.ID)
	for k, v := range map[string]any{"title": "named by codex", "preview": "fix the tests", "tokens_used": int64(90), "model": "gpt-5.4",
		"updated_at_ms": int64(1795822086684), "recency_at_ms": int64(1795822086684), "created_at_ms": int64(1795822081581)} {
		if got[k] != v {
			t.Errorf("after the second turn %s = %v, want %v", k, got[k], v)
		}
	}
}

func TestIndexThreadWithoutDatabaseCreatesNothing(t *testing.T) {
	home := t.TempDir()
	if err := IndexThread(home, sampleThread(home)); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("CODEX_HOME has %v, want nothing", entries)
	}
}

func TestOlderSchemaIsLeftAlone(t *testing.T) {
	home, db := codexDB(t)
	if _, err := db.Exec(`DELETE FROM _sqlx_migrations WHERE version = 62`); err != nil {
		t.Fatal(err)
	}
	th := sampleThread(home)
	if err := IndexThread(home, th); !errors.Is(err, ErrOldSchema) {
		t.Fatalf("IndexThread on version 61 = %v, want ErrOldSchema", err)
	}
	if row(t, db, th.ID) != nil {
		t.Error("a row was written into an older schema")
	}
}

func TestGarbageDatabaseIsAnError(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, FileName)
	if err := os.WriteFile(path, []byte("not a database at all, but long enough to look like a header..........................................."), 0o600); err != nil {
		t.Fatal(err)
	}
	err := IndexThread(home, sampleThread(home))
	if err == nil {
		t.Fatal("IndexThread on a garbage file succeeded")
	}
	if b, _ := os.ReadFile(path); string(b[:10]) != "not a data" {
		t.Error("the garbage file was changed")
	}
}

func TestArchiveUnarchiveDelete(t *testing.T) {
	home, db := codexDB(t)
	th := sampleThread(home)
	if err := IndexThread(home, th); err != nil {
		t.Fatal(err)
	}
	at := time.Unix(1795823000, 0)
	moved := filepath.Join(home, "archived_sessions", "r.jsonl")
	if err := SetArchived(home, th.ID, moved, true, at); err != nil {
		t.Fatal(err)
	}
	if got := row(t, db, th.ID); got["archived"] != int64(1) || got["archived_at"] != int64(1795823000) || got["rollout_path"] != moved {
		t.Errorf("archived row: %v", got)
	}
	if err := SetArchived(home, th.ID, th.RolloutPath, false, at); err != nil {
		t.Fatal(err)
	}
	if got := row(t, db, th.ID); got["archived"] != int64(0) || got["archived_at"] != nil || got["rollout_path"] != th.RolloutPath {
		t.Errorf("unarchived row: %v", got)
	}
	if err := SetName(home, th.ID, "my thread"); err != nil {
		t.Fatal(err)
	}
	if got := row(t, db, th.ID); got["name"] != "my thread" {
		t.Errorf("named row: %v", got["name"])
	}
	if err := DeleteThread(home, th.ID); err != nil {
		t.Fatal(err)
	}
	if row(t, db, th.ID) != nil {
		t.Error("the row outlived DeleteThread")
	}
}

// A thread named before its row existed (a fork carries its source's name) gets the name
// with its row; a name the row already has (Codex's, or a later rename's) stays.
func TestIndexThreadNames(t *testing.T) {
	home, db := codexDB(t)
	th := sampleThread(home)
	th.Name = "forked name"
	if err := IndexThread(home, th); err != nil {
		t.Fatal(err)
	}
	if got := row(t, db, th.ID)["name"]; got != "forked name" {
		t.Errorf("name = %v", got)
	}
	if err := SetName(home, th.ID, "renamed"); err != nil {
		t.Fatal(err)
	}
	if err := IndexThread(home, th); err != nil {
		t.Fatal(err)
	}
	if got := row(t, db, th.ID)["name"]; got != "renamed" {
		t.Errorf("after a rename and a turn, name = %v", got)
	}
}

// While Codex holds a write transaction longer than the busy timeout, IndexThread gives up
// with an error (the caller logs it) instead of stalling the turn, and writes nothing.
func TestIndexThreadGivesUpOnABusyDatabase(t *testing.T) {
	home, db := codexDB(t)
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	th := sampleThread(home)
	if err := IndexThread(home, th); err == nil {
		t.Fatal("IndexThread wrote through Codex's open write transaction")
	}
	if _, err := conn.ExecContext(t.Context(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if row(t, db, th.ID) != nil {
		t.Error("a row appeared")
	}
	if err := IndexThread(home, th); err != nil {
		t.Fatalf("after Codex's transaction ended: %v", err)
	}
}
