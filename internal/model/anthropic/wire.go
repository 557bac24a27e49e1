package anthropic

import (
	"net/http"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/modelstream"
)

// The Messages wire's descriptor: registering it is a small literal, nothing is built before
// a provider on this wire asks for a client.
func init() {
	model.RegisterWire(model.WireDescriptor{
		Name: WireAPI,
		New: func(o model.ClientOptions) (modelstream.Streamer, error) {
			c, err := New(o)
			if err != nil {
				return nil, err
			}
			return c.Streamer(), nil
		},
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
