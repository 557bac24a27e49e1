package hooks

import (
	"context"
	"os/exec"
	"path/filepath"
)

// Options say where to look for hooks and how they run.
type Options struct {
	// CodexHome holds the user's hooks.json and config.toml (with the trust state).
	CodexHome string
	// ProjectFolders are the project's .codex folders whose hooks.json and config.toml may
	// load (a trusted project's, root first); Keep, when set, says which of their files may
	// (nil keeps all).
	ProjectFolders []string
	Keep           func(path string) bool
	// NotLoaded are .codex folders of the project that do not load (not trusted): hooks
	// they hold are named in a warning.
	NotLoaded []string
	// BypassTrust runs hooks that are not trusted (--dangerously-bypass-hook-trust).
	BypassTrust bool
	// Environ is the hooks' environment; nil means the process's.
	Environ func() []string
	// Confine builds the command a hook runs as, under the session's sandbox policy; nil
	// runs hooks as they are (Codex 0.169 runs them outside its sandbox).
	Confine func(ctx context.Context, argv []string, cwd string, env []string) (*exec.Cmd, error)
}

type loader struct {
	handlers []*Handler
	warnings []string
	order    int64
}

func (l *loader) warn(s string) { l.warnings = append(l.warnings, s) }

// Listed is a configured hook as hooks/list shows it: whether it is enabled and whether its
// command is trusted ("trusted", "untrusted", or "modified" since it was trusted).
type Listed struct {
	Handler *Handler
	Enabled bool
	Trust   string
}

// Load finds the configured hooks and keeps those that may run. The warnings name each
// file that could not be read (with line and column), each hook that will not run and why.
func Load(o Options) (*Engine, []string) {
	listed, userTOMLPath, warnings := List(o)
	e := &Engine{environ: o.Environ, confine: o.Confine}
	for _, it := range listed {
		h := it.Handler
		switch {
		case !it.Enabled:
			continue // disabled by the person: Codex says nothing either
		case o.BypassTrust:
		case it.Trust != "trusted":
			// Codex skips untrusted hooks without a word in exec; we say it once.
			warnings = append(warnings, "hook "+h.Key()+" is not trusted and will not run (trust it with trusted_hash = \""+h.Hash()+"\" under [hooks.state.\""+h.Key()+"\"] in "+userTOMLPath+", or pass --dangerously-bypass-hook-trust)")
			continue
		}
		e.handlers = append(e.handlers, h)
	}
	return e, warnings
}

// List finds every configured hook, runnable or not, with its trust; it also returns the
// user's config.toml path (where trust is recorded) and what could not be read.
func List(o Options) ([]Listed, string, []string) {
	l := &loader{}
	userTOMLPath := filepath.Join(o.CodexHome, "config.toml")
	userTOML, err := readConfigTOML(userTOMLPath)
	if err != nil {
		l.warn("hooks: " + err.Error())
	}
	userJSONPath := filepath.Join(o.CodexHome, "hooks.json")
	userJSON, err := readHooksJSON(userJSONPath)
	if err != nil {
		l.warn("hooks: " + err.Error())
	}
	l.layer("user", userJSONPath, userJSON, userTOMLPath, userTOML.Groups)

	for _, dir := range o.NotLoaded {
		groups, _ := readHooksJSON(filepath.Join(dir, "hooks.json"))
		inline, _ := readConfigTOML(filepath.Join(dir, "config.toml"))
		if len(groups) > 0 || len(inline.Groups) > 0 {
			l.warn("hooks in " + dir + " are not loaded: the project is not trusted")
		}
	}
	for _, dir := range o.ProjectFolders {
		jsonPath := filepath.Join(dir, "hooks.json")
		tomlPath := filepath.Join(dir, "config.toml")
		var groups map[string][]group
		var inline tomlLayer
		if o.Keep == nil || o.Keep(jsonPath) {
			var err error
			if groups, err = readHooksJSON(jsonPath); err != nil {
				l.warn("hooks: " + err.Error())
			}
		}
		if o.Keep == nil || o.Keep(tomlPath) {
			var err error
			if inline, err = readConfigTOML(tomlPath); err != nil {
				l.warn("hooks: " + err.Error())
			}
		}
		l.layer("project", jsonPath, groups, tomlPath, inline.Groups)
	}
	var out []Listed
	for _, h := range l.handlers {
		st, known := userTOML.State[h.Key()]
		it := Listed{Handler: h, Enabled: !(known && st.Enabled != nil && !*st.Enabled), Trust: "trusted"}
		switch {
		case !known || st.TrustedHash == "":
			it.Trust = "untrusted"
		case st.TrustedHash != h.Hash():
			it.Trust = "modified"
		}
		out = append(out, it)
	}
	return out, userTOMLPath, l.warnings
}
