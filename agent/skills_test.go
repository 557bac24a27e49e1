package agent

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/protocol"
)

// The skills block opens the developer sections after the developer instructions (Codex
// 0.169's order); a turn asking for a skill gets the skill's message right after its own,
// kept in history for later turns; a load failure is a warning, not a failed turn.
func TestSkillsInstructionsAndLoadedSkills(t *testing.T) {
	var seen [][]protocol.InputItem
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.DeveloperInstructions = "DEVINSTR"
		c.Skills = &Skills{
			Instructions: "<skills_instructions>\n## Skills\nlisted\n</skills_instructions>",
			Warnings:     []string{"failed to load skill /x/SKILL.md: missing field `description`"},
			Load: func(items []protocol.InputItem) ([]string, []string) {
				seen = append(seen, items)
				for _, it := range items {
					if it.Type == protocol.InputSkill || strings.Contains(it.Text, "$beta") {
						return []string{"<skill>\n<name>beta</name>\n<path>/b/SKILL.md</path>\nBODY\n</skill>"}, []string{"skill gone could not be read"}
					}
				}
				return nil, nil
			},
		}
	}})
	warn := h.until(isType("warning"))
	if w := warn[len(warn)-1].Msg.(protocol.WarningEvent); !strings.Contains(w.Message, "/x/SKILL.md") {
		t.Errorf("start warning = %q", w.Message)
	}
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessageStream("m1", "one"), testkit.Completed(testkit.Usage{})),
		testkit.SSE(testkit.Created(), testkit.AssistantMessageStream("m2", "two"), testkit.Completed(testkit.Usage{})))
	h.say("use $beta please")
	evs := h.until(turnEnd)
	if w, ok := find[protocol.WarningEvent](evs); !ok || w.Message != "skill gone could not be read" {
		t.Errorf("load warning = %+v, %v", w, ok)
	}
	h.submit(protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput("again"), {Type: protocol.InputSkill, Name: "beta", Path: "/b/SKILL.md"}}})
	h.until(turnEnd)

	want := []string{
		"developer: DEVINSTR | <skills_instructions> | <permissions instructions>",
		"user: <environment_context>",
		"user: use $beta please",
		"user: <skill>",
		"assistant: one",
		"user: again",
		"user: <skill>",
	}
	if diff := cmp.Diff(want, summarize(h.requestInput(1))); diff != "" {
		t.Errorf("second request (-want +got):\n%s", diff)
	}
	if len(seen) != 2 {
		t.Fatalf("Load called %d times, want once per turn", len(seen))
	}
}
