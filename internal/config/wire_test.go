package config

import (
	"testing"

	"github.com/gocodex/gocodex/internal/testkit"
)

// TestProviderWireValidationReadsRegistry: a wire registered by a test (not one the config
// package names) is accepted as a provider's wire_api, with its capabilities.
func TestProviderWireValidationReadsRegistry(t *testing.T) {
	wire := testkit.RegisterFakeWire()
	f := newFixture(t)
	f.userConfig("model_provider = \"mine\"\n[model_providers.mine]\nname = \"Mine\"\nwire_api = \"" + wire + "\"\n")
	cfg, _, err := Load(f.opts())
	if err != nil {
		t.Fatalf("a registered wire is refused: %v", err)
	}
	if cfg.ModelProvider.Wire() != wire || !cfg.ModelProvider.Capabilities().HostedWebSearch {
		t.Errorf("provider = %+v, capabilities %+v", cfg.ModelProvider, cfg.ModelProvider.Capabilities())
	}
}
