// Package toolsearch is Codex 0.169's client-executed `tool_search` tool: the tools of
// deferred handlers (tool.Deferred) are not offered upfront; the model searches their
// metadata (BM25 over names and descriptions) and the tools found come back in the
// `tool_search_output` item, which the following requests of the thread carry, so the model
// can call them from then on. tool_search.json is the spec Codex sends, recorded from its
// request (e2e/testdata/codex_subagents_v1).
package toolsearch

import (
	"context"
	_ "embed"
	"encoding/json"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/gocodex/gocodex/tool"
)

//go:embed tool_search.json
var spec []byte

// defaultLimit is how many tools a search returns without `limit`, as the spec says.
const defaultLimit = 8

// Handler searches the deferred tools.
type Handler struct {
	deferred []tool.Handler
}

// New is tool_search over the given deferred handlers.
func New(deferred ...tool.Handler) *Handler { return &Handler{deferred: deferred} }

// Spec is tool_search as Codex 0.169 sends it.
func (h *Handler) Spec() tool.Spec { return tool.Spec(spec) }

// Handle runs one search; Output is the JSON array of the tools found (empty when none).
func (h *Handler) Handle(_ context.Context, _ *tool.Env, call tool.Call) (tool.Result, error) {
	var args struct {
		Query string   `json:"query"`
		Limit *float64 `json:"limit"`
	}
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
		return tool.Result{Output: "failed to parse tool_search arguments: " + err.Error()}, nil
	}
	if strings.TrimSpace(args.Query) == "" {
		return tool.Result{Output: "tool_search needs a non-empty query"}, nil
	}
	limit := defaultLimit
	if args.Limit != nil && *args.Limit >= 1 {
		limit = int(*args.Limit)
	}
	specs := make([]tool.Spec, len(h.deferred))
	for i, d := range h.deferred {
		specs[i] = d.Spec()
	}
	found := Search(specs, args.Query, limit)
	if found == nil {
		found = []tool.Spec{}
	}
	out, err := json.Marshal(found)
	if err != nil {
		return tool.Result{}, err
	}
	return tool.Result{Output: string(out), Success: true}, nil
}

// Search ranks specs against query with BM25 over each spec's text (a namespace's own name
// and description and those of its functions) and returns the best limit with any match,
// best first, whole (a namespace with all its functions, as Codex returns it).
func Search(specs []tool.Spec, query string, limit int) []tool.Spec {
	docs := make([][]string, len(specs))
	var total int
	df := map[string]int{}
	for i, s := range specs {
		docs[i] = terms(specText(s))
		total += len(docs[i])
		seen := map[string]bool{}
		for _, t := range docs[i] {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	if len(specs) == 0 {
		return nil
	}
	avg := float64(total) / float64(len(specs))
	const k1, b = 1.2, 0.75
	type hit struct {
		i     int
		score float64
	}
	var hits []hit
	qterms := terms(query)
	for i, doc := range docs {
		tf := map[string]int{}
		for _, t := range doc {
			tf[t]++
		}
		var score float64
		for _, q := range qterms {
			f := float64(tf[q])
			if f == 0 {
				continue
			}
			n := float64(df[q])
			idf := math.Log(1 + (float64(len(docs))-n+0.5)/(n+0.5))
			score += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(len(doc))/avg))
		}
		if score > 0 {
			hits = append(hits, hit{i, score})
		}
	}
	sort.SliceStable(hits, func(a, c int) bool { return hits[a].score > hits[c].score })
	var out []tool.Spec
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, specs[h.i])
	}
	return out
}

// specText is the searchable text of a spec: names and descriptions, nested tools included.
func specText(s tool.Spec) string {
	var t struct {
		Name        string      `json:"name"`
		Description string      `json:"description"`
		Tools       []tool.Spec `json:"tools"`
	}
	if json.Unmarshal(s, &t) != nil {
		return ""
	}
	parts := []string{t.Name, t.Description}
	for _, sub := range t.Tools {
		parts = append(parts, specText(sub))
	}
	return strings.Join(parts, " ")
}

// terms lowercases text and splits it into words (letters and digits; `_` splits too).
func terms(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
