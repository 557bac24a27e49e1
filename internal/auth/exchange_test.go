package auth

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// The code exchange runs on golang.org/x/oauth2 and keeps what Codex sends (a form with the
// client id, the verifier and the redirect) and gocodex's words for a failure, which never
// carry the issuer's body.
func TestExchangeCode(t *testing.T) {
	var form url.Values
	answer := func(w http.ResponseWriter) {}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		form, _ = url.ParseQuery(string(b))
		answer(w)
	}))
	defer srv.Close()
	o := LoginOptions{Issuer: srv.URL, ClientID: "app_test", HTTP: srv.Client()}
	o.defaults()

	answer = func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id_token":"idt","access_token":"at","refresh_token":"rt","token_type":"Bearer"}`)
	}
	tok, err := exchangeCode(context.Background(), o, "the-code", "http://127.0.0.1:1455/auth/callback", "the-verifier")
	if err != nil || tok.IDToken != "idt" || tok.AccessToken != "at" || tok.RefreshToken != "rt" {
		t.Fatalf("exchange: %+v %v", tok, err)
	}
	want := url.Values{"grant_type": {"authorization_code"}, "code": {"the-code"}, "redirect_uri": {"http://127.0.0.1:1455/auth/callback"},
		"client_id": {"app_test"}, "code_verifier": {"the-verifier"}}
	if form.Encode() != want.Encode() {
		t.Errorf("form %v, want %v", form, want)
	}

	for _, tc := range []struct {
		name, body, want string
		status           int
	}{
		{"refused", `{"error":"invalid_grant","error_description":"code secret-code used"}`, "token exchange failed: the issuer answered 400 Bad Request (invalid_grant)", 400},
		{"garbage", `<html>`, "token exchange failed: the issuer's answer is not JSON", 200},
		{"no id token", `{"access_token":"at","token_type":"Bearer"}`, "token exchange failed: the issuer's answer has no id_token and access_token", 200},
	} {
		answer = func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tc.status)
			_, _ = io.WriteString(w, tc.body)
		}
		_, err := exchangeCode(context.Background(), o, "c", "http://127.0.0.1:1455/auth/callback", "v")
		if err == nil || err.Error() != tc.want || strings.Contains(err.Error(), "secret-code") {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestPKCEChallenge(t *testing.T) {
	p := newPKCE()
	if len(p.verifier) < 43 || p.challenge == "" || p.challenge == p.verifier {
		t.Fatalf("pkce %+v", p)
	}
}
