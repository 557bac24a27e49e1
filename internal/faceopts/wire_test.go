package faceopts

import (
	"testing"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/testkit"
)

// TestWebSearchWarningReadsTheWire: web_search warns on a wire without hosted search and not
// on one with it, whatever its name (the fake wire has it).
func TestWebSearchWarningReadsTheWire(t *testing.T) {
	for wire, warns := range map[string]bool{testkit.RegisterFakeWire(): false, model.WireResponses: false, model.WireChat: true, model.WireAnthropic: true} {
		cfg := &config.Config{ModelProviderID: "p", ModelProvider: model.ProviderInfo{WireAPI: wire}, WebSearchMode: "live",
			Effective: map[string]any{"web_search": "live"}}
		if _, got := WebSearchWireWarning(cfg); got != warns {
			t.Errorf("wire %q: warning %v, want %v", wire, got, warns)
		}
	}
}
