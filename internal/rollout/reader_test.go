package rollout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
)

// summarize renders history items as short strings for comparisons.
func summarize(items []protocol.ResponseItem) []string {
	var out []string
	for _, it := range items {
		switch v := it.(type) {
		case protocol.MessageItem:
			text := ""
			for _, c := range v.Content {
				text += c.Text
			}
			if len(text) > 40 {
				text = text[:40]
			}
			out = append(out, v.Role+": "+text)
		case protocol.FunctionCallItem:
			out = append(out, "call "+v.Name+" "+v.CallID)
		case protocol.FunctionCallOutputItem:
			out = append(out, "output "+v.CallID+": "+v.Output.Content)
		default:
			out = append(out, it.ItemType())
		}
	}
	return out
}

// TestResumeCodexRollout: a rollout written by Codex 0.169 (two turns, a tool call, its own
// world_state and token_usage_record lines) resumes with its whole history.
func TestResumeCodexRollout(t *testing.T) {
	r, err := ReadFile(filepath.Join("testdata", "codex-0.169.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings: %q", r.Warnings)
	}
	res := r.Reconstruct()
	if res.Meta.ID != "01a20268-8d86-70e3-bd8d-82df249a96cb" || res.Meta.Cwd != "/tmp/ref1/work" || res.Meta.ModelProvider != "mock" || res.Meta.SourceString() != "exec" {
		t.Errorf("meta = %+v", res.Meta)
	}
	want := []string{
		"developer: [17237 bytes elided from the fixture]",
		"user: <environment_context>\n  <cwd>/tmp/ref1/w",
		"user: run echo hi",
		"call shell_command call_1",
		"output call_1: unsupported call: shell_command",
		"assistant: Done.",
		"user: second turn",
		"assistant: Hello there.",
	}
	got := summarize(res.History)
	if len(got) > 0 && strings.HasPrefix(got[0], "developer: [") {
		got[0] = want[0] // the elided size is not the point
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	if res.TokenUsage == nil || res.TokenUsage.TotalTokenUsage.TotalTokens != 53 {
		t.Errorf("token usage = %+v", res.TokenUsage)
	}
	if res.TurnContext == nil || res.TurnContext.Model != "gpt-5.5" || res.TurnContext.Cwd != "/tmp/ref1/work" {
		t.Errorf("turn context = %+v", res.TurnContext)
	}
	// The two turns' events come back for a face to replay, Codex's UserMessage and
	// AgentMessage items as the user_message and agent_message events they stand for.
	var kinds []string
	for _, m := range r.InitialMessages() {
		kinds = append(kinds, m.EventType())
	}
	if !strings.Contains(strings.Join(kinds, ","), "task_started,user_message,token_count,agent_message,token_count,task_complete") {
		t.Errorf("initial messages = %v", kinds)
	}
	// The listing reads the same file: preview from Codex's UserMessage item.
	s, ok, err := ReadSummary(r.Path)
	if err != nil || !ok || s.Preview != "run echo hi" {
		t.Errorf("summary = %+v, %v, %v", s, ok, err)
	}
}

func TestReconstructAppliesCompactionAndRollback(t *testing.T) {
	home := t.TempDir()
	r, err := Create(home, Options{Meta: testMeta(), Now: tick()})
	if err != nil {
		t.Fatal(err)
	}
	recordScript(t, r) // ends with a compaction
	r.RecordItems([]protocol.ResponseItem{userMsg("second"), assistantMsg("two")})
	r.RecordItems([]protocol.ResponseItem{userMsg("third"), assistantMsg("three")})
	r.RecordEvent(protocol.Event{Msg: protocol.ThreadRolledBackEvent{NumTurns: 1}})
	r.RecordItems([]protocol.ResponseItem{userMsg("fourth")})
	r.Close()
	ro, err := ReadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	got := summarize(ro.Reconstruct().History)
	want := []string{"user: list the files", "user: Summary: the user listed files.", "user: second", "assistant: two", "user: fourth"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

func TestCompactedWithoutReplacement(t *testing.T) {
	hist := []protocol.ResponseItem{userMsg("<environment_context>x</environment_context>"), userMsg("a"), assistantMsg("b")}
	got, err := compactedHistory(hist, Compacted{Message: "sum"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"user: <environment_context>x</environment_cont", "user: a", "user: sum"}
	if diff := cmp.Diff(want, summarize(got)); diff != "" {
		t.Error(diff)
	}
}

func TestDropLastTurns(t *testing.T) {
	ctx := userMsg("<environment_context>\n</environment_context>")
	dev := protocol.MessageItem{Role: "developer", Content: []protocol.ContentItem{{Type: protocol.ContentInputText, Text: "perms"}}}
	abort := userMsg("<turn_aborted>\nstop\n</turn_aborted>")
	items := []protocol.ResponseItem{dev, ctx, userMsg("one"), assistantMsg("1"), userMsg("two"),
		protocol.FunctionCallItem{Name: "shell", CallID: "c"}, protocol.FunctionCallOutputItem{CallID: "c"}, abort, userMsg("three"), assistantMsg("3")}
	for _, tc := range []struct {
		n    int
		want int // items kept
	}{
		{-1, 10}, {0, 10}, {1, 8}, {2, 4}, {3, 2}, {4, 2}, {100, 2},
	} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			got := DropLastTurns(items, tc.n)
			if diff := cmp.Diff(summarize(items[:tc.want]), summarize(got)); diff != "" {
				t.Error(diff)
			}
		})
	}
	if got := DropLastTurns([]protocol.ResponseItem{dev, ctx}, 1); len(got) != 2 {
		t.Errorf("no turns: kept %d of 2", len(got))
	}
}

func TestParseSkipsGarbage(t *testing.T) {
	data := `{"timestamp":"2026-11-22T08:38:56.239Z","type":"session_meta","payload":{"id":"x","timestamp":"t","cwd":"/","originator":"o","cli_version":"1","source":"cli"}}
not json
{"timestamp":"2026-11-22T08:38:56.239Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}
{"timestamp":"2026-11-22T08:38:56.239Z","type":"event_msg","payload":{"type":"brand_new_event"}}
{"timestamp":"2026-11-22T08:38:56.239Z","type":"world_state","payload":{}}
`
	r, err := Parse(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "line 2") {
		t.Errorf("warnings = %q", r.Warnings)
	}
	if got := summarize(r.Reconstruct().History); !cmp.Equal(got, []string{"user: hi"}) {
		t.Errorf("history = %v", got)
	}
	if _, err := Parse(strings.NewReader("{}\n")); err == nil {
		t.Error("a file without session_meta parsed")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(mustReadF(f, filepath.Join("testdata", "codex-0.169.jsonl")))
	f.Add([]byte(`{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}` + "\n" + `{"timestamp":"t","type":"compacted","payload":{"message":"m","replacement_history":[{"type":"message","role":"user","content":[]}]}}`))
	f.Add([]byte(`{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}` + "\n" + `{"type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":3}}` + "\n{\"tim"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(bytes.NewReader(data))
		if err != nil {
			return
		}
		res := r.Reconstruct()
		_ = DropLastTurns(res.History, 1)
	})
}

func mustReadF(f *testing.F, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// TestDecodeItemMatchesProtocol: the one-pass decoding gives what protocol's decoder gives,
// wire ids aside.
func TestDecodeItemMatchesProtocol(t *testing.T) {
	r, err := ReadFile(filepath.Join("testdata", "codex-0.169.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range r.Lines {
		if l.Type != TypeResponseItem {
			continue
		}
		n++
		want, err := protocol.DecodeResponseItem(l.Payload)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeItem(l.Payload)
		if err != nil {
			t.Fatal(err)
		}
		wj, _ := protocol.Marshal(want)
		gj, _ := protocol.Marshal(got)
		if string(wj) != string(gj) {
			t.Errorf("line %d:\nprotocol %s\nours     %s", n, wj, gj)
		}
	}
	if n < 8 {
		t.Errorf("only %d items compared", n)
	}
}

// FuzzParseLineFast: whenever the hand-written envelope reader accepts a line, it agrees
// with encoding/json.
func FuzzParseLineFast(f *testing.F) {
	f.Add([]byte(`{"timestamp":"2026-11-22T08:38:56.239Z","ordinal":3,"type":"event_msg","payload":{"type":"task_started"}}`))
	f.Add([]byte(`{"timestamp":"t","type":"response_item","payload":{"type":"message"},"metadata":{"a":1}}`))
	f.Add([]byte(`{"timestamp":"t\"x","type":"a","payload":"s"}`))
	f.Add([]byte(`{"payload":{"a":[1,"\u00e9"]},"type":"event_msg","ordinal":7,"timestamp":"t"}`))
	f.Add([]byte(`{"timestamp":"t","type":"a","Type":"b","payload":{}}`))
	f.Add([]byte(`{"timestamp":"t","type":"a","payload":{},"payload":{"x":1}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		fast, ok := parseLineFast(raw)
		if !ok {
			return
		}
		var slow Line
		if err := json.Unmarshal(raw, &slow); err != nil {
			t.Fatalf("fast accepted what json rejects (%v): %q", err, raw)
		}
		if fast.Timestamp != slow.Timestamp || fast.Type != slow.Type || !bytes.Equal(fast.Payload, slow.Payload) ||
			(fast.Ordinal == nil) != (slow.Ordinal == nil) || (fast.Ordinal != nil && *fast.Ordinal != *slow.Ordinal) {
			t.Fatalf("fast %+v, json %+v for %q", fast, slow, raw)
		}
	})
}

// TestLoadCodexForkAndCompaction: Codex 0.169 (through its app-server) ran two turns,
// compacted, ran a third and forked. Its compacted line replaces the history on resume, and
// its fork, which only points at a prefix of the source (history_base), loads with the
// source's history.
func TestLoadCodexForkAndCompaction(t *testing.T) {
	home := filepath.Join("testdata", "codexhome")
	const parent, fork = "01a20277-cf46-71c0-b58f-850ca44da194", "01a20277-d0f7-7d22-b75a-5b77aed809e0"
	pp, _, err := Find(home, parent)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Load(home, pp)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"user: one",
		"developer: [4671 bytes elided from the fixture]<per",
		"user: <environment_context>\n  <cwd>/tmp/ref4/w",
		"user: two",
		"user: Another language model started to solve ",
		"user: three",
		"assistant: Hello there.",
	}
	got := summarize(pr.Reconstruct().History)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parent history after compaction (-want +got):\n%s", diff)
	}
	fp, _, err := Find(home, fork)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := Load(home, fp)
	if err != nil {
		t.Fatal(err)
	}
	if fr.Meta.ID != fork || fr.Meta.ForkedFromID != parent || fr.Meta.HistoryBase == nil {
		t.Errorf("fork meta = %+v", fr.Meta)
	}
	if diff := cmp.Diff(want, summarize(fr.Reconstruct().History)); diff != "" {
		t.Errorf("fork history (-want +got):\n%s", diff)
	}
	// Our fork of Codex's fork copies the lines and drops the base reference.
	out, err := Fork(t.TempDir(), fr, ForkOptions{NewID: v7At(time.Now(), 9), DropLastTurns: 1})
	if err != nil {
		t.Fatal(err)
	}
	or, err := ReadFile(out)
	if err != nil || or.Meta.HistoryBase != nil || or.Meta.ForkedFromID != fork {
		t.Fatalf("our fork: %+v, %v", or.Meta, err)
	}
	if diff := cmp.Diff(want[:5], summarize(or.Reconstruct().History)); diff != "" {
		t.Errorf("our fork without the last turn (-want +got):\n%s", diff)
	}
}

func TestNormalizePairsCallsAndOutputs(t *testing.T) {
	call := func(id string) protocol.ResponseItem { return protocol.FunctionCallItem{Name: "shell", CallID: id} }
	custom := protocol.CustomToolCallItem{Name: "apply_patch", CallID: "p1"}
	out := func(id string) protocol.ResponseItem {
		return protocol.FunctionCallOutputItem{CallID: id, Output: protocol.FunctionCallOutputPayload{Content: "ok"}}
	}
	items := []protocol.ResponseItem{userMsg("go"), call("c1"), out("c1"), call("c2"), custom, out("orphan"), assistantMsg("bye")}
	got := normalize(items)
	want := []string{"user: go", "call shell c1", "output c1: ok", "call shell c2", "output c2: aborted", "custom_tool_call", "custom_tool_call_output", "assistant: bye"}
	if diff := cmp.Diff(want, summarize(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	clean := []protocol.ResponseItem{userMsg("go"), call("c1"), out("c1")}
	if got := normalize(clean); &got[0] != &clean[0] {
		t.Error("a clean history was copied")
	}
}

// TestAppendContinuesCodexOrdinals: resuming Codex's fork (whose ordinals start where its
// source's prefix ends) numbers new lines after its last one, also when that line is longer
// than the first tail read (64 KiB).
func TestAppendContinuesCodexOrdinals(t *testing.T) {
	src := filepath.Join("testdata", "codexhome", "sessions", "2026", "11", "22", "rollout-2026-11-22T08-55-36-01a20277-d0f7-7d22-b75a-5b77aed809e0.jsonl")
	long := fmt.Sprintf(`{"timestamp":"2026-11-22T08:56:00.000Z","ordinal":70,"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":%q}]}}`+"\n", strings.Repeat("x", 100<<10))
	for _, c := range []struct {
		name, more string
		want       int64
	}{{"as recorded", "", 46}, {"after a long last line", long, 71}} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), filepath.Base(src))
			if err := os.WriteFile(path, append(mustRead(t, src), c.more...), 0o600); err != nil {
				t.Fatal(err)
			}
			a, err := Append(path, Options{Now: tick()})
			if err != nil {
				t.Fatal(err)
			}
			a.RecordItems([]protocol.ResponseItem{userMsg("more")})
			a.Close()
			r, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if last := r.Lines[len(r.Lines)-1]; last.Ordinal == nil || *last.Ordinal != c.want {
				t.Errorf("ordinal = %v, want %d", last.Ordinal, c.want)
			}
		})
	}
}

// TestUnmodelledItemsRoundTrip: an item kind protocol does not model is recorded as it came
// and given back on resume.
func TestUnmodelledItemsRoundTrip(t *testing.T) {
	home := t.TempDir()
	raw := `{"type":"image_generation_call","id":"ig_1","status":"completed","result":"aGVsbG8="}`
	r, _ := Create(home, Options{Meta: testMeta(), Now: tick()})
	if err := r.RecordItems([]protocol.ResponseItem{userMsg("draw"), protocol.OtherItem{Raw: json.RawMessage(raw)}}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	ro, err := ReadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	hist := ro.Reconstruct().History
	if len(hist) != 2 {
		t.Fatalf("history = %v", summarize(hist))
	}
	got, _ := protocol.Marshal(hist[1])
	if string(got) != raw {
		t.Errorf("item = %s, want %s", got, raw)
	}
}

// TestLongLines: a tool output of several MiB is one line; it reads back whole, and resume
// appends after it.
func TestLongLines(t *testing.T) {
	home := t.TempDir()
	big := strings.Repeat("0123456789abcdef", 300_000) // 4.8 MB
	r, _ := Create(home, Options{Meta: testMeta(), Now: tick()})
	r.RecordItems([]protocol.ResponseItem{userMsg("dump"), protocol.FunctionCallItem{Name: "shell", CallID: "c"},
		protocol.FunctionCallOutputItem{CallID: "c", Output: protocol.FunctionCallOutputPayload{Content: big}}})
	r.Close()
	a, err := Append(r.Path(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	a.RecordItems([]protocol.ResponseItem{assistantMsg("that was long")})
	a.Close()
	ro, err := ReadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	hist := ro.Reconstruct().History
	if len(hist) != 4 || hist[2].(protocol.FunctionCallOutputItem).Output.Content != big {
		t.Fatalf("history = %d items", len(hist))
	}
	if last := ro.Lines[len(ro.Lines)-1]; last.Ordinal == nil || *last.Ordinal != 4 {
		t.Errorf("ordinal after a long line = %v", last.Ordinal)
	}
}

// TestParseInPartsIsParse: a rollout parsed in parts (a large one is, side by side) gives the
// lines and the warnings, numbered through the whole file, of a parse in one part.
func TestParseInPartsIsParse(t *testing.T) {
	data := mustRead(t, filepath.Join("testdata", "codex-0.169.jsonl"))
	lines := bytes.SplitAfter(data, []byte("\n"))
	var b bytes.Buffer
	for i := 0; i < 40; i++ {
		for j, l := range lines {
			b.Write(l)
			switch (i + j) % 7 {
			case 0:
				b.WriteString("not json\n")
			case 3:
				b.WriteString("\n  \n")
			}
		}
	}
	b.WriteString(`{"timestamp":"t","type":"event_msg","payl`) // torn last line
	want, err := parseIn(b.Bytes(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Warnings) < 40 || !strings.Contains(want.Warnings[len(want.Warnings)-1], "incomplete last line") {
		t.Fatalf("the file has too few bad lines to check: %q", want.Warnings[len(want.Warnings)-3:])
	}
	for _, parts := range []int{2, 3, 8} {
		got, err := parseIn(b.Bytes(), parts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Lines, want.Lines) || !slices.Equal(got.Warnings, want.Warnings) || !reflect.DeepEqual(got.Meta, want.Meta) {
			t.Errorf("in %d parts: %d lines, warnings %q; in one: %d lines, warnings %q", parts, len(got.Lines), got.Warnings, len(want.Lines), want.Warnings)
		}
	}
}

// TestPayloadsAreTheirOwn: payloads are slices of the file read, capped, so appending to one
// leaves the lines after it as they were.
func TestPayloadsAreTheirOwn(t *testing.T) {
	r, err := ReadFile(filepath.Join("testdata", "codex-0.169.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	next := string(r.Lines[1].Payload)
	_ = append(r.Lines[0].Payload, strings.Repeat("x", 1<<12)...)
	if string(r.Lines[1].Payload) != next {
		t.Errorf("appending to line 1's payload changed line 2's: %s", r.Lines[1].Payload)
	}
}
