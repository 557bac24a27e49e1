package appserver

import (
	"context"
	"sort"
	"strconv"
)

// permissionProfile/list: the permission profiles a thread may select, Codex's three
// built-ins first, then the named [permissions.<name>] tables of the configuration, paged by
// index as Codex pages them.

var builtinPermissionProfiles = []string{":read-only", ":workspace", ":danger-full-access"}

// PermissionProfileList answers permissionProfile/list.
func (a *api) PermissionProfileList(ctx context.Context, c *Conn, p PermissionProfileListParams) (PermissionProfileListResponse, error) {
	s := a.s
	cfg, err := s.loadThreadConfig(threadOverrides{Cwd: p.Cwd})
	if err != nil {
		return PermissionProfileListResponse{}, err
	}
	all := make([]PermissionProfileSummary, 0, len(builtinPermissionProfiles))
	for _, id := range builtinPermissionProfiles {
		all = append(all, PermissionProfileSummary{Allowed: true, ID: id})
	}
	named, _ := cfg.Effective["permissions"].(map[string]any)
	names := make([]string, 0, len(named))
	for name, v := range named {
		if _, ok := v.(map[string]any); ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		sum := PermissionProfileSummary{Allowed: true, ID: name}
		if d, ok := named[name].(map[string]any)["description"].(string); ok {
			sum.Description = &d
		}
		all = append(all, sum)
	}
	start := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 || n > len(all) {
			return PermissionProfileListResponse{}, InvalidRequest("invalid cursor: " + *p.Cursor)
		}
		start = n
	}
	end := len(all)
	if p.Limit != nil && *p.Limit > 0 && start+int(*p.Limit) < end {
		end = start + int(*p.Limit)
	}
	out := PermissionProfileListResponse{Data: all[start:end]}
	if end < len(all) {
		next := strconv.Itoa(end)
		out.NextCursor = &next
	}
	return out, nil
}
