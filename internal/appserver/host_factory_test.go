package appserver_test

import (
	"context"
	"testing"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/appserver"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/iostreams"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

// Wired as gocodex's app-server command wires it (the factory's host), threads
// started with their own overrides each get their configuration, and the process builds
// its one host once.
func TestThreadOverridesRunOnTheFactorysOneHost(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	ios, _, _ := iostreams.Test("")
	fac := faceopts.NewFactory(ios)
	fac.Getenv = w.getenv
	lo := config.LoadOptions{CodexHome: w.Home, Cwd: w.Work, Env: w.getenv}
	cfg, _, err := fac.Config(lo)
	if err != nil {
		t.Fatal(err)
	}
	srv := appserver.New(appserver.Options{Config: cfg, LoadOptions: lo, Getenv: w.getenv, Platform: &testPlatform,
		NewApp:     fac.Host,
		AppOptions: app.Options{Environ: func() []string { return []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + w.Home} }}})
	t.Cleanup(func() {
		_ = srv.Close(context.Background())
		_ = fac.Close(context.Background())
	})
	w.Model.Enqueue(answer("one"), answer("two"))
	cl := w.connect(srv)
	for _, model := range []string{"gpt-5.4", "gpt-5.5"} {
		id := cl.startThread(map[string]any{"cwd": w.Work, "model": model})
		cl.turn(id, "hi")
		cl.until("turn/completed")
	}
	reqs := w.Model.Requests()
	if len(reqs) != 2 || reqs[0].JSON["model"] != "gpt-5.4" || reqs[1].JSON["model"] != "gpt-5.5" {
		t.Errorf("models sent = %v", reqs)
	}
	if hosts, loads := fac.Built(); hosts != 1 || loads != 1 {
		t.Errorf("%d hosts built and %d start-up loads, want 1 and 1", hosts, loads)
	}
}
