package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/testkit"
)

// fakeWireConfig is a configuration whose provider speaks the test-registered fake wire,
// served by srv, its key in FAKE_KEY.
func fakeWireConfig(t *testing.T, baseURL string) (*config.Config, func(string) string) {
	t.Helper()
	p := model.ProviderInfo{Name: "Fake", BaseURL: baseURL + "/v1", WireAPI: testkit.RegisterFakeWire(), EnvKey: "FAKE_KEY"}
	cfg := &config.Config{ModelProviderID: "fake", ModelProvider: p, ModelProviders: map[string]model.ProviderInfo{"fake": p}, CodexHome: t.TempDir()}
	return cfg, func(k string) string { return map[string]string{"FAKE_KEY": "k-123"}[k] }
}

// TestDoctorProbesTheWiresRoute: doctor's reachability check asks the route the wire's
// descriptor names, authorized as the wire authorizes (the scripted server answers 404 on any
// other route and 401 to any other authorization).
func TestDoctorProbesTheWiresRoute(t *testing.T) {
	srv := testkit.FakeWireModelServer("k-123", "m-1")
	defer srv.Close()
	cfg, getenv := fakeWireConfig(t, srv.URL)
	var c DoctorCheck
	checkReachability(context.Background(), &c, cfg, DoctorOptions{Getenv: getenv, ReachTimeout: DefaultReachTimeout})
	details := map[string]string{}
	for _, d := range c.Details {
		details[d.Key] = d.Value
	}
	if c.Status != StatusOK || details["route status"] != "HTTP 200" || !strings.HasSuffix(details["route probe"], "/v1/"+testkit.FakeWireModels) {
		t.Errorf("status %s %q, details %v", c.Status, c.Summary, details)
	}
}

// TestModelsListsThroughTheWire: `gocodex models` lists what the fake wire's route serves.
func TestModelsListsThroughTheWire(t *testing.T) {
	srv := testkit.FakeWireModelServer("k-123", "fake-model-1")
	defer srv.Close()
	cfg, getenv := fakeWireConfig(t, srv.URL)
	var out, errOut bytes.Buffer
	if code := RunModels(context.Background(), cfg, ModelsOptions{}, &out, &errOut, getenv, srv.Client()); code != 0 || errOut.Len() > 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "wire "+testkit.FakeWire) || !strings.Contains(out.String(), "fake-model-1") {
		t.Errorf("models output:\n%s", out.String())
	}
}
