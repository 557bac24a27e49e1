package skills

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Instructions renders the <skills_instructions> block Codex 0.169 sends as the first part
// of its second developer message; "" when there are no skills. The headings, the roots
// table and the per-skill lines follow Codex's layout (models are tuned on it); the guidance
// prose is our own wording.
func (c Catalog) Instructions() string {
	if len(c.Roots) == 0 {
		return "" // no skill the model may pick itself
	}
	alias := map[string]string{}
	var b strings.Builder
	b.WriteString("<skills_instructions>\n## Skills\n")
	b.WriteString("Skills are folders of local instructions, each described by a `SKILL.md` file. The skills you can use are listed below with their name, a description, and a short path; expand the path's alias with the skill roots table to get the absolute path.\n")
	b.WriteString("### Skill roots\n")
	for i, r := range c.Roots {
		alias[r] = fmt.Sprintf("r%d", i)
		fmt.Fprintf(&b, "- `r%d` = `%s`\n", i, r)
	}
	b.WriteString("### Available skills\n")
	for _, s := range c.Skills {
		if s.Hidden {
			continue
		}
		fmt.Fprintf(&b, "- %s: %s (file: %s)\n", s.Name, s.Description, shortPath(s, alias))
	}
	b.WriteString(howToUse)
	b.WriteString("</skills_instructions>")
	return b.String()
}

// shortPath is the skill's file relative to its root, behind the root's alias.
func shortPath(s Skill, alias map[string]string) string {
	a, ok := alias[s.Root]
	rel, err := filepath.Rel(s.Root, s.Path)
	if !ok || err != nil {
		return s.Path
	}
	return a + "/" + filepath.ToSlash(rel)
}

const howToUse = `### How to use skills
- Discovery: these are the skills of this session. Each skill's body is the file at its listed path, once the alias is replaced with its folder from ` + "`### Skill roots`" + `.
- Trigger rules: use a skill in a turn when the user names it (as ` + "`$SkillName`" + ` or in words) or when the task plainly fits its description. Use every skill that is named. A skill applies to its turn only; do not keep using it later unless it is named again.
- Missing/blocked: when a named skill is not listed or its file cannot be read, say so in a sentence and carry on as best you can without it.
- How to use a skill (progressive disclosure):
  1) Once you pick a skill, expand its short path and read its ` + "`SKILL.md`" + ` to the end before acting; if the output is cut or paged, keep reading until the end of the file.
  2) Paths the ` + "`SKILL.md`" + ` mentions (such as ` + "`scripts/foo.py`" + `) are relative to the folder holding that ` + "`SKILL.md`" + `; look there first.
  3) When ` + "`SKILL.md`" + ` points to further folders such as ` + "`references/`" + `, follow its guidance to pick the files the task needs, and read each of them yourself before relying on it. Do not hand the reading or interpreting of skill instructions to a subagent; subagents may still do task work when the skill allows it.
  4) When the skill has ` + "`scripts/`" + `, run or adapt them rather than retyping large blocks of code.
  5) When it has ` + "`assets/`" + ` or templates, reuse them rather than starting over.
- Coordination and sequencing:
  - When several skills fit, pick the smallest set that covers the request and say in which order you will use them.
  - Say in one short line which skills you are using and why; if you leave out an obvious one, say why.
- Context hygiene:
  - Read a chosen instruction file completely; be selective only about which files you open. Leave unrelated references, scripts and assets alone.
  - Do not chase references deeply: open files linked directly from ` + "`SKILL.md`" + ` unless you are stuck.
  - When the skill offers variants (frameworks, providers, domains), open only the matching reference files and say which you chose.
- Safety and fallback: when a skill cannot be applied cleanly (files missing, instructions unclear), say what is wrong, choose the next best approach, and go on.
`
