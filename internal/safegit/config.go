package safegit

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// repoConfig is what a Repo took from the configuration git reads for it.
type repoConfig struct {
	// neutralised are the overrides that empty every driver the configuration defines.
	neutralised [][2]string
	// filters are the names of the filter drivers defined.
	filters []string
	// hashSize is the object id's length in bytes (20 for sha1, 32 for sha256).
	hashSize int
}

// canary is passed as the drivers' overrides are while the configuration is listed: a git
// that does not list it (older than 2.31) would ignore them.
var canary = [2]string{"safegit.canary", "1"}

// trustedScopes are the configuration scopes that are not the repository's: the system's,
// the user's (with the files they include) and this package's own overrides.
var trustedScopes = map[string]bool{"system": true, "global": true, "command": true}

// config reads (once) the configuration git would read for this Repo.
func (r *Repo) config(ctx context.Context) (*repoConfig, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cfg != nil {
		return r.cfg, nil
	}
	out, err := r.exec(ctx, [][2]string{canary}, nil, []string{"config", "--list", "--includes", "--show-scope", "--show-origin", "-z"})
	if err != nil {
		return nil, fmt.Errorf("safegit: read the repository's configuration before running git on it (git 2.31 or later is needed): %w", err)
	}
	cfg, err := parseConfigList(out)
	if err != nil {
		return nil, err
	}
	r.cfg = cfg
	return cfg, nil
}

// configEntry is one line of `git config --list --show-scope --show-origin -z`.
type configEntry struct {
	scope, origin, key, value string
}

// parseConfigList reads the entries (scope NUL origin NUL key LF value NUL; a key set
// without "=" has no LF) and derives the overrides.
func parseConfigList(out []byte) (*repoConfig, error) {
	fields := bytes.Split(out, []byte{0})
	if n := len(fields); n > 0 && len(fields[n-1]) == 0 {
		fields = fields[:n-1]
	}
	if len(fields)%3 != 0 {
		return nil, fmt.Errorf("safegit: git config --list printed %d fields, not scope, origin, entry triples", len(fields))
	}
	drivers := map[string]map[string]bool{"filter": {}, "diff": {}, "merge": {}}
	cfg := &repoConfig{hashSize: 20}
	sawCanary := false
	for i := 0; i < len(fields); i += 3 {
		e := configEntry{scope: string(fields[i]), origin: string(fields[i+1])}
		e.key, e.value, _ = strings.Cut(string(fields[i+2]), "\n")
		if e.scope == "command" && e.key == canary[0] && e.value == canary[1] {
			sawCanary = true
			continue
		}
		section, rest, ok := strings.Cut(e.key, ".")
		if !ok {
			continue
		}
		section = strings.ToLower(section)
		sub, variable := "", rest
		if j := strings.LastIndexByte(rest, '.'); j >= 0 {
			sub, variable = rest[:j], strings.ToLower(rest[j+1:])
		}
		if names, isDriver := drivers[section]; isDriver && sub != "" {
			names[sub] = true
		}
		if !trustedScopes[e.scope] && variable == "path" && (section == "include" && sub == "" || section == "includeif" && sub != "") {
			return nil, fmt.Errorf("safegit: refusing to run git on this repository: its configuration (%s) includes %s (%s); "+
				"a file it includes could name a program after gocodex has read it. Move those settings into the repository's "+
				"own config file or your global one: %w", strings.TrimPrefix(e.origin, "file:"), e.value, e.key, ErrRefused)
		}
		if section == "extensions" && sub == "" && strings.EqualFold(variable, "objectformat") && strings.EqualFold(e.value, "sha256") {
			cfg.hashSize = 32
		}
	}
	if !sawCanary {
		return nil, fmt.Errorf("safegit: this git ignores configuration passed in GIT_CONFIG_COUNT, so gocodex cannot neutralise "+
			"the repository's filter and diff drivers; install git 2.31 or later: %w", ErrRefused)
	}
	for _, name := range slices.Sorted(maps.Keys(drivers["filter"])) {
		cfg.filters = append(cfg.filters, name)
		p := "filter." + name + "."
		cfg.neutralised = append(cfg.neutralised, [2]string{p + "clean", ""}, [2]string{p + "smudge", ""},
			[2]string{p + "process", ""}, [2]string{p + "required", "false"})
	}
	for _, name := range slices.Sorted(maps.Keys(drivers["diff"])) {
		p := "diff." + name + "."
		cfg.neutralised = append(cfg.neutralised, [2]string{p + "textconv", ""}, [2]string{p + "command", ""})
	}
	for _, name := range slices.Sorted(maps.Keys(drivers["merge"])) {
		cfg.neutralised = append(cfg.neutralised, [2]string{"merge." + name + ".driver", ""})
	}
	return cfg, nil
}
