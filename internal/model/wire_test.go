package model_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/model"
	// Every wire of the build, as the host links them.
	_ "github.com/gocodex/gocodex/internal/model/wires"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
)

// TestEveryWireHasACompleteDescriptor: each wire the build links (internal/model/wires) has
// registered a descriptor with a constructor, an authorizer that puts the key in one header
// and never in a URL, and a model list route; validation accepts its name.
func TestEveryWireHasACompleteDescriptor(t *testing.T) {
	var names []string
	for _, d := range model.Wires() {
		if d.Name == testkit.FakeWire {
			continue
		}
		names = append(names, d.Name)
		if d.New == nil || d.Authorize == nil {
			t.Errorf("%s: descriptor without constructor or authorizer", d.Name)
			continue
		}
		if d.Capabilities.ModelsPath == "" {
			t.Errorf("%s: no model list route", d.Name)
		}
		if err := (model.ProviderInfo{Name: "p", WireAPI: d.Name}).Validate(); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
		with, without := http.Header{}, http.Header{}
		d.Authorize(with, "sk-secret")
		d.Authorize(without, "")
		carrying := 0
		for k, vs := range with {
			for _, v := range vs {
				if strings.Contains(v, "sk-secret") {
					carrying++
				}
			}
			if strings.Contains(strings.Join(without[k], ""), "sk-secret") {
				t.Errorf("%s: the key is sent without being given", d.Name)
			}
		}
		if carrying != 1 {
			t.Errorf("%s: the key is in %d headers, want 1: %v", d.Name, carrying, with)
		}
	}
	if want := []string{model.WireResponses, model.WireAnthropic, model.WireChat}; !slices.Equal(names, want) {
		t.Errorf("registered wires = %v, want %v (the default first)", names, want)
	}
	if d, ok := model.LookupWire(""); !ok || d.Name != model.WireResponses {
		t.Errorf("the unset wire_api is %q, want responses", d.Name)
	}
}

// TestFakeWirePlugsIn registers a wire nobody names and finds it read by validation, the
// capability checks and the model listing (its route, its authorization).
func TestFakeWirePlugsIn(t *testing.T) {
	name := testkit.RegisterFakeWire()
	srv := testkit.FakeWireModelServer("k-123", "m-1", "m-2")
	defer srv.Close()
	p := model.ProviderInfo{Name: "Fake", BaseURL: srv.URL + "/v1", WireAPI: name, EnvKey: "FAKE_KEY"}
	if err := p.Validate(); err != nil {
		t.Fatalf("validation does not read the registry: %v", err)
	}
	if !p.Capabilities().HostedWebSearch || p.Capabilities().ModelsPath != testkit.FakeWireModels {
		t.Errorf("capabilities = %+v", p.Capabilities())
	}
	err := (model.ProviderInfo{Name: "x", WireAPI: "grpc"}).Validate()
	if err == nil || !strings.Contains(err.Error(), `"`+name+`"`) || !strings.Contains(err.Error(), `"responses"`) {
		t.Errorf("an unknown wire's error does not name the registered ones: %v", err)
	}
	getenv := func(k string) string { return map[string]string{"FAKE_KEY": "k-123"}[k] }
	got, err := model.ListServedModels(context.Background(), p, getenv, srv.Client())
	if err != nil || !slices.Equal(got, []string{"m-1", "m-2"}) {
		t.Errorf("listing = %v, %v", got, err)
	}
}

func TestRegisterWireRefusesIncompleteOrDuplicate(t *testing.T) {
	build := func(model.ClientOptions) (modelstream.Streamer, error) { return nil, nil }
	for name, d := range map[string]model.WireDescriptor{
		"no name":        {New: build, Authorize: model.BearerAuth},
		"no constructor": {Name: "x-none", Authorize: model.BearerAuth},
		"no authorizer":  {Name: "x-none", New: build},
		"duplicate":      {Name: model.WireResponses, New: build, Authorize: model.BearerAuth},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered", name)
				}
			}()
			model.RegisterWire(d)
		}()
	}
}
