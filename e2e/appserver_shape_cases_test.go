package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shapeCases are existing methods whose answers once differed from Codex 0.169's in their
// keys (the walk's shapeGaps), recorded with Codex's answers in methodsGolden.

// withCodexThreads copies the Codex-written threads in, and gives the exec thread a later
// turn that ran on another model and effort (its last turn_context), so a listing shows
// the latest settings, not the first. Their names are left behind: Codex 0.169 shows only
// the names it recorded itself, gocodex also those of a session_index.jsonl it finds.
func withCodexThreads(t *testing.T, e *env) {
	copyTree(t, "testdata/cli_sessions/codex_home", e.CodexHome)
	if err := os.Remove(filepath.Join(e.CodexHome, "session_index.jsonl")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(e.CodexHome, "sessions/2026/11/27/rollout-2026-11-27T20-20-38-"+codexExecThread+".jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, `"type":"turn_context"`) {
			last = l
		}
	}
	later := strings.Replace(strings.Replace(last, `"ordinal":5,`, `"ordinal":14,`, 1), `"model":"gpt-5.5",`, `"model":"gpt-5.4","effort":"low",`, 1)
	if later == last {
		t.Fatal("the recorded turn_context changed form")
	}
	appendFile(t, path, later+"\n")
}

// listedSettings probes a thread/list answer: its shape, then per thread what the
// listing says of it beyond the rollout's head.
func listedSettings(raw json.RawMessage) string {
	var r struct {
		Data []json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(raw, &r)
	out := []string{shapeOf(raw)}
	for _, t := range r.Data {
		out = append(out, threadSettingsOf(t))
	}
	return strings.Join(out, "\n")
}

// unarchivedSettings probes a thread/unarchive answer the same way.
func unarchivedSettings(raw json.RawMessage) string {
	var r struct {
		Thread json.RawMessage `json:"thread"`
	}
	_ = json.Unmarshal(raw, &r)
	return shapeOf(raw) + "\n" + threadSettingsOf(r.Thread)
}

func threadSettingsOf(raw json.RawMessage) string {
	var t struct {
		ID              string          `json:"id"`
		Model           *string         `json:"model"`
		ReasoningEffort *string         `json:"reasoningEffort"`
		Source          string          `json:"source"`
		ThreadSource    *string         `json:"threadSource"`
		GitInfo         json.RawMessage `json:"gitInfo"`
		Environments    json.RawMessage `json:"environments"`
		HistoryMode     string          `json:"historyMode"`
		Originator      string          `json:"originator"`
		Status          json.RawMessage `json:"status"`
	}
	_ = json.Unmarshal(raw, &t)
	return fmt.Sprintf("%s model=%s effort=%s source=%s threadSource=%s git=%s environments=%s history=%s originator=%s status=%s",
		t.ID, deref(t.Model), deref(t.ReasoningEffort), t.Source, deref(t.ThreadSource), compact(t.GitInfo), compact(t.Environments), t.HistoryMode, t.Originator, compact(t.Status))
}

// compact is raw without the recording's indentation.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

var shapeCases = []methodCase{
	{name: "thread/list (Codex-written threads)", method: "thread/list", params: map[string]any{"sourceKinds": []string{"vscode", "exec"}},
		setup: withCodexThreads, probe: listedSettings,
		then: []methodCall{
			{"thread/list", map[string]any{}, listedSettings}, // interactive threads only
			{"thread/list", map[string]any{"sourceKinds": []string{"exec"}, "excludedThreadIds": []string{codexUIThread}}, listedSettings},
			{"thread/list", map[string]any{"excludedThreadIds": []string{codexUIThread}}, listedSettings},
			{"thread/archive", map[string]any{"threadId": codexExecThread}, nil},
			{"thread/unarchive", map[string]any{"threadId": codexExecThread}, unarchivedSettings},
			{"thread/read", map[string]any{"threadId": codexUIThread}, unarchivedSettings},
		}},
	{name: "bad: thread/list excluded id", method: "thread/list", params: map[string]any{"excludedThreadIds": []string{"nope"}}},
	{name: "bad: thread/list too many excluded ids", method: "thread/list", params: map[string]any{"excludedThreadIds": strings.Split(strings.Repeat(codexUIThread+",", 101), ",")[:101]}},
	{name: "bad: thread/list originators", method: "thread/list", params: map[string]any{"originators": []string{"codex_exec"}}},
	{name: "bad: thread/list unknown source kind", method: "thread/list", params: map[string]any{"sourceKinds": []string{"bogus"}}},
}
