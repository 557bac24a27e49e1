package model

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/gocodex/gocodex/modelstream"
)

// WireDescriptor is one model wire (a `wire_api` value): how to build its client, how a
// request to its provider is authorized and what the wire can do. Each wire registers its
// own (RegisterWire; the Responses wire below, internal/model/chat, internal/model/anthropic),
// and internal/model/wires links them all. Validation, the host's client factory,
// `gocodex models`, doctor and the capability checks read the descriptor, so a new wire
// touches only its own package and one import line in internal/model/wires.
type WireDescriptor struct {
	// Name is the `wire_api` value.
	Name string
	// New builds the streaming client of a provider on this wire.
	New func(ClientOptions) (modelstream.Streamer, error)
	// Authorize puts an API key (empty: none) and the headers that go with it on a request's
	// headers; every request of the wire (model calls, the model list) goes through it.
	Authorize func(h http.Header, apiKey string)
	// Capabilities is what the wire can do beyond plain tool-calling turns.
	Capabilities WireCapabilities
}

// WireCapabilities is what a wire can do; the engine and the faces read these instead of
// comparing wire names.
type WireCapabilities struct {
	// HostedWebSearch: the provider runs the web_search tool itself.
	HostedWebSearch bool
	// ReasoningSummaries: the wire streams reasoning summaries (not only raw reasoning).
	ReasoningSummaries bool
	// Images: user messages and tool results may carry images.
	Images bool
	// ParallelToolCalls: the model may call several tools in one response.
	ParallelToolCalls bool
	// ModelsPath is the route under base_url that lists the served models ("" when the
	// wire has none); it answers `{"data":[{"id":...}]}`.
	ModelsPath string
}

var wireRegistry struct {
	sync.RWMutex
	byName map[string]WireDescriptor
	order  []string // registration order: the default wire first
}

// RegisterWire makes a wire known. It is called from the wire package's init with a small
// literal (nothing is built until New is called); an incomplete descriptor or a name
// registered twice panics, as a programming error.
func RegisterWire(d WireDescriptor) {
	if d.Name == "" || d.New == nil || d.Authorize == nil {
		panic(fmt.Sprintf("model: incomplete wire descriptor %q (name, New and Authorize are required)", d.Name))
	}
	wireRegistry.Lock()
	defer wireRegistry.Unlock()
	if _, dup := wireRegistry.byName[d.Name]; dup {
		panic("model: wire " + d.Name + " registered twice")
	}
	if wireRegistry.byName == nil {
		wireRegistry.byName = map[string]WireDescriptor{}
	}
	wireRegistry.byName[d.Name] = d
	wireRegistry.order = append(wireRegistry.order, d.Name)
}

// LookupWire returns the registered wire of that `wire_api` value ("" is the default,
// Responses).
func LookupWire(name string) (WireDescriptor, bool) {
	if name == "" {
		name = WireResponses
	}
	wireRegistry.RLock()
	defer wireRegistry.RUnlock()
	d, ok := wireRegistry.byName[name]
	return d, ok
}

// Wires lists the registered wires, the default first, then in registration order.
func Wires() []WireDescriptor {
	wireRegistry.RLock()
	defer wireRegistry.RUnlock()
	out := make([]WireDescriptor, 0, len(wireRegistry.order))
	for _, n := range wireRegistry.order {
		out = append(out, wireRegistry.byName[n])
	}
	return out
}

// WireDescriptor is the descriptor of the provider's wire, or an error naming the wires
// this build speaks.
func (p ProviderInfo) WireDescriptor() (WireDescriptor, error) {
	if d, ok := LookupWire(p.WireAPI); ok {
		return d, nil
	}
	var names []string
	for _, d := range Wires() {
		names = append(names, fmt.Sprintf("%q", d.Name))
	}
	return WireDescriptor{}, fmt.Errorf("unknown wire_api %q for model provider %q: expected %s", p.WireAPI, p.Name, orList(names))
}

// Capabilities is what the provider's wire can do (none for an unknown wire, which
// validation refuses).
func (p ProviderInfo) Capabilities() WireCapabilities {
	d, _ := LookupWire(p.WireAPI)
	return d.Capabilities
}

// orList joins "a", "b" or "c".
func orList(items []string) string {
	switch len(items) {
	case 0:
		return "a registered wire (none is linked into this build)"
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// The Responses API wire, this package's own client.
func init() {
	RegisterWire(WireDescriptor{
		Name:      WireResponses,
		New:       StreamerOf(NewClient),
		Authorize: BearerAuth,
		Capabilities: WireCapabilities{HostedWebSearch: true, ReasoningSummaries: true, Images: true,
			ParallelToolCalls: true, ModelsPath: "models"},
	})
}

// StreamerOf turns a wire's client constructor into a descriptor's New.
func StreamerOf[C interface{ Streamer() modelstream.Streamer }](newClient func(ClientOptions) (C, error)) func(ClientOptions) (modelstream.Streamer, error) {
	return func(o ClientOptions) (modelstream.Streamer, error) {
		c, err := newClient(o)
		if err != nil {
			return nil, err
		}
		return c.Streamer(), nil
	}
}

// BearerAuth sends the key as `Authorization: Bearer` (the OpenAI-style wires).
func BearerAuth(h http.Header, apiKey string) {
	if apiKey != "" {
		h.Set("Authorization", "Bearer "+apiKey)
	}
}
