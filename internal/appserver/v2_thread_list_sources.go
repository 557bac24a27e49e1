package appserver

import (
	"slices"
	"strings"

	threadsvc "github.com/gocodex/gocodex/internal/host/threads"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// thread/list's sourceKinds, excludedThreadIds and originators, as Codex 0.169 takes them:
// without sourceKinds it lists the interactive threads only (cli and vscode, not exec).

// threadSourceKinds are ThreadSourceKind's values, in the schema's order.
var threadSourceKinds = []string{"cli", "vscode", "exec", "appServer", "subAgent", "subAgentReview",
	"subAgentCompact", "subAgentThreadSpawn", "subAgentOther", "unknown"}

// interactiveSources are what thread/list lists when sourceKinds is omitted or empty.
var interactiveSources = []string{"cli", "vscode"}

// rolloutSources are the session_meta sources of the kinds a rollout names by a plain
// string; the other kinds are recognised after the head is read (sourceKindFilter).
var rolloutSources = map[string][]string{
	"cli":       {"cli"},
	"vscode":    {"vscode"},
	"exec":      {"exec"},
	"appServer": {"appServer", "app-server", "app_server"},
}

// filterError is the -32602 error Codex 0.169 answers a filter it refuses with (its words,
// without the "Invalid params: " of a params that do not decode).
func filterError(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// maxExcludedThreadIDs is Codex's limit on excludedThreadIds (and includedThreadIds).
const maxExcludedThreadIDs = 100

// applyListFilters checks the filters and puts them into opts; keep, when not nil, is a
// filter the listing applies to each thread after reading it.
func applyListFilters(p threadListParams, opts *threadsvc.ListOptions) (keep func(*v2Thread) bool, err error) {
	included, err := includedFilter(p.IncludedThreadIDs)
	if err != nil {
		return nil, err
	}
	keep, err = sourceFilters(p, opts)
	if err != nil || included == nil {
		return keep, err
	}
	if keep == nil {
		return included, nil
	}
	return func(t *v2Thread) bool { return included(t) && keep(t) }, nil
}

// includedFilter is thread/list's includedThreadIds (Codex 0.171): absent keeps every
// thread, a list (even empty) only the threads it names.
func includedFilter(ids []string) (func(*v2Thread) bool, error) {
	if ids == nil {
		return nil, nil
	}
	if len(ids) > maxExcludedThreadIDs {
		return nil, filterError("includedThreadIds accepts at most 100 entries")
	}
	for _, id := range ids {
		if msg := threadIDError(id); msg != "" {
			return nil, filterError("invalid included thread id: " + msg)
		}
	}
	return func(t *v2Thread) bool { return slices.Contains(ids, t.ID) }, nil
}

// sourceFilters are the originator, excluded-id and source-kind filters.
func sourceFilters(p threadListParams, opts *threadsvc.ListOptions) (keep func(*v2Thread) bool, err error) {
	if len(p.Originators) > 0 {
		return nil, filterError("originator filtering is not supported by the local app-server")
	}
	if len(p.ExcludedThreadIDs) > maxExcludedThreadIDs {
		return nil, filterError("excludedThreadIds accepts at most 100 entries")
	}
	for _, id := range p.ExcludedThreadIDs {
		if msg := threadIDError(id); msg != "" {
			return nil, filterError("invalid excluded thread id: " + msg)
		}
	}
	opts.ExcludeIDs = p.ExcludedThreadIDs
	kinds := p.SourceKinds
	for _, k := range kinds {
		if !slices.Contains(threadSourceKinds, k) {
			return nil, InvalidRequest("Invalid request: unknown variant `" + k + "`, expected one of `" + strings.Join(threadSourceKinds, "`, `") + "`")
		}
	}
	if len(kinds) == 0 {
		kinds = interactiveSources
	}
	var sources []string
	for _, k := range kinds {
		raw, ok := rolloutSources[k]
		if !ok { // a sub-agent or unknown source: told apart only once the thread is read
			return func(t *v2Thread) bool { return slices.Contains(kinds, t.Source) }, nil
		}
		sources = append(sources, raw...)
	}
	opts.Sources = sources
	return nil, nil
}
