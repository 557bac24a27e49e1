package app

import (
	"errors"
	"testing"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/testkit"
)

// TestClientFactoryAndCapabilitiesReadTheWire: the client factory builds a provider's client
// with its wire's registered constructor, and the hosted web_search tool follows the wire's
// capability (the fake wire has it; chat and anthropic do not), not a wire name.
func TestClientFactoryAndCapabilitiesReadTheWire(t *testing.T) {
	fake := model.ProviderInfo{Name: "Fake", WireAPI: testkit.RegisterFakeWire()}
	if _, err := newStreamer(model.ClientOptions{Provider: fake}); !errors.Is(err, testkit.ErrFakeWireClient) {
		t.Errorf("newStreamer of the fake wire: %v", err)
	}
	if _, err := newStreamer(model.ClientOptions{Provider: model.ProviderInfo{Name: "x", WireAPI: "grpc"}}); err == nil {
		t.Error("an unknown wire got a client")
	}
	for wire, want := range map[string]bool{fake.WireAPI: true, model.WireResponses: true, "": true, model.WireChat: false, model.WireAnthropic: false} {
		cfg := &config.Config{ModelProvider: model.ProviderInfo{WireAPI: wire}, WebSearchMode: "live"}
		if got := len(hostedTools(cfg, model.ModelInfo{})) > 0; got != want {
			t.Errorf("wire %q: hosted web_search = %v, want %v", wire, got, want)
		}
	}
}
