package threads

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSearchRollout stores a rollout of the given lines and returns its path.
func writeSearchRollout(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func message(role, kind, text string) string {
	return fmt.Sprintf(`{"type":"response_item","payload":{"type":"message","role":%q,"content":[{"type":%q,"text":%q}]}}`, role, kind, text)
}

// TestSearchRolloutVisibleMessages: the user's and the assistant's messages are searched,
// case-insensitively and in file order; developer instructions, tool output and events are not.
func TestSearchRolloutVisibleMessages(t *testing.T) {
	path := writeSearchRollout(t,
		`{"type":"session_meta","payload":{"id":"x","instructions":"secret needle"}}`,
		message("developer", "input_text", "developer needle"),
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"tool needle"}}`,
		`{"type":"event_msg","payload":{"type":"agent_message","message":"event needle"}}`,
		message("assistant", "output_text", "Answer with a  NEEDLE\n inside."),
		message("user", "input_text", "later needle"),
	)
	s := New(t.TempDir())
	cases := map[string]string{"needle": "Answer with a NEEDLE inside.", "LATER": "later needle", "secret": "", "tool": "", "developer": ""}
	for term, want := range cases {
		got, found, err := s.SearchRollout(context.Background(), path, term)
		if err != nil || found != (want != "") || got != want {
			t.Errorf("%q: %q %v %v, want %q", term, got, found, err, want)
		}
	}
}

// TestSearchRolloutSnippetWindow: 50 characters before the match and 96 after it, the cut
// ends marked "...", as Codex 0.171 cuts them.
func TestSearchRolloutSnippetWindow(t *testing.T) {
	words := make([]string, 60)
	for i := range words {
		words[i] = fmt.Sprintf("word%02d", i)
	}
	path := writeSearchRollout(t, message("user", "input_text", strings.Join(words, " ")))
	s := New(t.TempDir())
	for term, want := range map[string]string{
		"word05": "word00 word01 word02 word03 word04 word05 word06 word07 word08 word09 word10 word11 word12 word13 word14 word15 word16 word17 word18 word ...",
		"word30": "... word23 word24 word25 word26 word27 word28 word29 word30 word31 word32 word33 word34 word35 word36 word37 word38 word39 word40 word41 word42 word43 word ...",
		"word58": "... word51 word52 word53 word54 word55 word56 word57 word58 word59",
	} {
		if got, _, err := s.SearchRollout(context.Background(), path, term); err != nil || got != want {
			t.Errorf("%s: %q (%v)\nwant %q", term, got, err, want)
		}
	}
}

// TestSearchRolloutEscapedText: a term JSON writes escaped (quotes, angle brackets, é) is
// still found.
func TestSearchRolloutEscapedText(t *testing.T) {
	path := writeSearchRollout(t, `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"say \"hi\" \u003cthere\u003e caf\u00e9"}]}}`)
	s := New(t.TempDir())
	for _, term := range []string{`"hi"`, "<there>", "CAFÉ"} {
		if _, found, err := s.SearchRollout(context.Background(), path, term); !found || err != nil {
			t.Errorf("%q not found (%v)", term, err)
		}
	}
}

// TestSearchRolloutCancelled: a cancelled search stops reading and says so.
func TestSearchRolloutCancelled(t *testing.T) {
	path := writeSearchRollout(t, message("user", "input_text", "needle"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, found, err := New(t.TempDir()).SearchRollout(ctx, path, "needle"); found || !errors.Is(err, context.Canceled) {
		t.Errorf("found %v, err %v", found, err)
	}
}

// TestSearchRolloutMissingFile: a rollout that went away is an error, not a miss.
func TestSearchRolloutMissingFile(t *testing.T) {
	if _, _, err := New(t.TempDir()).SearchRollout(context.Background(), filepath.Join(t.TempDir(), "gone.jsonl"), "x"); err == nil {
		t.Error("no error")
	}
}

// TestSearchRolloutSnippetCountsWrittenText: the window is counted in the message as written,
// its whitespace collapsed after (Codex 0.171 ends this one at </current_date>).
func TestSearchRolloutSnippetCountsWrittenText(t *testing.T) {
	text := "<environment_context>\n  <cwd>/work/tmpcx/wd</cwd>\n  <shell>bash</shell>\n  <current_date>2026-11-27</current_date>\n  <timezone>Etc/UTC</timezone>\n</environment_context>"
	path := writeSearchRollout(t, message("user", "input_text", text))
	want := "<environment_context> <cwd>/work/tmpcx/wd</cwd> <shell>bash</shell> <current_date>2026-11-27</current_date> ..."
	if got, _, err := New(t.TempDir()).SearchRollout(context.Background(), path, "environment_context"); err != nil || got != want {
		t.Errorf("%q (%v)\nwant %q", got, err, want)
	}
}
