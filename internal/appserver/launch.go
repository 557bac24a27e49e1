package appserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/features"
)

// LaunchOptions are what the app-server command hands the face: its flags as load options
// and the transport.
type LaunchOptions struct {
	Load config.LoadOptions
	// Transport is "stdio", "ws" (WS says where and how clients authenticate) or "off".
	Transport string
	WS        WSOptions
}

// Launch runs `gocodex app-server` on the process's factory: the configuration (a broken
// config.toml falls back to defaults and tells each client), the log, then the server on
// the transport until ctx ends. The server asks the factory for the host when a client first
// needs it; a thread's own overrides load its configuration, not a new host.
func Launch(ctx context.Context, fac *faceopts.Factory, o LaunchOptions) error {
	s := fac.IO
	cfg, warnings, startup, err := loadConfig(fac, o.Load)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(s.ErrOut, "warning: "+w.String())
	}
	log := fac.Logger(cfg, "app-server", slog.LevelWarn)
	srv := New(Options{Config: cfg, LoadOptions: o.Load, Logger: log, StartupWarnings: startup,
		NewApp: fac.Host})
	defer srv.Close(context.WithoutCancel(ctx))

	switch o.Transport {
	case "off":
		<-ctx.Done()
		return nil
	case "ws":
		ws := o.WS
		ws.Listening = func(a net.Addr) {
			fmt.Fprintf(s.ErrOut, "gocodex app-server (WebSockets)\n  listening on: ws://%s\n  readyz: http://%s/readyz\n  healthz: http://%s/healthz\n", a, a, a)
		}
		return srv.ServeWebsocket(ctx, ws)
	}
	// os.Stdin cannot be interrupted by Close; a pipe can, so a signal ends the server even
	// while the client is silent. The copier ends with the process.
	in := s.In
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, in)
		pw.CloseWithError(err)
	}()
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(ctx, pr, s.Out) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// A signal: give queued answers a moment, but a client that stopped reading (a blocked
	// write to stdout) must not keep the process alive.
	select {
	case <-served:
	case <-time.After(2 * time.Second):
	}
	return nil
}

// loadConfig loads the configuration. A config.toml that cannot be parsed does not
// keep the server from starting, as with Codex: it runs on defaults (command-line overrides
// still apply) and tells each client with a configWarning.
func loadConfig(fac *faceopts.Factory, lo config.LoadOptions) (*config.Config, []config.Warning, []ConfigWarningParams, error) {
	cfg, warnings, err := fac.Config(lo)
	var startup []ConfigWarningParams
	if err != nil {
		var pe *config.ParseError
		if !errors.As(err, &pe) || pe.Line == 0 || lo.StrictConfig {
			return nil, nil, nil, err
		}
		fallback := lo
		fallback.IgnoreUserConfig = true
		cfg, warnings, err = fac.Config(fallback)
		if err != nil {
			return nil, nil, nil, err
		}
		startup = append(startup, InvalidConfigWarning(pe))
		warnings = append([]config.Warning{{File: pe.File, Line: pe.Line, Column: pe.Column, Message: "invalid configuration; using defaults: " + pe.Message}}, warnings...)
	}
	unknown, ok, rest := UnknownSettingsWarning(warnings[len(startup):], cfg.CodexHome)
	if ok { // Codex's one summary of the keys it does not know
		startup = append(startup, unknown)
	}
	for _, w := range rest {
		// A legacy flag name is a deprecationNotice at each thread start, as from Codex.
		if len(w.Key) == 2 && w.Key[0] == "features" && features.IsLegacyName(w.Key[1]) {
			continue
		}
		startup = append(startup, ConfigWarning(w))
	}
	return cfg, warnings, startup, nil
}
