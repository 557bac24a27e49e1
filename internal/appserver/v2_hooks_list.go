package appserver

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
)

// hooks/list reports, per working directory, every configured lifecycle hook (runnable or
// not) with its trust, and what could not be read; a loaded thread's are those of its cwd.

// hookMetadata is HookMetadata, whose handler members (handlerType, command, async) Codex
// flattens from a union.
type hookMetadata struct {
	Key                    string  `json:"key"`
	EventName              string  `json:"eventName"`
	Matcher                *string `json:"matcher"`
	TimeoutSec             int64   `json:"timeoutSec"`
	StatusMessage          *string `json:"statusMessage"`
	AdditionalContextLimit *int64  `json:"additionalContextLimit"`
	SourcePath             string  `json:"sourcePath"`
	Source                 string  `json:"source"`
	PluginID               *string `json:"pluginId"`
	EnvironmentID          *string `json:"environmentId"`
	DisplayOrder           int64   `json:"displayOrder"`
	Enabled                bool    `json:"enabled"`
	IsManaged              bool    `json:"isManaged"`
	CurrentHash            string  `json:"currentHash"`
	TrustStatus            string  `json:"trustStatus"`
	HandlerType            string  `json:"handlerType"`
	Command                string  `json:"command"`
	Async                  bool    `json:"async"`
}

// HooksList answers hooks/list.
func (a *api) HooksList(ctx context.Context, c *Conn, p HooksListParams) (HooksListResponse, error) {
	r := a.r
	var cwds []string
	switch {
	case p.ThreadID != nil && *p.ThreadID != "":
		lt, err := r.loadedOrErr(*p.ThreadID)
		if err != nil {
			return HooksListResponse{}, err
		}
		cwds = []string{lt.cfg.Cwd}
	case len(p.Cwds) > 0:
		cwds = p.Cwds
	default:
		cwds = []string{""}
	}
	out := HooksListResponse{Data: make([]HooksListEntry, 0, len(cwds))}
	for _, cwd := range cwds {
		o := threadOverrides{}
		if cwd != "" {
			o.Cwd = &cwd
		}
		cfg, err := r.srv.loadThreadConfig(o)
		if err != nil {
			return HooksListResponse{}, err
		}
		out.Data = append(out.Data, listHooks(cfg))
	}
	return out, nil
}

func listHooks(cfg *config.Config) HooksListEntry {
	listed, warnings := app.ListHooks(cfg)
	e := HooksListEntry{Cwd: cfg.Cwd, Hooks: []hookMetadata{}, Warnings: []string{}, Errors: []HookErrorInfo{}}
	for _, w := range warnings {
		// A file that could not be read is an error of that file; the rest are warnings.
		if path, msg, ok := strings.Cut(strings.TrimPrefix(w, "hooks: "), ": "); ok && filepath.IsAbs(path) {
			e.Errors = append(e.Errors, HookErrorInfo{Path: path, Message: msg})
			continue
		}
		e.Warnings = append(e.Warnings, w)
	}
	for _, it := range listed {
		h := it.Handler
		e.Hooks = append(e.Hooks, hookMetadata{
			Key: h.Key(), EventName: h.Event.Camel(), Matcher: h.Matcher, TimeoutSec: int64(h.Timeout.Seconds()),
			StatusMessage: h.StatusMessage, SourcePath: h.SourcePath, Source: h.Source, DisplayOrder: h.DisplayOrder,
			Enabled: it.Enabled, CurrentHash: h.Hash(), TrustStatus: it.Trust, HandlerType: "command", Command: h.Command,
		})
	}
	return e
}
