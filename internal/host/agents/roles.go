package agents

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/gocodex/gocodex/internal/tools/collab"
)

// Role is one `[agents.<name>]` table: what a child spawned with `agent_type = <name>` runs
// with. An empty field keeps the parent's (or the spawn call's) setting.
type Role struct {
	Name        string
	Description string
	// ConfigFile is where Codex 0.169 reads a role's settings (a TOML file, relative to
	// CODEX_HOME); gocodex also reads them from the table itself.
	ConfigFile string
	Model      string
	// ModelProvider is gocodex's own: a provider of model_providers the child runs on.
	ModelProvider         string
	ReasoningEffort       string
	DeveloperInstructions string
}

// Codex 0.169's built-in roles, listed after the configured ones unless one takes its name.
var (
	//go:embed texts/role_explorer.md
	explorerDescription string
	//go:embed texts/role_worker.md
	workerDescription string
)

func builtinRoles() []Role {
	return []Role{
		{Name: "default", Description: "Default agent."},
		{Name: "explorer", Description: strings.TrimSuffix(explorerDescription, "\n")},
		{Name: "worker", Description: strings.TrimSuffix(workerDescription, "\n")},
	}
}

// limitKeys are the [agents] keys that are settings, not roles.
var limitKeys = map[string]bool{"max_threads": true, "max_depth": true}

// roleKeys are the settings a role gives its child, in its table or its config_file.
var roleKeys = []string{"model", "model_provider", "model_reasoning_effort", "developer_instructions"}

func (r *Role) field(key string) *string {
	switch key {
	case "model":
		return &r.Model
	case "model_provider":
		return &r.ModelProvider
	case "model_reasoning_effort":
		return &r.ReasoningEffort
	case "developer_instructions":
		return &r.DeveloperInstructions
	case "description":
		return &r.Description
	case "config_file":
		return &r.ConfigFile
	}
	return nil
}

// RolesFromConfig reads the roles of an `[agents]` table (config.Config.Effective["agents"]),
// each with its config_file (relative to codexHome) read; the table's own settings win over
// the file's. A mistyped key, an unreadable file or a setting gocodex cannot give a child is
// an error naming it.
func RolesFromConfig(table map[string]any, codexHome string) ([]Role, error) {
	var roles []Role
	for name, v := range table {
		t, ok := v.(map[string]any)
		if limitKeys[name] || !ok {
			continue // a setting of [agents], not a role
		}
		r := Role{Name: name}
		for _, key := range append([]string{"description", "config_file"}, roleKeys...) {
			if err := setString(&r, t, key, "agents."+name); err != nil {
				return nil, err
			}
		}
		if r.ConfigFile != "" {
			if err := r.readConfigFile(codexHome); err != nil {
				return nil, err
			}
		}
		roles = append(roles, r)
	}
	sort.Slice(roles, func(i, j int) bool { return roles[i].Name < roles[j].Name })
	return roles, nil
}

// setString sets r's key from t when present and empty in r.
func setString(r *Role, t map[string]any, key, where string) error {
	raw, present := t[key]
	if !present || *r.field(key) != "" {
		return nil
	}
	s, ok := raw.(string)
	if !ok {
		return fmt.Errorf("%s.%s must be a string", where, key)
	}
	*r.field(key) = s
	return nil
}

// readConfigFile fills what the table left unset from the role's config_file.
func (r *Role) readConfigFile(codexHome string) error {
	path := r.ConfigFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(codexHome, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("agents.%s.config_file: %w", r.Name, err)
	}
	var t map[string]any
	if err := toml.Unmarshal(b, &t); err != nil {
		return fmt.Errorf("agents.%s.config_file %s: %w", r.Name, path, err)
	}
	for key := range t {
		if !slices.Contains(roleKeys, key) {
			return fmt.Errorf("agents.%s.config_file %s: %q is not a setting gocodex gives a sub-agent (it takes %s)",
				r.Name, path, key, strings.Join(roleKeys, ", "))
		}
	}
	for _, key := range roleKeys {
		if err := setString(r, t, key, path); err != nil {
			return err
		}
	}
	return nil
}

// roleList is the configured roles then the built-ins they do not replace, as Codex lists
// them in spawn_agent's agent_type; nil when none is configured (Codex then offers no
// agent_type).
func roleList(configured []Role) []Role {
	if len(configured) == 0 {
		return nil
	}
	out := append([]Role(nil), configured...)
	taken := map[string]bool{}
	for _, r := range configured {
		taken[r.Name] = true
	}
	for _, b := range builtinRoles() {
		if !taken[b.Name] {
			out = append(out, b)
		}
	}
	return out
}

// Roles are the roles spawn_agent offers (collab.RoleLister).
func (r *Registry) Roles() []collab.Role {
	var out []collab.Role
	for _, ro := range r.roles {
		out = append(out, collab.Role{Name: ro.Name, Description: ro.Description, Model: ro.Model, ReasoningEffort: ro.ReasoningEffort})
	}
	return out
}

// role finds a role by name.
func (r *Registry) role(name string) (Role, bool) {
	for _, ro := range r.roles {
		if ro.Name == name {
			return ro, true
		}
	}
	return Role{}, false
}

// applyRole gives a child its role's settings; a role's model and effort win over the spawn
// call's, as Codex 0.169 tells the model ("cannot be changed").
func applyRole(c *Child, ro Role) {
	if ro.Model != "" {
		c.Model = ro.Model
		if ro.ModelProvider != "" {
			c.Model = ro.ModelProvider + "/" + ro.Model
		}
	}
	if ro.ReasoningEffort != "" {
		c.ReasoningEffort = ro.ReasoningEffort
	}
	c.Role, c.DeveloperInstructions = ro.Name, ro.DeveloperInstructions
}
