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

type skillsListParams struct {
	Cwds        []string `json:"cwds"`
	ForceReload bool     `json:"forceReload"`
}

type skillMetadata struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Path        string  `json:"path"`
	Scope       string  `json:"scope"`
	Enabled     bool    `json:"enabled"`
	PluginID    *string `json:"pluginId"`
}

type skillErrorInfo struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

type skillsListEntry struct {
	Cwd    string           `json:"cwd"`
	Skills []skillMetadata  `json:"skills"`
	Errors []skillErrorInfo `json:"errors"`
}

type skillsListResponse struct {
	Data []skillsListEntry `json:"data"`
}

func registerSkillMethods(s *Server) {
	extra := &s.skillRoots
	registerSkillConfigMethods(s, extra)
	s.Handle("skills/list", TypedOptional(func(ctx context.Context, c *Conn, p skillsListParams) (skillsListResponse, error) {
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
		out := skillsListResponse{Data: make([]skillsListEntry, 0, len(cwds))}
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
			entry := skillsListEntry{Cwd: cwd, Skills: []skillMetadata{}, Errors: []skillErrorInfo{}}
			for _, sk := range cat.Listed() {
				// Codex lists the file itself, through any symbolic link (the model's list keeps the link).
				path := sk.Path
				if real, err := filepath.EvalSymlinks(path); err == nil {
					path = real
				}
				entry.Skills = append(entry.Skills, skillMetadata{Name: sk.Name, Description: sk.Description, Path: path, Scope: string(sk.Scope), Enabled: skills.Enabled(o.Rules, sk)})
			}
			for _, e := range cat.Errors {
				entry.Errors = append(entry.Errors, skillErrorInfo{Path: e.Path, Message: e.Message})
			}
			out.Data = append(out.Data, entry)
		}
		watchSkills(c, watched)
		return out, nil
	}))
}
