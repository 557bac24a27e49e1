package appserver

import (
	"context"
	"sort"
	"strconv"
	"sync"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/features"
)

// experimentalFeature/list and experimentalFeature/enablement/set: Codex's feature flags with
// their stage and value (internal/features), and the process-wide runtime switches Codex lets
// a client flip. A flag switched on that gocodex does not implement is accepted as Codex
// accepts it, and said to be unsupported in a configWarning.

type featureListParams struct {
	Cursor   *string `json:"cursor"`
	Limit    *uint32 `json:"limit"`
	ThreadID *string `json:"threadId"`
}

type experimentalFeature struct {
	Name           string  `json:"name"`
	Stage          string  `json:"stage"`
	DisplayName    *string `json:"displayName"`
	Description    *string `json:"description"`
	Announcement   *string `json:"announcement"`
	Enabled        bool    `json:"enabled"`
	DefaultEnabled bool    `json:"defaultEnabled"`
}

type featureListResponse struct {
	Data       []experimentalFeature `json:"data"`
	NextCursor *string               `json:"nextCursor"`
}

type featureEnablementParams struct {
	Enablement *map[string]bool `json:"enablement"`
}

type featureEnablementResponse struct {
	Enablement map[string]bool `json:"enablement"`
}

// runtimeFeatures are the values set by experimentalFeature/enablement/set, over the
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

func (r *threads) registerFeatureMethods(s *Server) {
	rf := &runtimeFeatures{values: map[string]bool{}}
	s.Handle("experimentalFeature/list", TypedOptional(func(ctx context.Context, c *Conn, p featureListParams) (featureListResponse, error) {
		var base map[string]any
		if s.opts.Config != nil {
			base = s.opts.Config.Features
		}
		if p.ThreadID != nil {
			lt, ok := r.get(*p.ThreadID)
			if !ok {
				return featureListResponse{}, errNoThread(*p.ThreadID)
			}
			base = lt.cfg.Features
		}
		return listFeatures(rf.table(base), p.Cursor, p.Limit)
	}))
	s.Handle("experimentalFeature/enablement/set", Typed(func(ctx context.Context, c *Conn, p featureEnablementParams) (featureEnablementResponse, error) {
		if p.Enablement == nil {
			return featureEnablementResponse{}, InvalidRequest("Invalid request: missing field `enablement`")
		}
		// As Codex: only the runtime-settable flags change; other names are left out of the
		// answer, which lists what was updated.
		out := featureEnablementResponse{Enablement: map[string]bool{}}
		var warnings []config.Warning
		names := make([]string, 0, len(*p.Enablement))
		for name := range *p.Enablement {
			names = append(names, name)
		}
		sort.Strings(names)
		rf.mu.Lock()
		for _, name := range names {
			on := (*p.Enablement)[name]
			f, ok := features.Lookup(name)
			if !ok || !f.RuntimeSettable {
				continue
			}
			rf.values[name] = on
			out.Enablement[name] = on
			if honest, note := features.Effective(name, on); !honest {
				warnings = append(warnings, config.Warning{Key: []string{"features", name},
					Message: "feature `" + name + "` is turned on but is " + note + ": it has no effect"})
			}
		}
		rf.mu.Unlock()
		sendWarnings(c, warnings)
		return out, nil
	}))
}

// listFeatures pages through every flag in Codex's order; the cursor is the index of the
// next row, as Codex's.
func listFeatures(table map[string]any, cursor *string, limit *uint32) (featureListResponse, error) {
	all := features.All()
	start := 0
	if cursor != nil {
		n, err := strconv.Atoi(*cursor)
		if err != nil || n < 0 || n > len(all) {
			return featureListResponse{}, InvalidRequest("invalid cursor: " + *cursor)
		}
		start = n
	}
	end := len(all)
	if limit != nil && *limit > 0 && start+int(*limit) < end {
		end = start + int(*limit)
	}
	res := featureListResponse{Data: make([]experimentalFeature, 0, end-start)}
	for _, f := range all[start:end] {
		ef := experimentalFeature{Name: f.Name, Stage: f.Stage.Wire(), Enabled: features.Enabled(table, f.Name), DefaultEnabled: f.Default}
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
