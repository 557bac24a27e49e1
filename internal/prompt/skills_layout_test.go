package prompt

import "testing"

// The skills block sits between the developer instructions and the permissions, and a
// loaded skill's message is context, not a turn the user typed (rollback, replay).
func TestSkillsLayoutAndContextualSkillMessages(t *testing.T) {
	ic := BuildInitialContext(ContextOptions{
		DeveloperInstructions: "DEV",
		SkillsInstructions:    "<skills_instructions>\n</skills_instructions>",
		Permissions:           &PermissionsOptions{},
	})
	if len(ic.Developer) != 3 || ic.Developer[0] != "DEV" || ic.Developer[1] != "<skills_instructions>\n</skills_instructions>" {
		t.Fatalf("developer sections = %q", ic.Developer)
	}
	if !IsContextualUserText("<skill>\n<name>beta</name>\n<path>/p/SKILL.md</path>\nbody\n</skill>") {
		t.Error("a loaded skill's message counts as user input")
	}
	if IsContextualUserText("<skill> is what I typed") {
		t.Error("text the user typed starting with <skill> is taken for context")
	}
}
