package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/appserver"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/memlimit"
)

// appServerOptions are the flags of `gocodex app-server` (Codex's names).
type appServerOptions struct {
	faceopts.Flags
	Listen        string
	Stdio         bool
	WSAuth        string
	WSTokenFile   string
	WSTokenSHA256 string
	// signed-bearer-token mode
	WSSharedSecretFile string
	WSIssuer           string
	WSAudience         string
	WSMaxClockSkew     int // seconds; 0 means the default
}

// appServerRunner is the behaviour behind the command; flag tests pass their own.
type appServerRunner func(ctx context.Context, opts appServerOptions, fac *faceopts.Factory) error

func newAppServerCommand(fac *faceopts.Factory, run appServerRunner) *cobra.Command {
	var opts appServerOptions
	cmd := &cobra.Command{
		Use:   "app-server",
		Short: "[experimental] Run the app server (JSON-RPC over stdio or websocket)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), opts, fac)
		},
	}
	f := cmd.Flags()
	opts.Flags.Register(f, faceopts.Config|faceopts.Features|faceopts.StrictConfig)
	f.StringVar(&opts.Listen, "listen", "stdio://", "transport endpoint URL: stdio://, ws://IP:PORT, off")
	f.BoolVar(&opts.Stdio, "stdio", false, "use stdio as the transport (same as --listen stdio://)")
	f.StringVar(&opts.WSAuth, "ws-auth", "", "authentication for websocket connections: capability-token or signed-bearer-token")
	f.StringVar(&opts.WSTokenFile, "ws-token-file", "", "absolute path to the capability-token file")
	f.StringVar(&opts.WSTokenSHA256, "ws-token-sha256", "", "hex-encoded SHA-256 digest of the capability token")
	f.StringVar(&opts.WSSharedSecretFile, "ws-shared-secret-file", "", "absolute path to the shared secret file for signed JWT bearer tokens")
	f.StringVar(&opts.WSIssuer, "ws-issuer", "", "expected issuer for signed JWT bearer tokens")
	f.StringVar(&opts.WSAudience, "ws-audience", "", "expected audience for signed JWT bearer tokens")
	f.IntVar(&opts.WSMaxClockSkew, "ws-max-clock-skew-seconds", 0, "maximum clock skew when validating signed JWT bearer tokens")
	// Accepted for compatibility with Codex's launchers; they change nothing here.
	var ignored string
	var ignoredBool bool
	f.BoolVar(&ignoredBool, "analytics-default-enabled", false, "accepted for compatibility")
	f.StringVar(&ignored, "startup-client-info", "", "accepted for compatibility")
	for _, name := range []string{"analytics-default-enabled", "startup-client-info"} {
		_ = f.MarkHidden(name)
	}
	cmd.AddCommand(newGenerateCommands(fac)...)
	return cmd
}

// listenTarget is a parsed --listen value.
type listenTarget struct {
	kind string // "stdio", "ws", "off"
	addr string
}

func parseListen(v string, stdio bool) (listenTarget, error) {
	if stdio {
		return listenTarget{kind: "stdio"}, nil
	}
	switch {
	case v == "" || v == "stdio://" || v == "stdio":
		return listenTarget{kind: "stdio"}, nil
	case v == "off":
		return listenTarget{kind: "off"}, nil
	case strings.HasPrefix(v, "ws://"):
		addr := strings.TrimSuffix(strings.TrimPrefix(v, "ws://"), "/")
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return listenTarget{}, fmt.Errorf("invalid --listen %q: expected ws://IP:PORT", v)
		}
		return listenTarget{kind: "ws", addr: addr}, nil
	}
	return listenTarget{}, fmt.Errorf("unsupported --listen URL %q; supported values: `stdio://`, `ws://IP:PORT`, `off`", v)
}

// wsAuth resolves the websocket authentication from the flags: a capability token's digest
// or a signed-bearer-token checker (or neither).
func wsAuth(opts appServerOptions) ([]byte, *appserver.JWTAuth, error) {
	jwtFlags := opts.WSSharedSecretFile != "" || opts.WSIssuer != "" || opts.WSAudience != "" || opts.WSMaxClockSkew != 0
	tokenFlags := opts.WSTokenFile != "" || opts.WSTokenSHA256 != ""
	switch opts.WSAuth {
	case "":
		if tokenFlags {
			return nil, nil, errors.New("--ws-token-file and --ws-token-sha256 need --ws-auth capability-token")
		}
		if jwtFlags {
			return nil, nil, errors.New("--ws-shared-secret-file, --ws-issuer, --ws-audience and --ws-max-clock-skew-seconds need --ws-auth signed-bearer-token")
		}
		return nil, nil, nil
	case "capability-token":
		if jwtFlags {
			return nil, nil, errors.New("--ws-shared-secret-file, --ws-issuer, --ws-audience and --ws-max-clock-skew-seconds need --ws-auth signed-bearer-token")
		}
		tok, err := capabilityToken(opts)
		return tok, nil, err
	case "signed-bearer-token":
		if tokenFlags {
			return nil, nil, errors.New("--ws-token-file and --ws-token-sha256 need --ws-auth capability-token")
		}
		if opts.WSSharedSecretFile == "" {
			return nil, nil, errors.New("--ws-auth signed-bearer-token needs --ws-shared-secret-file")
		}
		secret, err := readSecretFile(opts.WSSharedSecretFile, "--ws-shared-secret-file")
		if err != nil {
			return nil, nil, err
		}
		if len(secret) < 32 { // Codex's floor for an HMAC key
			return nil, nil, fmt.Errorf("signed websocket bearer secret %s must be at least 32 bytes", opts.WSSharedSecretFile)
		}
		if opts.WSMaxClockSkew < 0 {
			return nil, nil, errors.New("--ws-max-clock-skew-seconds must not be negative")
		}
		return nil, &appserver.JWTAuth{Secret: []byte(secret), Issuer: opts.WSIssuer, Audience: opts.WSAudience,
			MaxClockSkew: time.Duration(opts.WSMaxClockSkew) * time.Second}, nil
	}
	return nil, nil, fmt.Errorf("invalid --ws-auth %q: expected capability-token or signed-bearer-token", opts.WSAuth)
}

// capabilityToken is the digest of the capability token named by the flags.
func capabilityToken(opts appServerOptions) ([]byte, error) {
	switch {
	case opts.WSTokenFile != "" && opts.WSTokenSHA256 != "":
		return nil, errors.New("give either --ws-token-file or --ws-token-sha256, not both")
	case opts.WSTokenFile != "":
		tok, err := readSecretFile(opts.WSTokenFile, "--ws-token-file")
		if err != nil {
			return nil, err
		}
		return appserver.HashToken(tok), nil
	case opts.WSTokenSHA256 != "":
		return appserver.ParseTokenSHA256(opts.WSTokenSHA256)
	}
	return nil, errors.New("--ws-auth capability-token needs --ws-token-file or --ws-token-sha256")
}

// readSecretFile reads a token or secret, surrounding whitespace dropped, not empty.
func readSecretFile(path, flag string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", flag, err)
	}
	secret := strings.TrimSpace(string(b))
	if secret == "" {
		return "", fmt.Errorf("%s %s is empty", flag, path)
	}
	return secret, nil
}

// The app-server's soft memory limit: twice its live heap plus the headroom, never under
// the floor (internal/memlimit). A 5 MB answer streamed to a stalled client then peaks near
// 57 MiB of RSS (BenchmarkAppServerSlowReader), where the freed pages the collector keeps
// took it past 63.
const (
	appServerMemoryFloor    = 40 << 20
	appServerMemoryHeadroom = 4 << 20
)

func runAppServer(ctx context.Context, opts appServerOptions, fac *faceopts.Factory) error {
	target, err := parseListen(opts.Listen, opts.Stdio)
	if err != nil {
		return err
	}
	token, jwt, err := wsAuth(opts)
	if err != nil {
		return err
	}
	if err := faceopts.CheckFeatureNames(opts.Enable, opts.Disable); err != nil {
		return err
	}
	// A server streams answers of megabytes for hours: its memory follows what it holds
	// (see internal/memlimit) rather than its largest burst.
	defer memlimit.Tune(appServerMemoryFloor, appServerMemoryHeadroom).Stop()
	return appserver.Launch(ctx, fac, appserver.LaunchOptions{
		Load:      config.LoadOptions{CLIOverrides: faceopts.FeatureOverrides(opts.Configs, opts.Enable, opts.Disable), StrictConfig: opts.StrictConfig},
		Transport: target.kind,
		WS:        appserver.WSOptions{Addr: target.addr, TokenSHA256: token, JWT: jwt},
	})
}
