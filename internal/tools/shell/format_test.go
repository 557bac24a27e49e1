package shell

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/process"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

func result(out string, code int, d time.Duration, timedOut bool) process.Result {
	return process.Result{ExitCode: code, Aggregated: process.Output{Bytes: []byte(out)}, Duration: d, TimedOut: timedOut}
}

func seq(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteString("\n")
	}
	return b.String()
}

func TestOutputFormatsGolden(t *testing.T) {
	tests := []struct {
		name string
		r    process.Result
	}{
		{"ok", result("hi\n", 0, 12*time.Millisecond, false)},
		{"exit2", result("boom <&> \"q\" \\ \t\x01\u2028\n", 2, 1049*time.Millisecond, false)},
		{"whole-second", result("", 0, 2*time.Second, false)},
		{"timeout", result("a\n", 124, 300*time.Millisecond, true)},
		{"long", result(seq(30000), 0, 150*time.Millisecond, false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden(t, "shell_"+tt.name+".txt", StructuredOutput(tt.r, process.Tokens(10_000)))
			golden(t, "shell_command_"+tt.name+".txt", FreeformOutput(tt.r, process.Tokens(10_000)))
		})
	}
}

func TestSecondsFormatting(t *testing.T) {
	tests := []struct {
		d           time.Duration
		display, js string
	}{
		{0, "0", "0.0"},
		{49 * time.Millisecond, "0", "0.0"},
		{50 * time.Millisecond, "0.1", "0.1"},
		{1049 * time.Millisecond, "1", "1.0"},
		{1250 * time.Millisecond, "1.3", "1.3"},
		{12345 * time.Millisecond, "12.3", "12.3"},
	}
	for _, tt := range tests {
		if got := displaySeconds(tt.d); got != tt.display {
			t.Errorf("displaySeconds(%v) = %q, want %q", tt.d, got, tt.display)
		}
		if got := jsonSeconds(tt.d); got != tt.js {
			t.Errorf("jsonSeconds(%v) = %q, want %q", tt.d, got, tt.js)
		}
	}
}

// FuzzStructuredOutput checks the hand-written JSON escaping: the output always decodes,
// back to the (truncated) text.
func FuzzStructuredOutput(f *testing.F) {
	f.Add("hi\n", 0)
	f.Add("<&>\u2028\x00\x1f\"\\", 2)
	f.Fuzz(func(t *testing.T, text string, code int) {
		r := result(text, code, time.Second, false)
		out := StructuredOutput(r, process.Tokens(10_000))
		var decoded struct {
			Output   string `json:"output"`
			Metadata struct {
				ExitCode        int     `json:"exit_code"`
				DurationSeconds float64 `json:"duration_seconds"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(out), &decoded); err != nil {
			t.Fatalf("invalid JSON %q: %v", out, err)
		}
		want := process.FormattedTruncate(r.Content(), process.Tokens(10_000))
		if utf8.ValidString(want) && decoded.Output != want {
			t.Fatalf("round trip: got %q want %q", decoded.Output, want)
		}
		if decoded.Metadata.ExitCode != code || decoded.Metadata.DurationSeconds != 1 {
			t.Fatalf("metadata %+v", decoded.Metadata)
		}
	})
}
