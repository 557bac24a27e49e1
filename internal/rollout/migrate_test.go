package rollout

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const fixtureID = "01a21eab-1964-71da-abad-1f11f71f7973"

// TestPaginateMatchesCodexMigration rewrites older-form rollouts and compares the result
// with what `codex migrate-rollouts --apply` made of the same files, line by line. Codex
// also rewrites turn_context lines in its own newer shape; those are compared by turn only.
func TestPaginateMatchesCodexMigration(t *testing.T) {
	for _, name := range []string{"gocodex-legacy-arrays", "gocodex-legacy-reasoning-arrays"} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", "paginated", name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", "paginated", name+".migrated-by-codex.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := paginate(src)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(comparable(t, string(want)), comparable(t, string(got))); diff != "" {
				t.Errorf("migrated lines (-codex +ours):\n%s", diff)
			}
		})
	}
}

// comparable is a rollout's lines with each turn_context reduced to its turn id and the
// session_meta re-encoded (Codex escapes some characters of the instructions differently).
func comparable(t *testing.T, data string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(data), "\n") {
		var l Line
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("not a line: %q", line)
		}
		switch l.Type {
		case TypeTurnContext:
			var tc struct {
				TurnID string `json:"turn_id"`
			}
			_ = json.Unmarshal(l.Payload, &tc)
			line = "turn_context " + tc.TurnID
		case TypeSessionMeta:
			var m map[string]any
			_ = json.Unmarshal(l.Payload, &m)
			b, _ := json.Marshal(m)
			line = "session_meta " + string(b)
		}
		out = append(out, line)
	}
	return out
}

// TestMigrate runs the whole migration over a CODEX_HOME: a report without --apply, then
// the rewrite, then a second run that finds nothing left to do.
func TestMigrate(t *testing.T) {
	home := t.TempDir()
	legacy, _ := os.ReadFile(filepath.Join("testdata", "paginated", "gocodex-legacy.jsonl"))
	codex, _ := os.ReadFile(filepath.Join("testdata", "paginated", "codex-rich-turn.jsonl"))
	day := filepath.Join(home, SessionsDir, "2026", "11", "27")
	if err := os.MkdirAll(day, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ArchivedDir), 0o700); err != nil {
		t.Fatal(err)
	}
	oldPath := filepath.Join(day, "rollout-2026-11-27T20-20-59-"+fixtureID+".jsonl")
	newID := "01a21eab-bfb2-7aa0-ac1a-2b5dd7993b7a"
	newPath := filepath.Join(day, "rollout-2026-11-27T20-21-41-"+newID+".jsonl")
	emptyPath := filepath.Join(home, ArchivedDir, "rollout-2026-11-26T10-00-00-01a21000-0000-7000-8000-000000000000.jsonl")
	garbagePath := filepath.Join(day, "rollout-2026-11-27T09-00-00-01a21000-0000-7000-8000-000000000001.jsonl")
	for p, data := range map[string][]byte{oldPath: legacy, newPath: codex, emptyPath: nil, garbagePath: []byte("not a rollout\n")} {
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	statuses := func(r MigrateReport) map[string]MigrateStatus {
		m := map[string]MigrateStatus{}
		for _, o := range r.Outcomes {
			m[filepath.Base(o.RolloutPath)] = o.Status
		}
		return m
	}

	rep, err := Migrate(home, MigrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]MigrateStatus{filepath.Base(oldPath): MigrateEligible, filepath.Base(newPath): MigrateAlreadyPaginated,
		filepath.Base(emptyPath): MigrateSkippedEmpty, filepath.Base(garbagePath): MigrateFailed}
	if diff := cmp.Diff(want, statuses(rep)); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	if after, _ := os.ReadFile(oldPath); string(after) != string(legacy) {
		t.Errorf("a run without --apply changed the rollout")
	}
	// Sessions newest first, then archived ones, as Codex lists them.
	if rep.Outcomes[0].ThreadID != newID || rep.Outcomes[len(rep.Outcomes)-1].RolloutPath != emptyPath {
		t.Errorf("outcome order: %+v", rep.Outcomes)
	}

	rep, err = Migrate(home, MigrateOptions{Apply: true, Threads: []string{fixtureID}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Outcomes) != 1 || rep.Outcomes[0].Status != MigrateMigrated || rep.Outcomes[0].BytesProcessed != int64(len(legacy)) || rep.Checked != 4 {
		t.Fatalf("apply: %+v (checked %d)", rep.Outcomes, rep.Checked)
	}
	r, err := ReadFile(oldPath)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Meta.Paginated() || r.Meta.SessionID != fixtureID {
		t.Errorf("migrated meta = %+v", r.Meta)
	}
	if s, ok, _ := ReadSummary(oldPath); !ok || s.Preview != "gocodex only thread" {
		t.Errorf("migrated summary = %+v", s)
	}
	if st, _ := os.Stat(oldPath); st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", st.Mode().Perm())
	}
	if temps, _ := filepath.Glob(filepath.Join(day, ".rollout-migrate-*")); len(temps) > 0 {
		t.Errorf("temporary files left: %v", temps)
	}

	rep, err = Migrate(home, MigrateOptions{Apply: true, Threads: []string{fixtureID}})
	if err != nil || len(rep.Outcomes) != 1 || rep.Outcomes[0].Status != MigrateAlreadyPaginated {
		t.Errorf("second run: %+v, %v", rep.Outcomes, err)
	}
}

// TestMigrateSkipsAThreadBeingWritten: a recorder appending to an older-form rollout holds
// it; the migration reports it busy and leaves it alone, and the recorder's lines land.
func TestMigrateSkipsAThreadBeingWritten(t *testing.T) {
	home := t.TempDir()
	legacy, _ := os.ReadFile(filepath.Join("testdata", "paginated", "gocodex-legacy.jsonl"))
	day := filepath.Join(home, SessionsDir, "2026", "11", "27")
	_ = os.MkdirAll(day, 0o700)
	path := filepath.Join(day, "rollout-2026-11-27T20-20-59-"+fixtureID+".jsonl")
	if err := os.WriteFile(path, legacy, 0o600); err != nil {
		t.Fatal(err)
	}
	rec, err := Append(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	rep, err := Migrate(home, MigrateOptions{Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Outcomes) != 1 || rep.Outcomes[0].Status != MigrateSkippedBusy {
		t.Skipf("no file locks here: %+v", rep.Outcomes)
	}
	if data, _ := os.ReadFile(path); string(data) != string(legacy) {
		t.Errorf("a busy rollout was changed")
	}
}

// TestMigrateThrottles: with a limit, the run waits so the bytes it moved take at least
// bytes/limit seconds (the sleeps are recorded, not slept).
func TestMigrateThrottles(t *testing.T) {
	home := t.TempDir()
	legacy, _ := os.ReadFile(filepath.Join("testdata", "paginated", "gocodex-legacy.jsonl"))
	day := filepath.Join(home, SessionsDir, "2026", "11", "27")
	_ = os.MkdirAll(day, 0o700)
	_ = os.WriteFile(filepath.Join(day, "rollout-2026-11-27T20-20-59-"+fixtureID+".jsonl"), legacy, 0o600)
	var slept time.Duration
	if _, err := Migrate(home, MigrateOptions{Apply: true, MaxBytesPerSecond: 1024, Sleep: func(d time.Duration) { slept += d }}); err != nil {
		t.Fatal(err)
	}
	// 2 × the file's size at 1 KiB/s, less the (small) time the run took.
	if want := time.Duration(2*len(legacy)) * time.Second / 1024; slept < want-time.Second {
		t.Errorf("slept %v, want about %v", slept, want)
	}
}

// TestPaginateDropsATornLastLine: a crash mid-write leaves a last line without its newline;
// the migrated file ends with the last whole line, as a resume would leave it.
func TestPaginateDropsATornLastLine(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "paginated", "gocodex-legacy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := paginate(src)
	if err != nil {
		t.Fatal(err)
	}
	torn, err := paginate(append(append([]byte(nil), src...), `{"timestamp":"2026-11-27T20:21:00.000Z","ordinal":10,"type":"event_msg","payload":{"type":"user_m`...))
	if err != nil {
		t.Fatal(err)
	}
	if string(torn) != string(whole) {
		t.Errorf("the torn line changed the result:\n%s", torn[len(whole)-min(len(whole), len(torn)):])
	}
}

// TestMigrateRefreshesTheListingCache: a listing cached before the migration does not keep
// reporting the older form.
func TestMigrateRefreshesTheListingCache(t *testing.T) {
	home := t.TempDir()
	legacy, _ := os.ReadFile(filepath.Join("testdata", "paginated", "gocodex-legacy.jsonl"))
	day := filepath.Join(home, SessionsDir, "2026", "11", "27")
	_ = os.MkdirAll(day, 0o700)
	_ = os.WriteFile(filepath.Join(day, "rollout-2026-11-27T20-20-59-"+fixtureID+".jsonl"), legacy, 0o600)
	ix := &dirIndex{entries: map[string]indexEntry{}}
	s, _, _ := ReadSummary(filepath.Join(day, "rollout-2026-11-27T20-20-59-"+fixtureID+".jsonl"))
	ix.entries["rollout-2026-11-27T20-20-59-"+fixtureID+".jsonl"] = entryOf(s)
	if err := writeDirIndex(day, ix); err != nil {
		t.Fatal(err)
	}
	if _, err := Migrate(home, MigrateOptions{Apply: true}); err != nil {
		t.Fatal(err)
	}
	if got := loadDirIndex(day).entries; len(got) != 0 {
		t.Errorf("the cache still holds %v", got)
	}
}
