package rollout

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
)

// TestReadsBothForms reads one thread in the older form (as gocodex wrote it) and the same
// thread after Codex 0.169's migrate-rollouts put it in the paginated form: the listing,
// the replayed events and the resumed history are the same.
func TestReadsBothForms(t *testing.T) {
	legacy, err := ReadFile(filepath.Join("testdata", "paginated", "gocodex-legacy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	paginated, err := ReadFile(filepath.Join("testdata", "paginated", "gocodex-legacy-arrays.migrated-by-codex.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if legacy.Meta.Paginated() || !paginated.Meta.Paginated() {
		t.Fatalf("history modes: legacy %q, migrated %q", legacy.Meta.HistoryMode, paginated.Meta.HistoryMode)
	}
	events := func(r *Rollout) []string {
		var out []string
		for _, m := range r.InitialMessages() {
			b, _ := protocol.MarshalEventMsg(m)
			out = append(out, string(b))
		}
		return out
	}
	// Codex's migration writes the user's message with [] where we wrote null; otherwise
	// the replays agree line for line.
	want := strings.Join(events(legacy), "\n")
	got := strings.Join(events(paginated), "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replayed events (-legacy +paginated):\n%s", diff)
	}
	if !strings.Contains(got, `{"type":"user_message","message":"gocodex only thread"`) || !strings.Contains(got, `{"type":"agent_message","message":"Hello there."}`) {
		t.Errorf("the messages are not replayed:\n%s", got)
	}
	if diff := cmp.Diff(summarize(legacy.Reconstruct().History), summarize(paginated.Reconstruct().History)); diff != "" {
		t.Errorf("resumed history (-legacy +paginated):\n%s", diff)
	}
	for _, p := range []string{legacy.Path, paginated.Path} {
		s, ok, err := ReadSummary(p)
		if err != nil || !ok || s.Preview != "gocodex only thread" {
			t.Errorf("%s: summary %+v, %v, %v", p, s, ok, err)
		}
	}
}

// TestPaginatedLinesHaveCodexShape compares the lines the recorder writes with those Codex
// 0.169 wrote for the same kinds (testdata/paginated/codex-rich-turn.jsonl): the same keys
// in session_meta's history fields, and the same keys in each item_completed envelope and
// thread item.
func TestPaginatedLinesHaveCodexShape(t *testing.T) {
	home := t.TempDir()
	r, err := Create(home, Options{Meta: testMeta(), Now: tick(), NewItemID: seqIDs()})
	if err != nil {
		t.Fatal(err)
	}
	recordScript(t, r)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	ours := itemShapes(t, r.Path())
	codex := itemShapes(t, filepath.Join("testdata", "paginated", "codex-rich-turn.jsonl"))
	for _, kind := range []string{"envelope", "UserMessage", "UserMessage.content", "AgentMessage", "AgentMessage.content", "Reasoning", "CommandExecution", "FileChange"} {
		if ours[kind] == "" {
			t.Errorf("%s: the recorder wrote none", kind)
			continue
		}
		if diff := cmp.Diff(codex[kind], ours[kind]); diff != "" {
			t.Errorf("%s keys (-codex +ours):\n%s", kind, diff)
		}
	}
	for _, key := range []string{"session_id", "history_mode"} {
		if ours["session_meta."+key] != codex["session_meta."+key] {
			t.Errorf("session_meta.%s: ours %s, codex %s", key, ours["session_meta."+key], codex["session_meta."+key])
		}
	}
	// Not written in the paginated form: Codex replaces them with the items.
	data, _ := os.ReadFile(r.Path())
	for _, old := range []string{`"type":"user_message"`, `"type":"agent_message"`, `"type":"agent_reasoning"`} {
		if strings.Contains(string(data), old) {
			t.Errorf("the paginated form has a %s event", old)
		}
	}
}

// itemShapes maps, for a rollout, each item_completed thread item kind (and its first
// content part) to its sorted keys, the envelope to its keys, and session_meta's history
// fields to their values.
func itemShapes(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var l struct {
			Type    string         `json:"type"`
			Payload map[string]any `json:"payload"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		switch {
		case l.Type == TypeSessionMeta:
			for _, k := range []string{"session_id", "history_mode"} {
				if v, ok := l.Payload[k].(string); ok {
					if k == "session_id" {
						v = "id=" + map[bool]string{true: "yes", false: "no"}[v == l.Payload["id"]]
					}
					out["session_meta."+k] = v
				}
			}
		case l.Type == TypeEventMsg && l.Payload["type"] == "item_completed":
			out["envelope"] = keys(l.Payload)
			item := l.Payload["item"].(map[string]any)
			kind := item["type"].(string)
			out[kind] = keys(item)
			if parts, ok := item["content"].([]any); ok && len(parts) > 0 {
				out[kind+".content"] = keys(parts[0].(map[string]any))
			}
		}
	}
	return out
}

func keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

// TestAppendKeepsTheFileForm resumes a rollout of each form and records a message: the
// paginated one gets an item, the older one an event (with [] lists, which Codex needs), so
// no file mixes the two. Codex 0.169 resuming an older-form thread keeps its form too.
func TestAppendKeepsTheFileForm(t *testing.T) {
	for _, tc := range []struct {
		fixture, want string
	}{
		{"gocodex-legacy.jsonl", `"type":"user_message","message":"again","images":[],"local_images":[],"text_elements":[]}`},
		{"gocodex-legacy-arrays.migrated-by-codex.jsonl", `"item":{"type":"UserMessage","id":"item-1","content":[{"type":"text","text":"again","text_elements":[]}]}`},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "paginated", tc.fixture))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "rollout.jsonl")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			r, err := Append(path, Options{Now: tick(), NewItemID: seqIDs()})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.RecordEvent(protocol.Event{Msg: protocol.TurnStartedEvent{TurnID: "turn-2"}}); err != nil {
				t.Fatal(err)
			}
			if err := r.RecordEvent(protocol.Event{Msg: protocol.UserMessageEvent{Message: "again"}}); err != nil {
				t.Fatal(err)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			after, _ := os.ReadFile(path)
			added := string(after[len(data):])
			if !strings.Contains(added, tc.want) {
				t.Errorf("appended lines lack %s:\n%s", tc.want, added)
			}
			if strings.Contains(tc.fixture, "migrated") && !strings.Contains(added, `"thread_id":"01a21eab-1964-71da-abad-1f11f71f7973","turn_id":"turn-2"`) {
				t.Errorf("the item does not name its thread and turn:\n%s", added)
			}
		})
	}
}

// TestReasoningPartsReadOnce: Codex's migration writes a run of reasoning parts as one
// Reasoning item written again with each part; the replay gives each part once, as the
// older form's events do. The recorder writes a run the same way.
func TestReasoningPartsReadOnce(t *testing.T) {
	want := []string{`{"type":"agent_reasoning","text":"thinking A"}`, `{"type":"agent_reasoning","text":"thinking B"}`,
		`{"type":"agent_reasoning_raw_content","text":"raw C"}`, `{"type":"agent_message","message":"Hello there.","phase":"final_answer"}`}
	replayed := func(r *Rollout) []string {
		var out []string
		for _, m := range r.InitialMessages() {
			switch m.(type) {
			case protocol.AgentReasoningEvent, protocol.AgentReasoningRawContentEvent, protocol.AgentMessageEvent:
				b, _ := protocol.MarshalEventMsg(m)
				out = append(out, string(b))
			}
		}
		return out
	}
	for _, name := range []string{"gocodex-legacy-reasoning.jsonl", "gocodex-legacy-reasoning.migrated-by-codex.jsonl"} {
		r, err := ReadFile(filepath.Join("testdata", "paginated", name))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, replayed(r)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}

	home := t.TempDir()
	rec, err := Create(home, Options{Meta: testMeta(), Now: tick(), NewItemID: seqIDs()})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []protocol.EventMsg{protocol.TurnStartedEvent{TurnID: "turn-1"}, protocol.AgentReasoningEvent{Text: "thinking A"},
		protocol.AgentReasoningEvent{Text: "thinking B"}, protocol.AgentReasoningRawContentEvent{Text: "raw C"},
		protocol.AgentMessageEvent{Message: "Hello there.", Phase: "final_answer"}} {
		if err := rec.RecordEvent(protocol.Event{Msg: m}); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := ReadFile(rec.Path())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, replayed(r)); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	data, _ := os.ReadFile(rec.Path())
	if n := strings.Count(string(data), `"item":{"type":"Reasoning","id":"item-1"`); n != 3 {
		t.Errorf("the run of reasoning is written as %d snapshots of item-1, want 3:\n%s", n, data)
	}
}
