package app

import (
	"path/filepath"

	"github.com/gocodex/gocodex/internal/commands"
	"github.com/gocodex/gocodex/internal/config"
)

// CustomCommands are the person's custom commands ($CODEX_HOME/prompts) and those of the
// project's trusted .codex folders that no untrusted session wrote (config.Load has said
// which do not load); a project's never takes a built-in's name or one of the person's.
func CustomCommands(cfg *config.Config) (*commands.Set, []string) {
	src := commands.Sources{Keep: func(path string) bool { return cfg.ProjectFileRefused(path) == "" }}
	if cfg.CodexHome != "" {
		src.User = filepath.Join(cfg.CodexHome, "prompts")
	}
	for _, dir := range cfg.TrustedProjectFolders() {
		src.Project = append(src.Project, filepath.Join(dir, config.ProjectPromptsDir))
	}
	return commands.Load(src)
}

// ExpandCustomCommand is prompt with a custom command it invokes (`/name args`) expanded to
// the command's text with the arguments in place, and the warnings of loading the commands.
// Any other prompt, an unknown /word included, comes back as typed.
func ExpandCustomCommand(cfg *config.Config, prompt string) (expanded string, warnings []string, err error) {
	if _, _, ok := commands.Invocation(prompt); !ok {
		return prompt, nil, nil
	}
	set, warnings := CustomCommands(cfg)
	expanded, ok, err := set.Expand(prompt)
	if err != nil {
		return "", warnings, err
	}
	if !ok {
		return prompt, warnings, nil
	}
	return expanded, warnings, nil
}
