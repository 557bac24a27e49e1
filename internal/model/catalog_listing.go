package model

// What model pickers show of the catalog's models beyond their capabilities, as Codex 0.169's
// model/list does (recorded: e2e/testdata/codex-0.169-model-list.json): a description, the
// model to move to and why, an availability notice, a specialty, the multi-agent version, and
// the "Fast" service tier (priority processing) where the model has one.

// ServiceTier is a processing tier a model can be asked for (service_tier).
type ServiceTier struct {
	ID          string
	Name        string
	Description string
}

// Listing is a catalog model's picker metadata; zero for a slug the catalog does not know.
type Listing struct {
	Description string
	// Upgrade is the model to move to ("" none), MigrationMarkdown what to say about it.
	Upgrade           string
	MigrationMarkdown string
	// AvailabilityNux is a notice shown once when the model becomes available.
	AvailabilityNux string
	// Specialty is what the model is for ("cyber"), "" for general models.
	Specialty         string
	MultiAgentVersion string
	// ServiceTiers are the tiers beyond the default; SpeedTiers name the speeds they give.
	ServiceTiers       []ServiceTier
	SpeedTiers         []string
	DefaultServiceTier string
}

// listingRow is one model's row; fastTier is the description of its "Fast" tier ("" none).
type listingRow struct {
	slug, description, upgrade, nux, specialty, multiAgent, fastTier, defaultTier string
}

var listingRows = []listingRow{
	{slug: "gpt-6.1-sol", description: "Latest workhorse model for coding and everyday work.", nux: "Maximize usage with GPT-6.1 Sol. Try it on complex work for near-Astra performance at a lower cost.", multiAgent: "v2", fastTier: "2x speed, increased usage"},
	{slug: "gpt-6-astra", description: "Frontier intelligence for the most demanding work.", multiAgent: "v2", fastTier: "2x speed, increased usage"},
	{slug: "gpt-6-sol", description: "Previous generation workhorse model.", multiAgent: "v2", fastTier: "1.5x speed", defaultTier: "priority"},
	{slug: "gpt-6-luna", description: "Fast and affordable model for easier tasks.", multiAgent: "v2", fastTier: "1.5x speed", defaultTier: "priority"},
	{slug: "gpt-5.6-sol", description: "Older generation workhorse model.", upgrade: "gpt-6-sol", multiAgent: "v2", fastTier: "1.5x speed, increased usage"},
	{slug: "gpt-6.1-terra", description: "GPT-6.1 Terra Codex model.", multiAgent: "v2", fastTier: "1.5x speed"},
	{slug: "gpt-5.6-terra", description: "Older balanced model for straightforward work.", upgrade: "gpt-6-sol", multiAgent: "v2", fastTier: "1.5x speed, increased usage"},
	{slug: "gpt-5.6-luna", description: "Older fast and efficient model.", upgrade: "gpt-6-luna", multiAgent: "v1", fastTier: "1.5x speed, increased usage"},
	{slug: "gpt-daybreak-blue-latest", description: "Latest frontier agentic coding model for broad defensive cybersecurity work.", specialty: "cyber", multiAgent: "v2"},
	{slug: "gpt-daybreak-red-latest", description: "Cyber-permissive variant of our latest frontier agentic coding model for advanced, authorized cybersecurity research.", specialty: "cyber", multiAgent: "v2"},
	{slug: "gpt-5.5", description: "Legacy coding model.", upgrade: "gpt-6-sol", fastTier: "1.5x speed, increased usage"},
	{slug: "codex-auto-review", description: "Automatic approval review model for Codex.", multiAgent: "v1", fastTier: "1.5x speed, increased usage"},
}

// migrationMarkdown is what a model's upgrade says, by the model it moves to.
var migrationMarkdown = map[string]string{
	"gpt-6-sol":  "Meet GPT-6 Sol\n\nOur latest Sol is more intelligent and more efficient so your usage limits go further. This model is a great daily driver for complex tasks, especially coding.\n",
	"gpt-6-luna": "Meet GPT-6 Luna\n\nOur latest Luna is significantly more efficient, so your usage limits go even further. Reach for it for any job that doesn't require frontier intelligence.\n",
}

// ListingOf returns the picker metadata of a catalog model (exact slug).
func ListingOf(slug string) Listing {
	for _, r := range listingRows {
		if r.slug != slug {
			continue
		}
		l := Listing{Description: r.description, Upgrade: r.upgrade, AvailabilityNux: r.nux, Specialty: r.specialty,
			MultiAgentVersion: r.multiAgent, DefaultServiceTier: r.defaultTier, ServiceTiers: []ServiceTier{}, SpeedTiers: []string{}}
		if r.upgrade != "" {
			l.MigrationMarkdown = migrationMarkdown[r.upgrade]
		}
		if r.fastTier != "" {
			l.ServiceTiers = []ServiceTier{{ID: "priority", Name: "Fast", Description: r.fastTier}}
			l.SpeedTiers = []string{"fast"}
		}
		return l
	}
	return Listing{ServiceTiers: []ServiceTier{}, SpeedTiers: []string{}}
}
