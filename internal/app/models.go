package app

import "github.com/gocodex/gocodex/internal/model"

// ModelChoice is a model a face offers the person to pick (the ACP face's session models).
type ModelChoice struct {
	Slug, DisplayName, Description string
}

// ListedModels are the catalog's listed models, by priority, as model pickers show them.
func ListedModels() []ModelChoice {
	var out []ModelChoice
	for _, m := range model.ListedModels() {
		out = append(out, ModelChoice{Slug: m.Slug, DisplayName: m.DisplayName, Description: model.ListingOf(m.Slug).Description})
	}
	return out
}
