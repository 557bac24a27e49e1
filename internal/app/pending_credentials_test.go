package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/auth"
	"github.com/gocodex/gocodex/internal/config"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

// A host that defers credentials (the app-server) starts a thread of the OpenAI provider with
// none; its requests go without an Authorization header until a sign-in, which the next
// request uses. Without the option the start fails naming OPENAI_API_KEY, as before.
func TestDeferredCredentials(t *testing.T) {
	home, work, model := t.TempDir(), t.TempDir(), tk.NewServer(t)
	cfgText := "model = \"gpt-5.5\"\nopenai_base_url = \"" + model.URL() + "/v1\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "CODEX_HOME" {
			return home
		}
		return ""
	}
	cfg, _, err := config.Load(config.LoadOptions{CodexHome: home, Cwd: work, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	newApp := func(deferred bool) (*App, error) {
		a, err := New(Options{Config: cfg, Getenv: env, Environ: func() []string { return nil }, Originator: "test_face", DeferCredentials: deferred})
		if err == nil {
			t.Cleanup(func() { a.Close(context.Background()) })
		}
		return a, err
	}
	if _, err := newApp(false); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("a host without credentials: %v, want the missing-key error", err)
	}
	a, err := newApp(true)
	if err != nil {
		t.Fatal(err)
	}
	th, err := a.StartThread(context.Background(), ThreadOptions{Ephemeral: true})
	if err != nil {
		t.Fatalf("start with deferred credentials: %v", err)
	}
	model.Enqueue(tk.SSE(tk.Created(), tk.AssistantMessageStream("m1", "one"), tk.Completed(tk.Usage{})))
	turn(t, th, "first")
	key := "sk-signed-in-later"
	if err := auth.NewStore(home, auth.StoreFile, nil).Save(&auth.File{Mode: auth.ModeAPIKey, APIKey: &key}); err != nil {
		t.Fatal(err)
	}
	model.Enqueue(tk.SSE(tk.Created(), tk.AssistantMessageStream("m2", "two"), tk.Completed(tk.Usage{})))
	turn(t, th, "second")
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := reqs[0].Header.Get("Authorization"); got != "" {
		t.Errorf("signed out, the request carried %q", got)
	}
	if got := reqs[1].Header.Get("Authorization"); got != "Bearer "+key {
		t.Errorf("after the sign-in, the request carried %q", got)
	}
}
