package agents

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"github.com/gocodex/gocodex/internal/tools/collab"
)

// Role is one `[agents.<name>]` table: what a child spawned with `agent_type = <name>` runs
// with. An empty field keeps the parent's (or the spawn call's) setting.
type Role struct {
	Name        string
	Description string
	Model       string
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

// RolesFromConfig reads the roles of an `[agents]` table (config.Config.Effective["agents"]).
// A role's key of the wrong type is an error naming it.
func RolesFromConfig(table map[string]any) ([]Role, error) {
	var roles []Role
	for name, v := range table {
		if limitKeys[name] {
			continue
		}
		t, ok := v.(map[string]any)
		if !ok {
			continue // another [agents] setting, not a role
		}
		r := Role{Name: name}
		for key, field := range map[string]*string{"description": &r.Description, "model": &r.Model,
			"model_provider": &r.ModelProvider, "model_reasoning_effort": &r.ReasoningEffort,
			"developer_instructions": &r.DeveloperInstructions} {
			raw, present := t[key]
			if !present {
				continue
			}
			s, ok := raw.(string)
			if !ok {
				return nil, fmt.Errorf("agents.%s.%s must be a string", name, key)
			}
			*field = s
		}
		roles = append(roles, r)
	}
	sort.Slice(roles, func(i, j int) bool { return roles[i].Name < roles[j].Name })
	return roles, nil
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
		out = append(out, collab.Role{Name: ro.Name, Description: ro.Description})
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

// applyRole gives a child its role's settings; the spawn call's own model and effort win.
func applyRole(c *Child, ro Role) {
	if c.Model == "" && ro.Model != "" {
		c.Model = ro.Model
		if ro.ModelProvider != "" {
			c.Model = ro.ModelProvider + "/" + ro.Model
		}
	}
	if c.ReasoningEffort == "" {
		c.ReasoningEffort = ro.ReasoningEffort
	}
	if ro.DeveloperInstructions != "" {
		// Before the task, the last opening item.
		last := len(c.Opening) - 1
		c.Opening = append(c.Opening[:last:last], developer(ro.DeveloperInstructions), c.Opening[last])
	}
}
