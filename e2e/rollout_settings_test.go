package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// A setting changed between turns (override_turn_context) is what the next turn's
// turn_context line records, so a resume knows what the thread last ran with.
func TestRolloutRecordsChangedTurnSettings(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("first"), answer("second"))
	p := e.startProto()
	conf := p.until("session_configured")
	path, _ := conf[len(conf)-1]["msg"].(map[string]any)["rollout_path"].(string)
	p.send("1", userInput("one"))
	p.until("task_complete")
	p.send("2", `{"type":"override_turn_context","model":"gpt-5.4","approval_policy":"on-request"}`)
	p.send("3", userInput("two"))
	p.until("task_complete")
	p.send("4", `{"type":"shutdown"}`)
	p.until("shutdown_complete")
	if path == "" {
		t.Fatal("session_configured has no rollout_path")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var models, approvals []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var line struct {
			Type    string `json:"type"`
			Payload struct {
				Model          string          `json:"model"`
				ApprovalPolicy json.RawMessage `json:"approval_policy"`
			} `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Type == "turn_context" {
			models = append(models, line.Payload.Model)
			approvals = append(approvals, string(line.Payload.ApprovalPolicy))
		}
	}
	if len(models) != 2 || models[0] != "gpt-5.5" || models[1] != "gpt-5.4" || approvals[1] != `"on-request"` {
		t.Errorf("turn_context models %v, approvals %v", models, approvals)
	}
	if got := e.Model.Requests()[1].JSON["model"]; got != "gpt-5.4" {
		t.Errorf("second request model = %v", got)
	}
}
