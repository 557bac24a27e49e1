package testkit

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// goldenScripts are the scripts shipped for cmd/mockmodel users (e2e tests and the
// reference-binary comparisons). They are generated from the builders so they stay in step.
var persistent500 = Status(500)

func goldenScripts() map[string]Script {
	return map[string]Script{
		"plain.json": {Responses: []Response{SSE(Created(), AssistantMessageStream("msg_1", "Hello", " there."), Completed(Usage{Input: 10, Output: 5}))}},
		"shell_then_answer.json": {Responses: []Response{
			SSE(Created(), FunctionCall("call_1", "shell_command", `{"command":"echo hi"}`), Completed(Usage{Input: 10, Output: 5})),
			SSE(Created(), AssistantMessageStream("msg_2", "Done."), Completed(Usage{Input: 20, Output: 3})),
		}},
		"error_500_then_ok.json": {Responses: []Response{
			Status(500),
			SSE(Created(), AssistantMessageStream("msg_1", "Recovered."), Completed(Usage{Input: 10, Output: 2})),
		}},
		"exec_command_then_answer.json": {Responses: []Response{
			SSE(Created(), FunctionCall("call_1", "exec_command", `{"cmd":"echo hi"}`), Completed(Usage{Input: 10, Output: 5})),
			SSE(Created(), AssistantMessageStream("msg_2", "Done."), Completed(Usage{Input: 20, Output: 3})),
		}},
		"cut_then_ok.json": {Responses: []Response{
			Cut(2, Created(), AssistantMessageStream("msg_1", "Hel", "lo.")),
			SSE(Created(), AssistantMessageStream("msg_1", "Hel", "lo."), Completed(Usage{Input: 10, Output: 2})),
		}},
		"stall_then_ok.json": {Responses: []Response{
			Stall(1, Created(), AssistantMessageStream("msg_1", "Hello.")),
			SSE(Created(), AssistantMessageStream("msg_1", "Hello."), Completed(Usage{Input: 10, Output: 2})),
		}},
		"persistent_500.json": {Default: &persistent500},
		"two_turns.json": {Responses: []Response{
			SSE(Created(), AssistantMessageStream("msg_1", "First."), Completed(Usage{Input: 10, Output: 1})),
			SSE(Created(), AssistantMessageStream("msg_2", "Second."), Completed(Usage{Input: 20, Output: 1})),
		}},
		"deltas_100k.json": {Loop: []Response{SSE(Created(),
			Events{{Type: "response.output_text.delta", Data: TextDelta("x").Data, Repeat: 100000}},
			AssistantMessage("msg_mock", "done"), Completed(Usage{Input: 10, Output: 100000}))}},
	}
}

func TestGoldenScripts(t *testing.T) {
	for name, sc := range goldenScripts() {
		path := filepath.Join("testdata", "scripts", name)
		got, err := json.MarshalIndent(sc, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update)", err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s out of date (run with -update):\n%s", name, diff)
		}
		loaded, err := LoadScript(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(loaded.Responses) != len(sc.Responses) || len(loaded.Loop) != len(sc.Loop) || (loaded.Default == nil) != (sc.Default == nil) {
			t.Errorf("%s: reloaded script differs", name)
		}
	}
}
