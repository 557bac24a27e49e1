package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fixedClock makes the report's durations 0s.
func fixedClock() time.Time { return time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC) }

// migrationHome is a CODEX_HOME with one older-form thread, one paginated thread, an empty
// rollout and one that is not a rollout.
func migrationHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	day := filepath.Join(home, "sessions", "2026", "11", "27")
	if err := os.MkdirAll(day, 0o700); err != nil {
		t.Fatal(err)
	}
	fixtures := filepath.Join("..", "rollout", "testdata", "paginated")
	copyFile := func(src, name string) {
		data, err := os.ReadFile(filepath.Join(fixtures, src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(day, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("gocodex-legacy.jsonl", "rollout-2026-11-27T20-20-59-01a21eab-1964-71da-abad-1f11f71f7973.jsonl")
	copyFile("codex-rich-turn.jsonl", "rollout-2026-11-27T20-21-41-01a21eab-bfb2-7aa0-ac1a-2b5dd7993b7a.jsonl")
	_ = os.WriteFile(filepath.Join(day, "rollout-2026-11-27T08-00-00-01a21000-0000-7000-8000-000000000000.jsonl"), nil, 0o600)
	return home
}

// The report's words are Codex 0.169's (recorded from `codex migrate-rollouts`), with
// gocodex in the hint.
func TestMigrateRolloutsReport(t *testing.T) {
	home := migrationHome(t)
	var out, errOut bytes.Buffer
	if code := RunMigrateRollouts(home, MigrateRolloutsOptions{Verbose: true, Now: fixedClock}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	want := "Scan complete in 0s.\n" +
		"Scanned 3 rollout(s): 1 eligible, 1 already paginated, 1 skipped (1 empty, 0 busy), 0 failed.\n" +
		"Run `gocodex migrate-rollouts --apply` to migrate eligible sessions.\n" +
		"already paginated\t01a21eab-bfb2-7aa0-ac1a-2b5dd7993b7a\n" +
		"eligible\t01a21eab-1964-71da-abad-1f11f71f7973\n" +
		"skipped empty\t01a21000-0000-7000-8000-000000000000\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	wantErr := "Scanning local rollouts...\n" +
		"Checking rollouts  3/3 (100%)  •  1 eligible  •  1 already paginated  •  1 skipped  •  0 failed  •  0s\n"
	if diff := cmp.Diff(wantErr, errOut.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}

	out.Reset()
	errOut.Reset()
	if code := RunMigrateRollouts(home, MigrateRolloutsOptions{Apply: true, Now: fixedClock}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.HasPrefix(out.String(), "Migration complete in 0s.\nScanned 3 rollout(s): 1 migrated, 1 already paginated, 1 skipped (1 empty, 0 busy), 0 failed.\nDisk used for thread storage: 18.0 KB -> ") {
		t.Errorf("apply stdout:\n%s", out.String())
	}
}

// --json is the per-thread report alone; a rollout that fails makes the exit status 1.
func TestMigrateRolloutsJSONAndFailure(t *testing.T) {
	home := migrationHome(t)
	bad := filepath.Join(home, "sessions", "2026", "11", "27", "rollout-2026-11-27T09-00-00-01a21000-0000-7000-8000-000000000001.jsonl")
	if err := os.WriteFile(bad, []byte("not a rollout\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := RunMigrateRollouts(home, MigrateRolloutsOptions{JSON: true, Threads: []string{"01a21000-0000-7000-8000-000000000001"}}, &out, &errOut)
	if code != 1 || errOut.String() != "Error: one or more rollout migrations failed\n" {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
	var rep struct {
		Outcomes []map[string]any `json:"outcomes"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if len(rep.Outcomes) != 1 || rep.Outcomes[0]["status"] != "failed" || rep.Outcomes[0]["failure_reason"] != "invalid_session_metadata" ||
		rep.Outcomes[0]["thread_id"] != "01a21000-0000-7000-8000-000000000001" || rep.Outcomes[0]["bytes_processed"] != 0.0 {
		t.Errorf("outcomes = %v", rep.Outcomes)
	}
}

func TestHumanBytes(t *testing.T) {
	// Values from Codex's reports: 8836 bytes is "8.6 KB", 185856 is "181.5 KB".
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 8836: "8.6 KB", 185856: "181.5 KB", 3 << 20: "3.0 MB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
