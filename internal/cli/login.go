package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"time"

	"github.com/gocodex/gocodex/internal/auth"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/iostreams"
)

// LoginOptions are `gocodex login`'s flags.
type LoginOptions struct {
	WithAPIKey      bool
	WithAccessToken bool
	DeviceAuth      bool
	// Issuer and ClientID are the hidden --experimental_issuer and --experimental_client-id.
	Issuer   string
	ClientID string
	// Port is the browser flow's callback port (GOCODEX_LOGIN_PORT; Codex's is fixed at 1455).
	Port int
	// Getenv reads the environment (proxies, the browser, the sign-out endpoints).
	Getenv func(string) string
	// OpenBrowser opens a URL; nil picks xdg-open/open when a display is available.
	OpenBrowser func(string) error
}

func storeOf(cfg *config.Config) (*auth.Store, error) {
	mode, err := auth.ParseStoreMode(cfg.CLIAuthCredentialsStore)
	if err != nil {
		return nil, err
	}
	return auth.NewStore(cfg.CodexHome, mode, nil), nil
}

// RunLogin is `gocodex login [--with-api-key | --device-auth]`; it returns the exit status.
func RunLogin(ctx context.Context, cfg *config.Config, o LoginOptions, ios *iostreams.IOStreams) int {
	store, err := storeOf(cfg)
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "Error logging in: %v\n", err)
		return 1
	}
	switch {
	case o.WithAccessToken:
		fmt.Fprintln(ios.ErrOut, "Error logging in with access token: agent identity tokens are not supported by gocodex; use `gocodex login` or `gocodex login --with-api-key`")
		return 1
	case o.WithAPIKey:
		if cfg.ForcedLoginMethod == "chatgpt" {
			fmt.Fprintln(ios.ErrOut, "API key login is disabled by forced_login_method = \"chatgpt\".")
			return 1
		}
		return loginWithAPIKey(store, ios)
	}
	if cfg.ForcedLoginMethod == "api" {
		fmt.Fprintln(ios.ErrOut, "ChatGPT login is disabled by forced_login_method = \"api\"; use `gocodex login --with-api-key`.")
		return 1
	}
	httpClient, err := auth.HTTPClient(o.Getenv)
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "Error logging in: %v\n", err)
		return 1
	}
	if httpClient != nil {
		httpClient.Timeout = 30 * time.Second
	}
	lo := auth.LoginOptions{Issuer: o.Issuer, ClientID: o.ClientID, Port: o.Port, Out: ios.ErrOut, OpenBrowser: o.OpenBrowser, HTTP: httpClient}
	if lo.OpenBrowser == nil {
		lo.OpenBrowser = func(url string) error { return openBrowser(url, o.Getenv) }
	}
	if o.DeviceAuth {
		lo.Out = ios.Out // Codex prints the device code on stdout
		_, err = auth.DeviceLogin(ctx, store, lo)
	} else {
		_, err = auth.BrowserLogin(ctx, store, lo)
	}
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "Error logging in: %v\n", err)
		return 1
	}
	fmt.Fprintln(ios.ErrOut, "Successfully logged in")
	return 0
}

func loginWithAPIKey(store *auth.Store, ios *iostreams.IOStreams) int {
	fmt.Fprintln(ios.ErrOut, "Reading API key from stdin...")
	data, err := readAllLimited(ios.In, 1<<16)
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "Failed to read API key from stdin: %v\n", err)
		return 1
	}
	key := auth.NormalizeKey(string(data))
	if key == "" {
		fmt.Fprintln(ios.ErrOut, "No API key provided via stdin.")
		return 1
	}
	if err := store.Save(&auth.File{Mode: auth.ModeAPIKey, APIKey: &key}); err != nil {
		fmt.Fprintf(ios.ErrOut, "Error logging in: %v\n", err)
		return 1
	}
	fmt.Fprintln(ios.ErrOut, "API key saved. Authentication is checked when you send a request.")
	return 0
}

func readAllLimited(r io.Reader, n int64) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	data, err := io.ReadAll(io.LimitReader(r, n+1))
	if int64(len(data)) > n {
		return nil, errors.New("input too large")
	}
	return data, err
}

// RunLoginStatus is `gocodex login status`: which credentials are stored (the environment is
// not consulted, as in Codex); exit 1 when none.
func RunLoginStatus(cfg *config.Config, ios *iostreams.IOStreams) int {
	store, err := storeOf(cfg)
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "Error checking login status: %v\n", err)
		return 1
	}
	f, err := store.Load()
	switch {
	case errors.Is(err, auth.ErrNotLoggedIn):
		fmt.Fprintln(ios.ErrOut, "Not logged in")
		return 1
	case err != nil:
		fmt.Fprintf(ios.ErrOut, "Error checking login status: %v\n", err)
		return 1
	case f.Mode == auth.ModeAPIKey && f.APIKey != nil:
		fmt.Fprintf(ios.ErrOut, "API key configured - %s\nAuthentication is checked when you send a request.\n", auth.MaskKey(*f.APIKey))
		return 0
	}
	fmt.Fprintln(ios.ErrOut, "Logged in using ChatGPT")
	return 0
}

// RunLogout is `gocodex logout`: revoke a ChatGPT refresh token, then remove the credentials.
func RunLogout(ctx context.Context, cfg *config.Config, originator string, o LoginOptions, ios *iostreams.IOStreams) int {
	store, err := storeOf(cfg)
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "Error logging out: %v\n", err)
		return 1
	}
	if f, err := store.Load(); err == nil && f.Mode == auth.ModeChatGPT {
		ep := auth.EndpointsFromEnv(o.Getenv, originator)
		if ep.HTTP, err = auth.HTTPClient(o.Getenv); err != nil {
			fmt.Fprintf(ios.ErrOut, "Error logging out: %v\n", err)
			return 1
		}
		if err := auth.Revoke(ctx, ep, f.Tokens); err != nil {
			fmt.Fprintf(ios.ErrOut, "Warning: %v; removing the local credentials anyway\n", err)
		}
	}
	removed, err := store.Delete()
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "Error logging out: %v\n", err)
		return 1
	}
	if removed {
		fmt.Fprintln(ios.ErrOut, "Successfully logged out")
	} else {
		fmt.Fprintln(ios.ErrOut, "Not logged in")
	}
	return 0
}

// openBrowser opens url with the desktop's opener when there is a desktop to open it on.
func openBrowser(url string, getenv func(string) string) error {
	argv, err := browserCommand(runtime.GOOS, url, getenv)
	if err != nil {
		return err
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	cmd := exec.Command(path, argv[1:]...)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }() // reap it; the opener exits on its own
	return nil
}

// browserCommand is the command that opens url on goos: open on macOS; on Windows the URL
// handler run by rundll32, which takes the URL as one argument (cmd's start would read the
// &s of a sign-in URL as command separators); xdg-open elsewhere, when a display is there.
func browserCommand(goos, url string, getenv func(string) string) ([]string, error) {
	switch goos {
	case "darwin":
		return []string{"open", url}, nil
	case "windows":
		return []string{"rundll32", "url.dll,FileProtocolHandler", url}, nil
	}
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return nil, errors.New("no display")
	}
	return []string{"xdg-open", url}, nil
}
