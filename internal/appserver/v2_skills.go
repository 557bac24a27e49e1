package appserver

import (
	"context"
	"os"
	"path/filepath"

	"github.com/gocodex/gocodex/internal/skills"
)

// skills/list reports, per working directory, the skills a thread started there would be
// given and the SKILL.md files that did not load. Folders are scanned on every call, so
// forceReload changes nothing: there is no cache to bypass. The connection then hears
// skills/changed when those folders change (v2_skills_watch.go).

// SkillsList answers skills/list.
func (a *api) SkillsList(ctx context.Context, c *Conn, p SkillsListParams) (SkillsListResponse, error) {
	s := a.s
	extra := &s.skillRoots
	base := ""
	if s.opts.Config != nil {
		base = s.opts.Config.Cwd
	}
	if base == "" {
		base, _ = os.Getwd()
	}
	cwds := p.Cwds
	if len(cwds) == 0 {
		cwds = []string{base}
	}
	out := SkillsListResponse{Data: make([]SkillsListEntry, 0, len(cwds))}
	var watched []skills.Options
	for _, cwd := range cwds {
		abs := cwd
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(base, abs)
		}
		o := skillOptionsAt(s, abs, extra)
		watched = append(watched, o)
		cat := skills.Discover(o)
		// The list is the same as the model's; the cwd is echoed as the client sent it.
		entry := SkillsListEntry{Cwd: cwd, Skills: []SkillMetadata{}, Errors: []SkillErrorInfo{}}
		for _, sk := range cat.Listed() {
			// Codex lists the file itself, through any symbolic link (the model's list keeps the link).
			path := sk.Path
			if real, err := filepath.EvalSymlinks(path); err == nil {
				path = real
			}
			entry.Skills = append(entry.Skills, SkillMetadata{Name: sk.Name, Description: sk.Description, Path: LegacyAppPathString(path), Scope: SkillScope(sk.Scope), Enabled: skills.Enabled(o.Rules, sk)})
		}
		for _, e := range cat.Errors {
			entry.Errors = append(entry.Errors, SkillErrorInfo{Path: e.Path, Message: e.Message})
		}
		out.Data = append(out.Data, entry)
	}
	watchSkills(c, watched)
	return out, nil
}
