package testkit

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/modelstream"
)

// A fake model wire, registered by tests to show that validation, the client factory, the
// model listing, doctor and the capability checks read the wire descriptor rather than
// naming the wires they know.
const (
	FakeWire        = "fake-wire"
	FakeWireKeyName = "X-Fake-Key"
	FakeWireModels  = "fake/models"
)

// ErrFakeWireClient is what the fake wire's constructor answers: a test seeing it knows the
// client factory went through the descriptor.
var ErrFakeWireClient = errors.New("the fake wire's constructor was called")

var fakeWireOnce sync.Once

// RegisterFakeWire registers the fake wire once per test binary (a wire is registered for
// good, as a real one is at init) and returns its name. It has hosted web search, so the
// capability checks treat it as they treat the Responses wire.
func RegisterFakeWire() string {
	fakeWireOnce.Do(func() {
		model.RegisterWire(model.WireDescriptor{
			Name: FakeWire,
			New: func(model.ClientOptions) (modelstream.Streamer, error) {
				return nil, ErrFakeWireClient
			},
			Authorize: func(h http.Header, key string) {
				h.Set("X-Fake-Version", "7")
				if key != "" {
					h.Set(FakeWireKeyName, key)
				}
			},
			Capabilities: model.WireCapabilities{HostedWebSearch: true, ModelsPath: FakeWireModels},
		})
	})
	return FakeWire
}

// FakeWireModelServer serves the fake wire's model list on 127.0.0.1, answering the models
// only to a request authorized as the fake wire authorizes (key in X-Fake-Key, version 7);
// anything else is 404 (a wrong route) or 401.
func FakeWireModelServer(key string, models ...string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/"+FakeWireModels {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get(FakeWireKeyName) != key || r.Header.Get("X-Fake-Version") != "7" || r.Header.Get("Authorization") != "" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		ids := make([]string, len(models))
		for i, m := range models {
			ids[i] = `{"id":"` + m + `"}`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[` + strings.Join(ids, ",") + `]}`))
	}))
}
