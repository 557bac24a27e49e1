package appserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/internal/skills"
)

// skills/config/write turns a skill off or on by appending a [[skills.config]] entry to the
// user's config.toml, as Codex 0.169 does (later entries win); skills/extraRoots/set names
// further folders of user skills for this server's listings and tells the connection
// skills/changed.

// skillExtraRoots are the folders skills/extraRoots/set named, for the server's life: the
// listings look there, and so do threads started since (config.Config.SkillExtraRoots).
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

// appendSkillRule adds entry as a [[skills.config]] table at the end of the config file, as
// Codex 0.169 writes it; a file whose skills.config is written another way (an inline
// array) gets the entry added to that array instead.
func appendSkillRule(path string, entry map[string]any) error {
	src, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var b strings.Builder
	b.Write(src)
	if len(src) > 0 {
		if !strings.HasSuffix(string(src), "\n") {
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("[[skills.config]]\n")
	if v, ok := entry["path"].(string); ok {
		b.WriteString("path = " + tomlBasicString(v) + "\n")
	} else {
		b.WriteString("name = " + tomlBasicString(entry["name"].(string)) + "\n")
	}
	b.WriteString("enabled = " + strconv.FormatBool(entry["enabled"].(bool)) + "\n")
	out := []byte(b.String())
	var check map[string]any
	if toml.Unmarshal(out, &check) != nil {
		// Not appendable as a table: add to the array where it is.
		var cur map[string]any
		if err := toml.Unmarshal(src, &cur); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		list := []any{}
		if sk, ok := cur["skills"].(map[string]any); ok {
			if l, ok := sk["config"].([]any); ok {
				list = l
			}
		}
		return config.EditFile(path, config.Set([]string{"skills", "config"}, append(list, entry)))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*.toml")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	mode := fs.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// tomlBasicString quotes s as a TOML basic string.
func tomlBasicString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// SkillsConfigWrite answers skills/config/write.
func (a *api) SkillsConfigWrite(ctx context.Context, c *Conn, p SkillsConfigWriteParams) (SkillsConfigWriteResponse, error) {
	s := a.s
	hasPath, hasName := p.Path != nil && *p.Path != "", p.Name != nil && *p.Name != ""
	if hasPath == hasName {
		// Codex's words, as a bare -32602.
		return SkillsConfigWriteResponse{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "skills/config/write requires exactly one of path or name"}
	}
	entry := map[string]any{}
	if hasPath {
		if !filepath.IsAbs(string(*p.Path)) {
			return SkillsConfigWriteResponse{}, errNotAbsolute()
		}
		entry["path"] = string(*p.Path)
	} else {
		entry["name"] = *p.Name
	}
	entry["enabled"] = p.Enabled
	if err := appendSkillRule(filepath.Join(codexHome(s), "config.toml"), entry); err != nil {
		return SkillsConfigWriteResponse{}, internalError(err.Error())
	}
	return SkillsConfigWriteResponse{EffectiveEnabled: p.Enabled}, nil
}

// SkillsExtraRootsSet answers skills/extraRoots/set.
func (a *api) SkillsExtraRootsSet(ctx context.Context, c *Conn, p SkillsExtraRootsSetParams) (SkillsExtraRootsSetResponse, error) {
	extra := &a.s.skillRoots
	if p.ExtraRoots == nil {
		return SkillsExtraRootsSetResponse{}, InvalidRequest("Invalid request: missing field `extraRoots`")
	}
	roots := make([]string, len(p.ExtraRoots))
	for i, r := range p.ExtraRoots {
		roots[i] = string(r)
		if !filepath.IsAbs(roots[i]) {
			return SkillsExtraRootsSetResponse{}, errNotAbsolute()
		}
	}
	extra.mu.Lock()
	extra.roots = roots
	extra.mu.Unlock()
	jsonrpc.AfterReply(ctx, func() { _ = c.Notify(c.Context(), "skills/changed", SkillsExtraRootsSetResponse{}) })
	return SkillsExtraRootsSetResponse{}, nil
}
