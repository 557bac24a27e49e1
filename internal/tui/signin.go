package tui

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gocodex/gocodex/internal/app"
)

// SignInOptions are what the sign-in screen needs.
type SignInOptions struct {
	// SignIn are the host's ways to sign in, storing the credentials.
	SignIn *app.SignIn
	In     io.Reader
	Out    io.Writer
	// AllowChatGPT and AllowAPIKey follow forced_login_method.
	AllowChatGPT, AllowAPIKey bool
}

// ErrSignInDeclined is returned when the person leaves the sign-in screen without signing in.
var ErrSignInDeclined = errors.New("not signed in: run `gocodex login`, or set OPENAI_API_KEY")

// SignIn is the screen shown when no credentials exist: sign in with ChatGPT (browser or
// device code) or paste an API key. It runs in the terminal's normal mode, before the
// full-screen UI, and returns once credentials are stored.
func SignIn(ctx context.Context, o SignInOptions) error {
	r := bufio.NewReader(o.In)
	type choice struct {
		label string
		run   func() error
	}
	var choices []choice
	if o.AllowChatGPT {
		choices = append(choices,
			choice{"Sign in with ChatGPT (opens your browser)", func() error {
				return o.SignIn.Browser(ctx, o.Out)
			}},
			choice{"Sign in with a device code (for SSH and headless machines)", func() error {
				return o.SignIn.Device(ctx, o.Out)
			}})
	}
	if o.AllowAPIKey {
		choices = append(choices, choice{"Provide your own API key", func() error {
			fmt.Fprint(o.Out, "Paste your API key and press Enter: ")
			line, err := r.ReadString('\n')
			serr := o.SignIn.SaveAPIKey(line)
			if errors.Is(serr, app.ErrNoAPIKey) && err != nil {
				return err
			}
			return serr
		}})
	}
	for {
		fmt.Fprint(o.Out, "\r\n  Welcome to gocodex. Sign in to use your plan or your API key.\r\n\r\n")
		for i, c := range choices {
			fmt.Fprintf(o.Out, "  %d. %s\r\n", i+1, c.label)
		}
		fmt.Fprintf(o.Out, "  q. Quit\r\n\r\n  Choose 1-%d: ", len(choices))
		line, err := r.ReadString('\n')
		answer := strings.TrimSpace(line)
		if answer == "q" || (err != nil && answer == "") {
			return ErrSignInDeclined
		}
		var n int
		if _, serr := fmt.Sscanf(answer, "%d", &n); serr != nil || n < 1 || n > len(choices) {
			fmt.Fprintf(o.Out, "  %q is not one of the choices.\r\n", answer)
			continue
		}
		if err := choices[n-1].run(); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fmt.Fprintf(o.Out, "\r\n  Sign-in failed: %v\r\n", err)
			continue
		}
		fmt.Fprint(o.Out, "\r\n  Signed in.\r\n")
		return nil
	}
}
