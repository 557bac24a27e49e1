package auth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// ErrLoginCancelled ends a browser sign-in that a newer one (or the caller) cancelled.
var ErrLoginCancelled = errors.New("Login cancelled")

// BrowserLogin is `gocodex login`: authorization code with PKCE through a local callback
// server on 127.0.0.1:<port>/auth/callback, the code and then the id token exchanged at the
// issuer, the result stored. A login server of an earlier sign-in still holding the port is
// told to stop (GET /cancel), as Codex does.
func BrowserLogin(ctx context.Context, s *Store, o LoginOptions) (*File, error) {
	sess, err := StartBrowserLogin(ctx, s, o)
	if err != nil {
		return nil, err
	}
	defer sess.Cancel()
	return sess.Wait(ctx)
}

// BrowserSession is a browser sign-in in progress: its callback server is listening.
type BrowserSession struct {
	// AuthURL is the page the person signs in on.
	AuthURL string
	done    chan browserOutcome
	finish  func(*File, error)
	stop    func()
	stopped chan struct{}
}

type browserOutcome struct {
	f   *File
	err error
}

// Wait returns the stored credentials once the sign-in completes (after the success page was
// served), or its error.
func (b *BrowserSession) Wait(ctx context.Context) (*File, error) {
	select {
	case out := <-b.done:
		b.done <- out // later Waits see it too
		return out.f, out.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Cancel ends the sign-in (ErrLoginCancelled) and stops its server; it is safe to call more
// than once and after completion.
func (b *BrowserSession) Cancel() {
	b.finish(nil, ErrLoginCancelled)
	b.stop()
}

// StartBrowserLogin opens the callback server and prints the sign-in URL; the flow completes
// in the background (see BrowserSession).
func StartBrowserLogin(ctx context.Context, s *Store, o LoginOptions) (*BrowserSession, error) {
	o.defaults()
	ln, err := listenLogin(ctx, o)
	if err != nil {
		return nil, err
	}
	redirectURI := "http://127.0.0.1:" + strconv.Itoa(o.Port) + "/auth/callback"
	p, state := newPKCE(), randomToken(32)
	authURL := AuthorizeURL(o, redirectURI, p.challenge, state)

	fmt.Fprintf(o.Out, "Starting local login server on http://localhost:%d.\n", o.Port)
	fmt.Fprintf(o.Out, "If your browser did not open, navigate to this URL to authenticate:\n\n%s\n\n", authURL)
	fmt.Fprintln(o.Out, "On a remote or headless machine? Use `gocodex login --device-auth` instead.")
	if o.OpenBrowser != nil {
		_ = o.OpenBrowser(authURL) // the printed URL is the fallback
	}

	done := make(chan browserOutcome, 1)
	var once sync.Once
	finish := func(f *File, err error) { once.Do(func() { done <- browserOutcome{f, err} }) }
	var result *File
	var resultMu sync.Mutex

	mux := http.NewServeMux()
	mux.HandleFunc("/auth/callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("state") != state {
			// A stray or forged callback: refuse it and keep waiting for the real one.
			http.Error(w, "State mismatch", http.StatusBadRequest)
			return
		}
		if e := q.Get("error"); e != "" {
			msg := "Sign-in failed: " + e
			if d := q.Get("error_description"); d != "" {
				msg += ": " + d
			}
			http.Error(w, msg, http.StatusBadRequest)
			finish(nil, errors.New(msg))
			return
		}
		code := q.Get("code")
		if code == "" {
			http.Error(w, "Missing authorization code", http.StatusBadRequest)
			return
		}
		tok, err := exchangeCode(r.Context(), o, code, redirectURI, p.verifier)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			finish(nil, err)
			return
		}
		var apiKey *string
		if k, err := exchangeAPIKey(r.Context(), o, tok.IDToken); err == nil && k != "" {
			apiKey = &k
		}
		f, err := storeTokens(s, o, tok, apiKey)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			finish(nil, err)
			return
		}
		resultMu.Lock()
		result = f
		resultMu.Unlock()
		claims, _ := IDClaims(tok.IDToken)
		v := url.Values{"id_token": {tok.IDToken}, "needs_setup": {"false"}, "org_id": {""}, "project_id": {""},
			"plan_type": {claims.PlanType}, "platform_url": {"https://platform.openai.com"}}
		http.Redirect(w, r, "http://127.0.0.1:"+strconv.Itoa(o.Port)+"/success?"+v.Encode(), http.StatusFound)
	})
	mux.HandleFunc("/success", func(w http.ResponseWriter, r *http.Request) {
		resultMu.Lock()
		f := result
		resultMu.Unlock()
		if f == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, successPage)
		finish(f, nil)
	})
	mux.HandleFunc("/cancel", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "Login cancelled")
		finish(nil, ErrLoginCancelled)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	var stopOnce sync.Once
	sess := &BrowserSession{AuthURL: authURL, done: done, finish: finish, stopped: served}
	sess.stop = func() {
		stopOnce.Do(func() {
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
			<-served
		})
	}
	// The server stops once the flow ends, whoever ends it.
	go func() {
		out := <-done
		done <- out
		sess.stop()
	}()
	return sess, nil
}

// AuthorizeURL is the issuer's sign-in page for a browser flow, with Codex's parameters in
// Codex's order.
func AuthorizeURL(o LoginOptions, redirectURI, challenge, state string) string {
	o.defaults()
	q := []struct{ k, v string }{
		{"response_type", "code"}, {"client_id", o.ClientID}, {"redirect_uri", redirectURI},
		{"code_challenge", challenge}, {"code_challenge_method", "S256"}, {"state", state},
		{"scope", loginScopes}, {"id_token_add_organizations", "true"},
		{"codex_cli_simplified_flow", "true"}, {"originator", o.Originator},
	}
	u := o.Issuer + "/oauth/authorize?"
	for i, p := range q {
		if i > 0 {
			u += "&"
		}
		u += p.k + "=" + url.QueryEscape(p.v)
	}
	return u
}

// listenLogin takes the callback port; a login server already there is asked to cancel and
// the port tried again for a few seconds.
func listenLogin(ctx context.Context, o LoginOptions) (net.Listener, error) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port))
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	req, _ := http.NewRequestWithContext(cctx, http.MethodGet, "http://"+addr+"/cancel", nil)
	if resp, herr := http.DefaultClient.Do(req); herr == nil {
		resp.Body.Close()
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if ln, err = net.Listen("tcp", addr); err == nil {
			return ln, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("port %d is in use and whatever holds it did not give it up (%v); close it and try again, or use `gocodex login --device-auth`", o.Port, err)
}

const successPage = `<!doctype html><html><head><meta charset="utf-8"><title>Signed in to gocodex</title></head>
<body><h1>Signed in</h1><p>You can close this tab and return to your terminal.</p></body></html>
`
