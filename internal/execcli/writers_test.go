package execcli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func runWriter(t *testing.T, w Writer, sc scenario) {
	t.Helper()
	for i, msg := range sc.events {
		if err := w.Handle(protocol.Event{ID: "0", Msg: msg}); err != nil {
			t.Fatalf("event %d (%s): %v", i, msg.EventType(), err)
		}
	}
}

func humanWriter(stdout, stderr *bytes.Buffer, sc scenario) *HumanWriter {
	model := "gpt-5.5"
	if sc.name == "warning" {
		model = "my-custom-model"
	}
	return NewHumanWriter(HumanOptions{
		Stdout: stdout, Stderr: stderr, Color: true, Title: "OpenAI Codex v0.169.0",
		Summary: []SummaryEntry{
			{"workdir", sc.cwd}, {"model", model}, {"provider", "mock"}, {"approval", "never"},
			{"sandbox", "danger-full-access"}, {"reasoning effort", "none"}, {"reasoning summaries", "none"},
		},
		Prompt: "say hi", FinalMessageToStdout: true,
	})
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from golden (-want +got):\n%s", name, diff)
	}
}

var (
	threadIDRe = regexp.MustCompile(`"thread_id":"[^"]*"`)
	sessionRe  = regexp.MustCompile(`session id:(\x1b\[0m)? [0-9a-f-]+`)
	elapsedRe  = regexp.MustCompile(` in [0-9.]+m?s:`)
)

// normalize blanks what differs between runs: thread ids and timings.
func normalize(b []byte) string {
	b = threadIDRe.ReplaceAll(b, []byte(`"thread_id":"<thread>"`))
	b = sessionRe.ReplaceAll(b, []byte(`session id:$1 <thread>`))
	b = elapsedRe.ReplaceAll(b, []byte(` in <elapsed>:`))
	return string(b)
}

// reference returns what Codex 0.169 wrote for the scenario, if it was recorded.
func reference(t *testing.T, file string) ([]byte, bool) {
	b, err := os.ReadFile(filepath.Join("testdata", "codex0169", file))
	if os.IsNotExist(err) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return b, true
}

func TestJSONWriter(t *testing.T) {
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			var out bytes.Buffer
			w := NewJSONWriter(&out)
			runWriter(t, w, sc)
			golden(t, sc.name+".jsonl", out.Bytes())
			if ref, ok := reference(t, sc.name+".jsonl"); ok {
				if diff := cmp.Diff(normalize(ref), normalize(out.Bytes())); diff != "" {
					t.Errorf("differs from Codex 0.169 (-codex +ours):\n%s", diff)
				}
			}
			if got, want := w.TurnFailed(), sc.name == "fail" || sc.name == "fail_no_turn_error" || sc.name == "stall"; got != want {
				t.Errorf("TurnFailed = %v, want %v", got, want)
			}
		})
	}
}

func TestHumanWriter(t *testing.T) {
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			w := humanWriter(&stdout, &stderr, sc)
			runWriter(t, w, sc)
			golden(t, sc.name+".human.stderr", stderr.Bytes())
			golden(t, sc.name+".human.stdout", stdout.Bytes())
			if ref, ok := reference(t, sc.name+".human.stderr"); ok {
				if diff := cmp.Diff(normalize(ref), normalize(stderr.Bytes())); diff != "" {
					t.Errorf("stderr differs from Codex 0.169 (-codex +ours):\n%s", diff)
				}
			}
			if ref, ok := reference(t, sc.name+".human.stdout"); ok {
				if diff := cmp.Diff(string(ref), stdout.String()); diff != "" {
					t.Errorf("stdout differs from Codex 0.169 (-codex +ours):\n%s", diff)
				}
			}
			if got, want := w.TurnFailed(), sc.name == "fail" || sc.name == "fail_no_turn_error" || sc.name == "stall"; got != want {
				t.Errorf("TurnFailed = %v, want %v", got, want)
			}
		})
	}
}

func TestWriteLastMessage(t *testing.T) {
	dir := t.TempDir()
	for _, sc := range scenarios() {
		if sc.name != "plain" && sc.name != "fail" {
			continue
		}
		var out bytes.Buffer
		w := NewJSONWriter(&out)
		runWriter(t, w, sc)
		path := filepath.Join(dir, sc.name+".txt")
		if err := WriteLastMessage(path, w); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"plain": "Hello there!", "fail": ""}[sc.name]
		if string(got) != want {
			t.Errorf("%s: last message file = %q, want %q (Codex writes it without a newline, empty on failure)", sc.name, got, want)
		}
	}
	if err := WriteLastMessage(filepath.Join(dir, "missing", "x.txt"), NewJSONWriter(&bytes.Buffer{})); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

// TestHumanWriterNoColor checks the plain output (stderr not a terminal, --color never)
// against Codex's, and that it is the colored output with the styling removed.
func TestHumanWriterNoColor(t *testing.T) {
	ansi := regexp.MustCompile("\x1b\\[[0-9;]*m")
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			var stdout, colored, plain bytes.Buffer
			runWriter(t, humanWriter(&stdout, &colored, sc), sc)
			w := humanWriter(&stdout, &plain, sc)
			w.sty.on = false
			runWriter(t, w, sc)
			if diff := cmp.Diff(ansi.ReplaceAllString(colored.String(), ""), plain.String()); diff != "" {
				t.Errorf("plain output is not the colored one unstyled (-want +got):\n%s", diff)
			}
			if ref, ok := reference(t, sc.name+".nocolor.stderr"); ok {
				if diff := cmp.Diff(normalize(ref), normalize(plain.Bytes())); diff != "" {
					t.Errorf("differs from Codex 0.169 (-codex +ours):\n%s", diff)
				}
			}
		})
	}
}
