package protocol

import (
	"encoding/json"
	"testing"
)

func TestSkillInputItemRoundTrip(t *testing.T) {
	in := InputItem{Type: InputSkill, Name: "beta", Path: "/repo/.agents/skills/beta/SKILL.md"}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"skill","name":"beta","path":"/repo/.agents/skills/beta/SKILL.md"}`; string(b) != want {
		t.Errorf("marshal = %s, want %s", b, want)
	}
	var out InputItem
	if err := json.Unmarshal(b, &out); err != nil || out != in {
		t.Errorf("unmarshal = %+v, %v", out, err)
	}
	if err := json.Unmarshal([]byte(`{"type":"skill","name":"beta"}`), &out); err == nil {
		t.Error("a skill item without a path was accepted")
	}
}
