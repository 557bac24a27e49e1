package appserver

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/skills"
)

// skills/config/write turns a skill off or on by appending a [[skills.config]] entry to the
// user's config.toml, as Codex 0.169 does (later entries win); skills/extraRoots/set names
// further folders of user skills for this server's listings and tells the connection
// skills/changed.

type skillsConfigWriteParams struct {
	Enabled *bool   `json:"enabled"`
	Name    *string `json:"name"`
	Path    *string `json:"path"`
}

type skillsExtraRootsSetParams struct {
	ExtraRoots *[]string `json:"extraRoots"`
}

// skillExtraRoots are the folders skills/extraRoots/set named, for the server's life.
type skillExtraRoots struct {
	mu    sync.Mutex
	roots []string
}

func (r *skillExtraRoots) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.roots...)
}

// skillOptionsAt is where a listing for cwd looks, with the rules of the configuration.
func skillOptionsAt(s *Server, cwd string, extra *skillExtraRoots) skills.Options {
	o := skills.Options{Cwd: cwd, CodexHome: codexHome(s), Home: s.opts.Getenv("HOME"), ExtraRoots: extra.get()}
	if cfg, err := s.loadThreadConfig(threadOverrides{Cwd: &cwd}); err == nil {
		o.Rules = skills.RulesFromConfig(cfg.Effective)
	} else if s.opts.Config != nil {
		o.Rules = skills.RulesFromConfig(s.opts.Config.Effective)
	}
	return o
}

func registerSkillConfigMethods(s *Server, extra *skillExtraRoots) {
	s.Handle("skills/config/write", Typed(func(ctx context.Context, c *Conn, p skillsConfigWriteParams) (map[string]bool, error) {
		if p.Enabled == nil {
			return nil, InvalidRequest("Invalid request: missing field `enabled`")
		}
		entry := map[string]any{}
		switch {
		case p.Path != nil && *p.Path != "":
			if !filepath.IsAbs(*p.Path) {
				return nil, InvalidRequest("Invalid request: AbsolutePathBuf deserialized without a base path")
			}
			entry["path"] = *p.Path
		case p.Name != nil && *p.Name != "":
			entry["name"] = *p.Name
		default:
			return nil, InvalidRequest("skills/config/write needs a skill `name` or `path`")
		}
		entry["enabled"] = *p.Enabled
		path := filepath.Join(codexHome(s), "config.toml")
		cfg, err := s.loadThreadConfig(threadOverrides{})
		if err != nil {
			return nil, err
		}
		rules := skills.RulesFromConfig(cfg.Effective)
		var list []any
		for _, r := range rules {
			m := map[string]any{"enabled": r.Enabled}
			if r.Path != "" {
				m["path"] = r.Path
			} else {
				m["name"] = r.Name
			}
			list = append(list, m)
		}
		list = append(list, entry)
		if err := config.EditFile(path, config.Set([]string{"skills", "config"}, list)); err != nil {
			return nil, internalError(err.Error())
		}
		return map[string]bool{"effectiveEnabled": *p.Enabled}, nil
	}))
	s.Handle("skills/extraRoots/set", Typed(func(ctx context.Context, c *Conn, p skillsExtraRootsSetParams) (struct{}, error) {
		if p.ExtraRoots == nil {
			return struct{}{}, InvalidRequest("Invalid request: missing field `extraRoots`")
		}
		for _, r := range *p.ExtraRoots {
			if !filepath.IsAbs(r) {
				return struct{}{}, InvalidRequest("Invalid request: AbsolutePathBuf deserialized without a base path")
			}
		}
		extra.mu.Lock()
		extra.roots = append([]string(nil), *p.ExtraRoots...)
		extra.mu.Unlock()
		context.AfterFunc(ctx, func() { _ = c.Notify(c.Context(), "skills/changed", struct{}{}) })
		return struct{}{}, nil
	}))
}
