package skills

import (
	"path/filepath"
	"strings"
)

// Mentioned returns the skills the text names as `$name`, in list order. A name shared by
// two skills is ambiguous and loads neither, as in Codex.
func (c Catalog) Mentioned(text string) []Skill {
	names := mentions(text)
	if len(names) == 0 {
		return nil
	}
	count := map[string]int{}
	for _, s := range c.Skills {
		count[s.Name]++
	}
	var out []Skill
	for _, s := range c.Skills {
		if names[s.Name] && count[s.Name] == 1 {
			out = append(out, s)
		}
	}
	return out
}

// ByPath returns the listed skill whose SKILL.md is path (an explicit `skill` input item),
// named as discovered or as skills/list reports it (through symbolic links).
func (c Catalog) ByPath(path string) (Skill, bool) {
	for _, s := range c.Skills {
		if s.Path == path {
			return s, true
		}
	}
	for _, s := range c.Skills {
		if real, err := filepath.EvalSymlinks(s.Path); err == nil && real == path {
			return s, true
		}
	}
	return Skill{}, false
}

// isNameByte reports whether b may appear in a mentioned name: `$name.` ends the name at
// the dot, `$name-x` names "name-x".
func isNameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-' || b == ':'
}

func mentions(text string) map[string]bool {
	var out map[string]bool
	for i := 0; i < len(text); i++ {
		if text[i] != '$' {
			continue
		}
		j := i + 1
		for j < len(text) && isNameByte(text[j]) {
			j++
		}
		if j > i+1 {
			if out == nil {
				out = map[string]bool{}
			}
			out[text[i+1:j]] = true
		}
		i = j - 1
	}
	return out
}

// SkillOpen starts the message that carries a loaded skill to the model.
const SkillOpen = "<skill>"

// Message is the user message Codex adds after the user's own for a skill in use: the name,
// the path and the file as it is now on disk. An unreadable file gives an error instead.
func Message(s Skill) (string, error) {
	data, err := readCapped(s.Path)
	if err != nil {
		return "", err
	}
	path := s.Path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // Codex names the file itself, through any symbolic link
	}
	return SkillOpen + "\n<name>" + s.Name + "</name>\n<path>" + path + "</path>\n" + strings.ToValidUTF8(string(data), "\uFFFD") + "\n</skill>", nil
}
