package chat

import "github.com/gocodex/gocodex/internal/model"

// WireAPI is the provider's `wire_api` value for this client.
const WireAPI = model.WireChat

// The Chat Completions wire's descriptor: registering it is a small literal, nothing is built
// before a provider on this wire asks for a client.
func init() {
	model.RegisterWire(model.WireDescriptor{
		Name:      WireAPI,
		New:       model.StreamerOf(New),
		Authorize: model.BearerAuth,
		// Reasoning comes back as raw reasoning_content, not summaries; no hosted tools.
		Capabilities: model.WireCapabilities{Images: true, ParallelToolCalls: true, ModelsPath: "models"},
	})
}
