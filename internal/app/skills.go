package app

import (
	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/skills"
	"github.com/gocodex/gocodex/protocol"
)

// SkillOptions says where the skills of a session are looked for.
func SkillOptions(cfg *config.Config, getenv func(string) string) skills.Options {
	return skills.Options{Cwd: cfg.Cwd, ProjectRoot: cfg.ProjectRoot, CodexHome: cfg.CodexHome, Home: getenv("HOME"),
		ExtraRoots: cfg.SkillExtraRoots, Rules: skills.RulesFromConfig(cfg.Effective)}
}

// threadSkills discovers the skills for the thread's cwd once, at start, as Codex does; the
// file of a skill in use is read when a turn asks for it.
func (a *App) threadSkills(cfg *config.Config) *agent.Skills {
	cat := skills.Discover(SkillOptions(cfg, a.opts.Getenv))
	var warnings []string
	for _, e := range cat.Errors {
		warnings = append(warnings, e.Error())
		if a.opts.Logger != nil {
			a.opts.Logger.Warn("skill not loaded", "path", e.Path, "err", e.Message)
		}
	}
	return &agent.Skills{
		Instructions: cat.Instructions(),
		Warnings:     warnings,
		Load:         func(items []protocol.InputItem) ([]string, []string) { return loadSkills(cat, items) },
	}
}

// loadSkills returns the <skill> messages for the skills the input mentions as `$name` or
// names with a skill item, each once, in list order.
func loadSkills(cat skills.Catalog, items []protocol.InputItem) (messages, warnings []string) {
	want := map[string]bool{}
	for _, it := range items {
		switch it.Type {
		case protocol.InputText, "":
			for _, s := range cat.Mentioned(it.Text) {
				want[s.Path] = true
			}
		case protocol.InputSkill:
			if _, ok := cat.ByPath(it.Path); ok {
				want[it.Path] = true
			} else {
				warnings = append(warnings, "skill "+it.Name+" ("+it.Path+") is not one of this session's skills; it was not loaded")
			}
		}
	}
	if len(want) == 0 {
		return nil, warnings
	}
	for _, s := range cat.Skills {
		if !want[s.Path] {
			continue
		}
		msg, err := skills.Message(s)
		if err != nil {
			warnings = append(warnings, "failed to load skill "+s.Path+": "+err.Error())
			continue
		}
		messages = append(messages, msg)
	}
	return messages, warnings
}
