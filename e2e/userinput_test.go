package e2e

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// Questions to the user (request_user_input) as Codex 0.169 handles them. What the reference
// binary did is recorded in testdata/codex_request_user_input.json (regenerate with
// `GOCODEX_REFERENCE_CODEX=$(../shared/tools/reference-codex) go test ./e2e -run UserInput -record-user-input`);
// where GOCODEX_REFERENCE_CODEX is set the tests also run it live.

var recordUserInput = flag.Bool("record-user-input", false, "rewrite testdata/codex_request_user_input.json from the reference binary")

const userInputFile = "testdata/codex_request_user_input.json"

// askFeature lets questions be asked in Default mode (gocodex has no Plan mode; Codex asks
// there too with this feature).
var askFeature = []string{"-c", "features.default_mode_request_user_input=true"}

const colorQuestionArgs = `{"questions":[{"id":"color","header":"Color","question":"Which color do you want?",` +
	`"options":[{"label":"Red (Recommended)","description":"Warm."},{"label":"Blue","description":"Cool."}]}]}`

func questionCall(callID, args string) tk.Response {
	return tk.SSE(tk.Created(), tk.FunctionCall(callID, "request_user_input", args), tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6}))
}

// userInputObservation is what a binary did with the model's questions.
type userInputObservation struct {
	// ExecOutput is the call's output in exec without the feature (Default mode refuses),
	// ExecTypes the JSONL event types exec printed.
	ExecOutput string   `json:"exec_output"`
	ExecTypes  []string `json:"exec_types"`
	// ExecNoUserOutput is the output in exec with the feature: nobody can answer.
	ExecNoUserOutput string `json:"exec_no_user_output"`
	// AppServerRequest is the item/tool/requestUserInput params (ids replaced by <thread>,
	// <turn>), AppServerOutput the output after the client answered "Blue".
	AppServerRequest map[string]any `json:"app_server_request"`
	AppServerOutput  string         `json:"app_server_output"`
	// AppServerFlags are the activeFlags of each thread/status/changed while the turn ran;
	// AppServerResolved says serverRequest/resolved named the request.
	AppServerFlags    [][]string `json:"app_server_flags"`
	AppServerResolved bool       `json:"app_server_resolved"`
	// NoOptionsOutput is the output for a question without options (none is asked).
	NoOptionsOutput string `json:"no_options_output"`
	// PlanModeAsked and PlanModeOutput: without the feature, a Plan-mode turn
	// (turn/start.collaborationMode, experimentalApi) asks, and the answer reaches the model.
	PlanModeAsked  bool   `json:"plan_mode_asked"`
	PlanModeOutput string `json:"plan_mode_output"`
}

// functionOutput finds the output the last request carried for callID.
func questionOutput(t *testing.T, reqs []tk.Request, callID string) string {
	t.Helper()
	for i := len(reqs) - 1; i >= 0; i-- {
		var body struct {
			Input []struct {
				Type   string          `json:"type"`
				CallID string          `json:"call_id"`
				Output json.RawMessage `json:"output"`
			} `json:"input"`
		}
		if err := json.Unmarshal(reqs[i].Body, &body); err != nil {
			t.Fatal(err)
		}
		for _, it := range body.Input {
			if it.Type == "function_call_output" && it.CallID == callID {
				var s string
				if err := json.Unmarshal(it.Output, &s); err != nil {
					return string(it.Output)
				}
				return s
			}
		}
	}
	t.Fatalf("no function_call_output for %s in %d requests", callID, len(reqs))
	return ""
}

func observeUserInput(t *testing.T, bin string) userInputObservation {
	var o userInputObservation
	execRun := func(extra ...string) (string, result) {
		e := newEnv(t)
		e.ExtraEnv = append(e.ExtraEnv, "HOME="+t.TempDir())
		e.Model.Enqueue(questionCall("call_1", colorQuestionArgs), answer("done"))
		args := append(append([]string{"exec", "--json", "--skip-git-repo-check"}, extra...), "pick a color")
		r := e.runBin(bin, "", args...)
		if r.Code != 0 {
			t.Fatalf("%s exec: %+v", bin, r)
		}
		return questionOutput(t, e.Model.Requests(), "call_1"), r
	}
	var r result
	o.ExecOutput, r = execRun()
	o.ExecTypes = types(jsonl(t, r.Stdout))
	o.ExecNoUserOutput, _ = execRun(askFeature...)

	e := newEnv(t)
	e.ExtraEnv = append(e.ExtraEnv, "HOME="+t.TempDir())
	c, _ := e.startAppServerOf(bin, askFeature...)
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	var asked []rpcMsg
	c.answer = func(m rpcMsg) any {
		asked = append(asked, m)
		return map[string]any{"answers": map[string]any{"color": map[string]any{"answers": []string{"Blue"}}}}
	}
	e.Model.Enqueue(questionCall("call_1", colorQuestionArgs), answer("blue it is"))
	turn := c.turn(id, "pick a color")
	got := c.until("turn/completed")
	if len(asked) != 1 || asked[0].Method != "item/tool/requestUserInput" {
		t.Fatalf("%s: server requests %v", bin, c.asked)
	}
	raw := strings.NewReplacer(id, "<thread>", turn, "<turn>").Replace(string(asked[0].Params))
	if err := json.Unmarshal([]byte(raw), &o.AppServerRequest); err != nil {
		t.Fatal(err)
	}
	o.AppServerOutput = questionOutput(t, e.Model.Requests(), "call_1")
	for _, p := range pick(got, "thread/status/changed") {
		st := p["status"].(map[string]any)
		if st["type"] != "active" {
			continue
		}
		flags := []string{}
		for _, f := range st["activeFlags"].([]any) {
			flags = append(flags, f.(string))
		}
		o.AppServerFlags = append(o.AppServerFlags, flags)
	}
	for _, p := range pick(got, "serverRequest/resolved") {
		o.AppServerResolved = p["threadId"] == id && string(*asked[0].ID) == jsonNumber(p["requestId"])
	}

	e.Model.Enqueue(questionCall("call_2", `{"questions":[{"id":"name","header":"Name","question":"What name?"}]}`), answer("ok"))
	c.turn(id, "name it")
	c.until("turn/completed")
	if len(asked) != 1 {
		t.Errorf("%s asked a question without options", bin)
	}
	o.NoOptionsOutput = questionOutput(t, e.Model.Requests(), "call_2")

	e = newEnv(t)
	e.ExtraEnv = append(e.ExtraEnv, "HOME="+t.TempDir())
	e.capabilities = map[string]any{"experimentalApi": true}
	c, _ = e.startAppServerOf(bin)
	id = c.startThread(map[string]any{"cwd": e.Workdir})
	c.answer = func(m rpcMsg) any {
		o.PlanModeAsked = m.Method == "item/tool/requestUserInput"
		return map[string]any{"answers": map[string]any{"color": map[string]any{"answers": []string{"Red (Recommended)"}}}}
	}
	e.Model.Enqueue(questionCall("call_3", colorQuestionArgs), answer("red it is"))
	c.mustCall("turn/start", map[string]any{"threadId": id, "input": []map[string]any{{"type": "text", "text": "plan a color"}},
		"collaborationMode": map[string]any{"mode": "plan", "settings": map[string]any{"model": "gpt-5.5", "reasoning_effort": nil, "developer_instructions": nil}}}, nil)
	c.until("turn/completed")
	o.PlanModeOutput = questionOutput(t, e.Model.Requests(), "call_3")
	return o
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestUserInputMatchesCodex: exec refuses in Default mode and answers "no answers" when
// questions are allowed (nobody is there); the app-server asks its client with
// item/tool/requestUserInput (schema-checked), marks the thread waitingOnUserInput, sends
// serverRequest/resolved and hands the answers to the model as JSON.
func TestUserInputMatchesCodex(t *testing.T) {
	ref := os.Getenv("GOCODEX_REFERENCE_CODEX")
	if *recordUserInput {
		if ref == "" {
			t.Fatal("-record-user-input needs GOCODEX_REFERENCE_CODEX")
		}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(observeUserInput(t, ref)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(userInputFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(userInputFile)
	if err != nil {
		t.Fatal(err)
	}
	var want userInputObservation
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, observeUserInput(t, binary)); diff != "" {
		t.Errorf("gocodex differs from the recorded Codex (-codex +gocodex):\n%s", diff)
	}
	if ref != "" && !*recordUserInput {
		if diff := cmp.Diff(want, observeUserInput(t, ref)); diff != "" {
			t.Errorf("the reference differs from its recording (-recorded +live):\n%s", diff)
		}
	}
}

// exec's human output says why the model got no answers.
func TestExecSaysNoUserIsPresent(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(questionCall("call_1", colorQuestionArgs), answer("done"))
	r := e.run("", append(append([]string{"exec", "--skip-git-repo-check"}, askFeature...), "pick a color")...)
	if r.Code != 0 || !strings.Contains(r.Stderr, "no user is present in exec mode") || strings.TrimSpace(r.Stdout) != "done" {
		t.Errorf("exec: %+v", r)
	}
}

// In Plan mode the terminal UI shows the model's question with its options; choosing one
// sends the answer, which reaches the model as JSON, and the conversation goes on.
func TestTUIQuestionAnswered(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(questionCall("call_1", colorQuestionArgs), answer("BLUEITIS"), questionCall("call_2", colorQuestionArgs), answer("GREENITIS"))
	s := e.startTUI()
	pos := s.screen.waitFor(t, "Ask gocodex to do anything", 0)
	s.typeKeys("/plan\r") // questions are asked in Plan mode
	pos = s.screen.waitFor(t, "Plan mode on", pos)
	s.typeKeys("pick a color\r")
	pos = s.screen.waitFor(t, "Which color do you want?", pos)
	s.screen.waitFor(t, "3. Other", pos)
	s.typeKeys("2")
	pos = s.screen.waitFor(t, "✔ Color: Blue", pos)
	pos = s.screen.waitFor(t, "BLUEITIS", pos)
	if got := questionOutput(t, e.Model.Requests(), "call_1"); got != `{"answers":{"color":{"answers":["Blue"]}}}` {
		t.Errorf("output = %s", got)
	}
	// Free text through "Other".
	pos = s.screen.waitFor(t, "Token usage:", pos)
	s.typeKeys("again\r")
	pos = s.screen.waitFor(t, "Which color do you want?", pos)
	s.typeKeys("3")
	s.typeKeys("green\r")
	pos = s.screen.waitFor(t, "✔ Color: green", pos)
	pos = s.screen.waitFor(t, "GREENITIS", pos)
	if got := questionOutput(t, e.Model.Requests(), "call_2"); got != `{"answers":{"color":{"answers":["user_note: green"]}}}` {
		t.Errorf("output = %s", got)
	}
	pos = s.screen.waitFor(t, "Token usage:", pos)
	s.quit(pos)
}

// An MCP client cannot answer the model's questions: the codex tool's turn goes on with no
// answers (the request_user_input event is still forwarded) instead of waiting forever.
// Codex 0.169 has no mcp-server to compare with.
func TestMcpServerQuestionGetsNoAnswers(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(questionCall("call_1", colorQuestionArgs), answer("went on"))
	s := e.startMcpServer(nil)
	res := s.call("codex", map[string]any{"prompt": "pick", "cwd": e.Workdir,
		"config": map[string]any{"features": map[string]any{"default_mode_request_user_input": true}}})
	if res.IsError || mcpText(t, res) != "went on" {
		t.Fatalf("codex result = %+v", res)
	}
	if !hasType(eventTypes(t, s.rec.takeEvents()), "request_user_input") {
		t.Error("no request_user_input notification")
	}
	if got := questionOutput(t, e.Model.Requests(), "call_1"); got != `{"answers":{}}` {
		t.Errorf("output = %s", got)
	}
}

// A client that answers item/tool/requestUserInput with an error gives the model no
// answers; an interrupt while the question is open withdraws the request
// (serverRequest/resolved after turn/completed) and the call ends "aborted", as in Codex.
func TestAppServerQuestionRefusedOrInterrupted(t *testing.T) {
	bins := []string{binary}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		bins = append(bins, ref)
	}
	for _, bin := range bins {
		e := newEnv(t)
		e.ExtraEnv = append(e.ExtraEnv, "HOME="+t.TempDir())
		saved := binary
		binary = bin
		r := e.startRawAppServer(askFeature...)
		binary = saved
		r.initialize()
		r.send(`{"id":1,"method":"thread/start","params":{"cwd":` + jsonNumber(e.Workdir) + `}}`)
		thread := r.response(1)["result"].(map[string]any)["thread"].(map[string]any)["id"].(string)
		ask := func(callID string) (reqID any, turnID string) {
			e.Model.Enqueue(questionCall(callID, colorQuestionArgs), answer("ok"))
			r.send(`{"id":"t-` + callID + `","method":"turn/start","params":{"threadId":"` + thread + `","input":[{"type":"text","text":"pick"}]}}`)
			for {
				m := r.next()
				if m["method"] == "item/tool/requestUserInput" {
					return m["id"], m["params"].(map[string]any)["turnId"].(string)
				}
			}
		}
		untilCompleted := func() string {
			for {
				if m := r.next(); m["method"] == "turn/completed" {
					return m["params"].(map[string]any)["turn"].(map[string]any)["status"].(string)
				}
			}
		}
		id, _ := ask("call_1")
		r.send(`{"id":` + jsonNumber(id) + `,"error":{"code":-32000,"message":"cannot ask"}}`)
		if st := untilCompleted(); st != "completed" {
			t.Errorf("%s: turn %s after a refused question", bin, st)
		}
		if got := questionOutput(t, e.Model.Requests(), "call_1"); got != `{"answers":{}}` {
			t.Errorf("%s: output after an error answer = %s", bin, got)
		}

		id2, turn := ask("call_2")
		r.send(`{"id":"int","method":"turn/interrupt","params":{"threadId":"` + thread + `","turnId":"` + turn + `"}}`)
		if st := untilCompleted(); st != "interrupted" {
			t.Errorf("%s: turn %s after interrupt", bin, st)
		}
		// The open request is withdrawn after turn/completed.
		for {
			m := r.next()
			if m["method"] == "serverRequest/resolved" {
				if p := m["params"].(map[string]any); jsonNumber(p["requestId"]) != jsonNumber(id2) || p["threadId"] != thread {
					t.Errorf("%s: resolved %v, want request %v", bin, p, id2)
				}
				break
			}
		}
		e.Model.Enqueue(answer("next"))
		r.send(`{"id":"t-next","method":"turn/start","params":{"threadId":"` + thread + `","input":[{"type":"text","text":"go on"}]}}`)
		untilCompleted()
		// Codex says "aborted by user after 0.1s" for every interrupted call; gocodex "aborted".
		if got := questionOutput(t, e.Model.Requests(), "call_2"); !strings.HasPrefix(got, "aborted") {
			t.Errorf("%s: output after interrupt = %s", bin, got)
		}
	}
}

// On the raw SQ/EQ wire (proto) the question is a request_user_input event and the client
// answers with the op, here under its older name request_user_input_response.
func TestProtoQuestionAnswered(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(questionCall("call_1", colorQuestionArgs), answer("blue it is"))
	p := e.startProto(askFeature...)
	p.until("session_configured")
	p.send("1", userInput("pick a color"))
	evs := p.until("request_user_input")
	msg := evs[len(evs)-1]["msg"].(map[string]any)
	raw, _ := json.Marshal(msg)
	turn, _ := msg["turn_id"].(string)
	want := `{"call_id":"call_1","isBlocking":false,"questions":[{"header":"Color","id":"color","isOther":true,"isSecret":false,` +
		`"options":[{"description":"Warm.","label":"Red (Recommended)"},{"description":"Cool.","label":"Blue"}],"question":"Which color do you want?"}],` +
		`"turn_id":"` + turn + `","type":"request_user_input"}`
	if turn == "" || string(raw) != want {
		t.Errorf("event = %s\nwant    %s", raw, want)
	}
	p.send("2", `{"type":"request_user_input_response","id":"`+turn+`","response":{"answers":{"color":{"answers":["Blue"]}}}}`)
	p.until("task_complete")
	if got := questionOutput(t, e.Model.Requests(), "call_1"); got != `{"answers":{"color":{"answers":["Blue"]}}}` {
		t.Errorf("output = %s", got)
	}
}
