package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/model"
)

// ModelRow is one line of `gocodex models`.
type ModelRow struct {
	Slug          string `json:"slug"`
	ContextWindow int64  `json:"context_window"`
	Reasoning     bool   `json:"reasoning"`
	// Served says the provider listed it; InCatalog that the bundled catalog knows it (else
	// the catalog's fallback metadata is used).
	Served    bool `json:"served"`
	InCatalog bool `json:"in_catalog"`
}

// ModelsOptions are `gocodex models`' flags.
type ModelsOptions struct {
	Provider string // empty: the configured model_provider
	JSON     bool
}

// RunModels is `gocodex models`: what the provider serves (its model list endpoint), merged
// with the bundled catalog. A provider that cannot be asked (no key yet, not reachable) is
// a warning on errOut and the catalog alone is listed: the list asked for is printed, so the
// exit status is 0. An unknown provider lists nothing and is 1.
func RunModels(ctx context.Context, cfg *config.Config, o ModelsOptions, out, errOut io.Writer, getenv func(string) string, hc *http.Client) int {
	id := o.Provider
	if id == "" {
		id = cfg.ModelProviderID
	}
	p, ok := cfg.ModelProviders[id]
	if !ok {
		fmt.Fprintf(errOut, "Model provider `%s` not found\n", id)
		return 1
	}
	served, err := model.ListServedModels(ctx, p, getenv, hc)
	if err != nil {
		fmt.Fprintf(errOut, "warning: could not list the models of provider %q (%s), so these are the bundled catalog's: %v\n", id, p.Name, err)
	}
	rows := mergeModels(served, id == model.ProviderOpenAI || served == nil)
	if o.JSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rows)
		return 0
	}
	fmt.Fprintf(out, "provider: %s (%s, wire %s)\n", id, p.Name, p.Wire())
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tCONTEXT\tREASONING\tSOURCE")
	for _, r := range rows {
		src := []string{}
		if r.Served {
			src = append(src, "provider")
		}
		if r.InCatalog {
			src = append(src, "catalog")
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", r.Slug, r.ContextWindow, yesNo(r.Reasoning), strings.Join(src, "+"))
	}
	_ = tw.Flush()
	return 0
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// mergeModels annotates the served slugs with catalog metadata; withCatalog adds the
// catalog's listed models the provider did not name (OpenAI's own catalog).
func mergeModels(served []string, withCatalog bool) []ModelRow {
	rows := map[string]*ModelRow{}
	add := func(slug string) *ModelRow {
		if r, ok := rows[slug]; ok {
			return r
		}
		info := model.LookupModel(slug, model.CatalogOverrides{})
		r := &ModelRow{Slug: slug, ContextWindow: info.ContextWindow, Reasoning: len(info.SupportedReasoningLevels) > 0 || info.SupportsReasoningSummaries, InCatalog: info.Known}
		rows[slug] = r
		return r
	}
	for _, s := range served {
		add(s).Served = true
	}
	if withCatalog {
		for _, m := range model.ListedModels() {
			add(m.Slug)
		}
	}
	out := make([]ModelRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Slug < out[j].Slug })
	return out
}
