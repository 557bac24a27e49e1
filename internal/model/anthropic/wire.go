package anthropic

import (
	"net/http"

	"github.com/gocodex/gocodex/internal/model"
)

// The Messages wire's descriptor: registering it is a small literal, nothing is built before
// a provider on this wire asks for a client.
func init() {
	model.RegisterWire(model.WireDescriptor{
		Name:      WireAPI,
		New:       model.StreamerOf(func(o model.ClientOptions) (*Client, error) { return New(o) }),
		Authorize: authorize,
		// Thinking comes back as raw reasoning, not summaries; no provider-run web search here.
		Capabilities: model.WireCapabilities{Images: true, ParallelToolCalls: true, ModelsPath: "models"},
	})
}

// authorize puts the Messages API's credentials on h: the key only in x-api-key (never
// Authorization), and the API version every request names.
func authorize(h http.Header, apiKey string) {
	h["anthropic-version"] = []string{APIVersion}
	if apiKey != "" {
		h["x-api-key"] = []string{apiKey}
	}
}
