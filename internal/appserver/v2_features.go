package appserver

import (
	"context"
	"sort"
	"strconv"
	"sync"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/features"
)

// ExperimentalFeature/list and ExperimentalFeature/enablement/set: Codex's feature flags with
// their stage and value (internal/features), and the process-wide runtime switches Codex lets
// a client flip. A flag switched on that gocodex does not implement is accepted as Codex
// accepts it, and said to be unsupported in a configWarning.

// runtimeFeatures are the values set by ExperimentalFeature/enablement/set, over the
// configuration's, for the life of the server.
type runtimeFeatures struct {
	mu     sync.Mutex
	values map[string]bool
}

// table is the [features] table a listing reads: base with the runtime values over it.
func (rf *runtimeFeatures) table(base map[string]any) map[string]any {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	out := make(map[string]any, len(base)+len(rf.values))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range rf.values {
		out[k] = v
	}
	return out
}

// listFeatures pages through every flag in Codex's order; the cursor is the index of the
// next row, as Codex's.
func listFeatures(table map[string]any, cursor *string, limit *uint32) (ExperimentalFeatureListResponse, error) {
	all := features.All()
	start := 0
	if cursor != nil {
		n, err := strconv.Atoi(*cursor)
		if err != nil || n < 0 || n > len(all) {
			return ExperimentalFeatureListResponse{}, InvalidRequest("invalid cursor: " + *cursor)
		}
		start = n
	}
	end := len(all)
	if limit != nil && *limit > 0 && start+int(*limit) < end {
		end = start + int(*limit)
	}
	res := ExperimentalFeatureListResponse{Data: make([]ExperimentalFeature, 0, end-start)}
	for _, f := range all[start:end] {
		ef := ExperimentalFeature{Name: f.Name, Stage: ExperimentalFeatureStage(f.Stage.Wire()), Enabled: features.Enabled(table, f.Name), DefaultEnabled: f.Default}
		if f.DisplayName != "" {
			ef.DisplayName, ef.Description, ef.Announcement = strPtrAlways(f.DisplayName), strPtrAlways(f.Description), strPtrAlways(f.Announcement)
		}
		res.Data = append(res.Data, ef)
	}
	if end < len(all) {
		next := strconv.Itoa(end)
		res.NextCursor = &next
	}
	return res, nil
}

func strPtrAlways(s string) *string { return &s }

// ExperimentalFeatureList answers ExperimentalFeature/list.
func (a *api) ExperimentalFeatureList(ctx context.Context, c *Conn, p ExperimentalFeatureListParams) (ExperimentalFeatureListResponse, error) {
	s := a.s
	r := a.r
	var base map[string]any
	if s.opts.Config != nil {
		base = s.opts.Config.Features
	}
	if p.ThreadID != nil {
		lt, ok := r.get(*p.ThreadID)
		if !ok {
			return ExperimentalFeatureListResponse{}, errNoThread(*p.ThreadID)
		}
		base = lt.cfg.Features
	}
	return listFeatures(a.features.table(base), p.Cursor, p.Limit)
}

// ExperimentalFeatureEnablementSet answers ExperimentalFeature/enablement/set.
func (a *api) ExperimentalFeatureEnablementSet(ctx context.Context, c *Conn, p ExperimentalFeatureEnablementSetParams) (ExperimentalFeatureEnablementSetResponse, error) {
	if p.Enablement == nil {
		return ExperimentalFeatureEnablementSetResponse{}, InvalidRequest("Invalid request: missing field `enablement`")
	}
	// As Codex: only the runtime-settable flags change; other names are left out of the
	// answer, which lists what was updated.
	out := ExperimentalFeatureEnablementSetResponse{Enablement: map[string]bool{}}
	var warnings []config.Warning
	names := make([]string, 0, len(p.Enablement))
	for name := range p.Enablement {
		names = append(names, name)
	}
	sort.Strings(names)
	a.features.mu.Lock()
	for _, name := range names {
		on := p.Enablement[name]
		f, ok := features.Lookup(name)
		if !ok || !f.RuntimeSettable {
			continue
		}
		a.features.values[name] = on
		out.Enablement[name] = on
		if honest, note := features.Effective(name, on); !honest {
			warnings = append(warnings, config.Warning{Key: []string{"features", name},
				Message: "feature `" + name + "` is turned on but is " + note + ": it has no effect"})
		}
	}
	a.features.mu.Unlock()
	sendWarnings(c, warnings)
	return out, nil
}
