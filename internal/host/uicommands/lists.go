package uicommands

import (
	"os"

	"github.com/gocodex/gocodex/agent"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/skills"
)

// Hook is one configured lifecycle hook as /hooks shows it.
type Hook struct {
	Event, Command, Matcher, Source string
	// Active hooks run: enabled, and trusted (or trust bypassed).
	Active bool
	Trust  string
}

// ListHooks reads the configuration's hooks the way threads load them.
func ListHooks(cfg *config.Config, bypassTrust bool) []Hook {
	listed, _ := app.ListHooks(cfg)
	out := make([]Hook, 0, len(listed))
	for _, l := range listed {
		h := Hook{Event: string(l.Handler.Event), Command: l.Handler.Command, Source: l.Handler.SourcePath,
			Trust: l.Trust, Active: l.Enabled && (bypassTrust || l.Trust == "trusted")}
		if l.Handler.Matcher != nil {
			h.Matcher = *l.Handler.Matcher
		}
		out = append(out, h)
	}
	return out
}

// Skill is one skill as /skills lists it.
type Skill struct {
	Name, Description, Path string
	Enabled                 bool
}

// ListSkills finds the skills a thread in the configuration's folder gets.
func ListSkills(cfg *config.Config) []Skill {
	cat := skills.Discover(app.SkillOptions(cfg, os.Getenv))
	disabled := map[string]bool{}
	for _, s := range cat.Disabled {
		disabled[s.Path] = true
	}
	var out []Skill
	for _, s := range cat.Listed() {
		out = append(out, Skill{Name: s.Name, Description: s.Description, Path: s.Path, Enabled: !disabled[s.Path]})
	}
	return out
}

// Terminal is one process a thread's model left running (an exec_command session).
type Terminal struct {
	ProcessID, Command, Cwd string
}

// BackgroundTerminals lists the running exec sessions of engine when it is a host thread;
// nil for anything else (/ps).
func BackgroundTerminals(engine any) []Terminal {
	th, ok := engine.(*agent.Thread)
	if !ok || th.BackgroundTerminals() == nil {
		return nil
	}
	var out []Terminal
	for _, t := range th.BackgroundTerminals().Terminals() {
		out = append(out, Terminal{ProcessID: t.ProcessID, Command: t.Command, Cwd: t.Cwd})
	}
	return out
}
