// Package features is Codex 0.171's table of feature flags ([features] in config.toml,
// --enable/--disable, `features list`, the app-server's experimentalFeature/*) and what
// gocodex does with each: honours it, always behaves one way, or does not implement it.
// A flag gocodex cannot honour is never accepted silently: Warnings names it.
package features

import (
	"fmt"
	"sort"
	"sync"
)

// Stage is a flag's lifecycle stage as Codex names it.
type Stage int

const (
	StageStable Stage = iota
	// StageExperimental is "experimental" in `features list` and "beta" in the app-server.
	StageExperimental
	StageUnderDevelopment
	StageDeprecated
	StageRemoved
)

// String is the stage as `codex features list` prints it.
func (s Stage) String() string {
	return [...]string{"stable", "experimental", "under development", "deprecated", "removed"}[s]
}

// Wire is the stage as the app-server's ExperimentalFeatureStage spells it.
func (s Stage) Wire() string {
	return [...]string{"stable", "beta", "underDevelopment", "deprecated", "removed"}[s]
}

// Feature is one of Codex's flags.
type Feature struct {
	Name    string
	Stage   Stage
	Default bool
	// RuntimeSettable flags are the ones Codex's experimentalFeature/enablement/set changes;
	// it drops every other name from its answer.
	RuntimeSettable bool
	// DisplayName, Description and Announcement are set for beta (experimental) flags only.
	DisplayName, Description, Announcement string
}

// Support says what gocodex does with a flag.
type Support int

const (
	// NotImplemented: gocodex has no such behaviour; on, the flag has no effect.
	NotImplemented Support = iota
	// Honoured: gocodex reads the flag and acts on its value.
	Honoured
	// AlwaysOn: gocodex always behaves as if the flag were on; off has no effect.
	AlwaysOn
)

// gocodexSupport lists the flags gocodex acts on or always has on; any other is NotImplemented.
var gocodexSupport = map[string]Support{
	// request_user_input offered in Default mode (internal/app/extra_tools.go).
	"default_mode_request_user_input": Honoured,
	// Lifecycle hooks belong to internal/hooks, which reads this flag.
	"hooks": Honoured,
	// multi_agent's v1 tools (internal/tools/collab/v1.go), deferred behind tool_search
	// (internal/tools/toolsearch), when multi_agent_v2 is off.
	"multi_agent": Honoured,
	// The collaboration tools and sub-agent threads (internal/tools/collab,
	// internal/host/agents).
	"multi_agent_v2": Honoured,
	// gocodex always offers the shell, its exec_command/write_stdin sessions and view_image
	// (the last one switched by tools.view_image).
	"shell_tool":   AlwaysOn,
	"unified_exec": AlwaysOn,
	"view_image":   AlwaysOn,
}

// legacyNames are old names Codex still reads in place of a flag, each with its warning.
var legacyNames = map[string]string{
	"codex_hooks": "`[features].codex_hooks` is deprecated. Use `[features].hooks` instead.",
}

// legacyOf maps a legacy name to the flag it stands for.
var legacyOf = map[string]string{"codex_hooks": "hooks"}

// Deprecation is Codex's notice about a legacy flag name the configuration uses.
type Deprecation struct {
	Summary string
	Details string
}

// IsLegacyName reports whether name is an old name of a flag (its use is a deprecation).
func IsLegacyName(name string) bool { return legacyNames[name] != "" }

// Deprecations lists, sorted by name, the legacy flag names the configuration sets, in Codex
// 0.169's words (its app-server sends each as deprecationNotice when a thread starts).
func Deprecations(table map[string]any) []Deprecation {
	names := make([]string, 0, len(table))
	for n := range table {
		if IsLegacyName(n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := make([]Deprecation, 0, len(names))
	for _, n := range names {
		flag := legacyOf[n]
		out = append(out, Deprecation{Summary: legacyNames[n], Details: fmt.Sprintf(
			"Enable it with `--enable %s` or `[features].%s` in config.toml. See https://developers.openai.com/codex/config-basic#feature-flags for details.", flag, flag)})
	}
	return out
}

// KnownKey reports whether a [features] key is a flag or one of its legacy names.
func KnownKey(name string) bool {
	_, ok := byName()[name]
	return ok || legacyNames[name] != ""
}

// byName indexes the flags on first use: commands that read no [features] (--version,
// completion, help) do not build it (issue 20).
var byName = sync.OnceValue(func() map[string]*Feature {
	m := make(map[string]*Feature, len(codexFeatures))
	for i := range codexFeatures {
		m[codexFeatures[i].Name] = &codexFeatures[i]
	}
	return m
})

// All returns every flag in Codex's own order (the app-server's listing order).
func All() []Feature { return append([]Feature(nil), codexFeatures...) }

// Sorted returns every flag sorted by name, as `features list` prints them.
func Sorted() []Feature {
	out := All()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup finds a flag by its canonical name.
func Lookup(name string) (Feature, bool) {
	f, ok := byName()[name]
	if !ok {
		return Feature{}, false
	}
	return *f, true
}

// SupportOf says what gocodex does with a flag.
func SupportOf(name string) Support { return gocodexSupport[name] }

// UnknownFlagError is what --enable/--disable and `features enable` answer for a name Codex
// does not have; the text is Codex's.
type UnknownFlagError struct{ Name string }

func (e *UnknownFlagError) Error() string { return "Unknown feature flag: " + e.Name }

// CheckNames refuses the first name that is not a feature flag (or a legacy name of one), as
// Codex's --enable does.
func CheckNames(names ...string) error {
	for _, n := range names {
		if !KnownKey(n) {
			return &UnknownFlagError{Name: n}
		}
	}
	return nil
}

// Value reads one [features] entry: a boolean, or a table that counts as on unless it says
// `enabled = false`. ok is false when the entry holds anything else.
func Value(raw any) (on bool, ok bool) {
	switch v := raw.(type) {
	case bool:
		return v, true
	case map[string]any:
		if b, isBool := v["enabled"].(bool); isBool {
			return b, true
		}
		return true, true
	}
	return false, false
}

// Enabled is the effective value of a flag given the raw [features] table (every layer,
// profile and override already merged): the configured value, else Codex's default.
func Enabled(table map[string]any, name string) bool {
	if on, ok := Value(table[name]); ok {
		return on
	}
	for legacy, flag := range legacyOf {
		if flag == name {
			if on, ok := Value(table[legacy]); ok {
				return on
			}
		}
	}
	f, known := byName()[name]
	return known && f.Default
}

// Effective reports whether gocodex really behaves as the flag's effective value says.
// When it does not, note says how gocodex behaves instead.
func Effective(name string, on bool) (honest bool, note string) {
	f, known := byName()[name]
	if !known || f.Stage == StageRemoved {
		// Removed flags are kept by Codex for old configs and do nothing there either.
		return true, ""
	}
	switch SupportOf(name) {
	case Honoured:
		return true, ""
	case AlwaysOn:
		if on {
			return true, ""
		}
		return false, "always on in gocodex"
	}
	if on {
		return false, "not supported by gocodex"
	}
	return true, ""
}

// Warning is a configured flag gocodex does not honour.
type Warning struct {
	Name    string
	Message string
}

// Warnings lists, sorted by name, every flag the configuration sets explicitly to a value
// gocodex cannot give it. Unknown names are the config loader's (an unknown-key warning).
func Warnings(table map[string]any) []Warning {
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Warning
	for _, n := range names {
		if msg := legacyNames[n]; msg != "" {
			out = append(out, Warning{Name: n, Message: msg})
			continue
		}
		on, ok := Value(table[n])
		if !ok {
			continue
		}
		if _, known := byName()[n]; !known {
			continue
		}
		if honest, note := Effective(n, on); !honest {
			state := "on"
			if !on {
				state = "off"
			}
			out = append(out, Warning{Name: n, Message: fmt.Sprintf(
				"feature `%s` is turned %s but is %s: it has no effect", n, state, note)})
		}
	}
	return out
}

// CheckFeature returns the flag called name, or Codex's error for a name it does not have.
func CheckFeature(name string) (Feature, error) {
	f, ok := Lookup(name)
	if !ok {
		return Feature{}, &UnknownFlagError{Name: name}
	}
	return f, nil
}

// UnderDevelopmentEnabled lists, sorted, the under-development flags the configuration turns
// on explicitly (Codex 0.169 warns about them at every thread start; one on by default, such
// as instant_interrupt, is not named).
func UnderDevelopmentEnabled(table map[string]any) []string {
	var out []string
	for _, f := range codexFeatures {
		if on, set := Value(table[f.Name]); set && on && f.Stage == StageUnderDevelopment {
			out = append(out, f.Name)
		}
	}
	sort.Strings(out)
	return out
}
