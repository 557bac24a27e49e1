package skills

import (
	"path/filepath"
	"strings"
)

// implicitAllowed reads the skill folder's agents/openai.yaml: `policy:
// allow_implicit_invocation: false` keeps the skill out of the list the model sees (it still
// loads when the user names it, and skills/list still reports it), as in Codex 0.169. Other
// keys of that file (the interface block) are not read.
func implicitAllowed(skillDir string) bool {
	data, err := readCapped(filepath.Join(skillDir, "agents", "openai.yaml"))
	if err != nil {
		return true
	}
	inPolicy := false
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if line[0] != ' ' && line[0] != '\t' {
			inPolicy = strings.TrimSpace(strings.SplitN(trimmed, "#", 2)[0]) == "policy:"
			continue
		}
		if !inPolicy {
			continue
		}
		key, value, ok := strings.Cut(trimmed, ":")
		if ok && strings.TrimSpace(key) == "allow_implicit_invocation" {
			value = strings.Trim(strings.TrimSpace(strings.SplitN(value, "#", 2)[0]), `"'`)
			return value != "false"
		}
	}
	return true
}
