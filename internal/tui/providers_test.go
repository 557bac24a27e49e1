package tui

import (
	"context"
	"strings"
	"testing"
)

// With more than one usable provider /model lists them after the models; picking another
// continues the conversation on it (the hook forks the thread with that provider) and the
// UI switches to that thread.
func TestModelPickerOffersProviders(t *testing.T) {
	h := newHarness(t, "")
	h.m.threadID = "thread-1"
	h.m.header.Provider = "openai"
	h.m.models = []ModelChoice{{Slug: "gpt-test"}}
	h.m.providers = []ProviderChoice{{ID: "mock", Name: "Mock"}, {ID: "openai", Name: "OpenAI"}}
	next := newFakeEngine()
	var gotID, gotProvider string
	h.m.hooks.SwitchProvider = func(_ context.Context, id, provider string) (Session, error) {
		gotID, gotProvider = id, provider
		return Session{Engine: next, ThreadID: "thread-2"}, nil
	}
	h.command("/model")
	scr := h.screen()
	if !strings.Contains(scr, "Provider: Mock") || !strings.Contains(scr, "Provider: OpenAI") {
		t.Fatalf("the providers are not offered:\n%s", scr)
	}
	h.runCmd(h.key(runeKey('2'))) // gpt-test, Provider: Mock, Provider: OpenAI
	if gotID != "thread-1" || gotProvider != "mock" {
		t.Fatalf("SwitchProvider(%q, %q), want thread-1 and mock", gotID, gotProvider)
	}
	if h.m.engine != next || h.m.header.Provider != "mock" || !strings.Contains(h.screen(), "Model provider changed to mock") {
		t.Errorf("the UI did not switch: provider %q\n%s", h.m.header.Provider, h.screen())
	}

	// One provider: no provider rows.
	h = newHarness(t, "")
	h.m.models = []ModelChoice{{Slug: "gpt-test"}}
	h.m.providers = []ProviderChoice{{ID: "openai"}}
	h.m.hooks.SwitchProvider = func(context.Context, string, string) (Session, error) { return Session{}, nil }
	h.command("/model")
	if strings.Contains(h.screen(), "Provider:") {
		t.Errorf("a single provider is offered:\n%s", h.screen())
	}
}
