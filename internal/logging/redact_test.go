package logging

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// secretValue is a credential handed to the logger through a LogValuer.
type secretValue string

func (s secretValue) LogValue() slog.Value { return slog.StringValue(string(s)) }

// TestLogFileHoldsNoSecret logs credentials every way a caller might and greps the file.
func TestLogFileHoldsNoSecret(t *testing.T) {
	const (
		bearer  = "abc123BEARERsecretVALUE"
		skKey   = "sk-proj-A1b2C3d4E5f6G7h8I9j0"
		jwt     = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEyMyJ9.c2lnbmF0dXJlLXNlY3JldA"
		refresh = "rt-refresh-secret-0001"
		pass    = "hunter2-password-0002"
		cookie  = "session=cookie-secret-0003"
		apiKey  = "plain-api-key-0004"
		urlKey  = "url-key-0005"
		grouped = "grouped-secret-0006"
		valuer  = "valuer-secret-0007"
		jsonTok = "json-token-0008"
	)
	secrets := []string{bearer, skKey, jwt, refresh, pass, cookie, apiKey, urlKey, grouped, valuer, jsonTok, "eyJzdWIiOiJ1c2VyLTEyMyJ9"}

	var stderr bytes.Buffer
	l := openOK(t, Options{Dir: t.TempDir(), Face: "exec", Stderr: &stderr, Verbose: true})
	log := l.Logger()
	// In messages.
	log.Info("sending request with Authorization: Bearer " + bearer)
	log.Info("using key " + skKey + " for the model")
	log.Info("id token is " + jwt)
	log.Info("GET https://example.test/v1?api_key=" + urlKey + "&page=2")
	// As attributes with secret keys, in any case and spelling.
	log.Info("auth", "refresh_token", refresh, "Password", pass, "Cookie", cookie, "X-Api-Key", apiKey,
		"OPENAI_API_KEY", skKey, "access_token", jwt, "id_token", jwt, "client_secret", pass, "authorization", "Bearer "+bearer)
	// Secret-shaped text under ordinary keys.
	log.Info("headers", "header", "Authorization: Bearer "+bearer, "err", errors.New("401 for key "+skKey))
	log.Info("body", "raw", json.RawMessage(`{"access_token":"`+jsonTok+`"}`), "map", map[string]string{"Authorization": bearer})
	// Nested groups, WithAttrs and WithGroup.
	log.Info("nested", slog.Group("request", slog.Group("headers", slog.String("authorization", grouped), slog.String("accept", "text/event-stream"))))
	log.With("token", grouped).WithGroup("auth").Info("scoped", "api_key", grouped, "note", "sk-"+"inGroupKey12345")
	log.WithGroup("password").Info("whole group secret", "value", grouped)
	log.Info("valuer", "creds", secretValue("Bearer "+valuer), "api_key", secretValue(valuer))
	l.Close()

	for name, text := range map[string]string{"file": readFile(t, l.Path()), "stderr": stderr.String()} {
		for _, s := range append(secrets, "inGroupKey12345") {
			if strings.Contains(text, s) {
				t.Errorf("%s holds the secret %q:\n%s", name, s, text)
			}
		}
		for _, kept := range []string{"accept=text/event-stream", "page=2", "Authorization: [REDACTED]", "creds=\"Bearer [REDACTED]\"", "refresh_token=[REDACTED]"} {
			if !strings.Contains(text, kept) {
				t.Errorf("%s lacks %q:\n%s", name, kept, text)
			}
		}
	}
}

func TestRedactTextKeepsOrdinaryText(t *testing.T) {
	for _, s := range []string{
		"token_count=5 input_tokens=12 output_tokens: 3",
		"task-manager disk-usage sk-short",
		"the model used 42 tokens",
		"eyJ alone is not a token",
	} {
		if got := RedactText(s); got != s {
			t.Errorf("RedactText(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestRedactTextMasks(t *testing.T) {
	cases := map[string]string{
		"Authorization: Bearer abc.def-ghi":    "Authorization: [REDACTED]",
		"bearer abcdef":                        "bearer [REDACTED]",
		"key sk-1234567890abcdef end":          "key [REDACTED] end",
		`{"password": "p@ss", "user": "bob"}`:  `{"password": "[REDACTED]", "user": "bob"}`,
		"x eyJhbGc.eyJzdWIi.sig y":             "x [REDACTED] y",
		"https://h/?access_token=abc&x=1":      "https://h/?access_token=[REDACTED]&x=1",
		"Cookie: a=b; c=d":                     "Cookie: [REDACTED]; c=d",
		"OPENAI_API_KEY=sk-abcdefghijklmnopqr": "OPENAI_API_KEY=[REDACTED]",
	}
	for in, want := range cases {
		if got := RedactText(in); got != want {
			t.Errorf("RedactText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsSecretKey(t *testing.T) {
	for _, k := range []string{"authorization", "Proxy-Authorization", "api_key", "X-API-KEY", "apiKey", "token", "access_token",
		"refresh_token", "id_token", "bearer_token", "password", "passwd", "client_secret", "Cookie", "Set-Cookie"} {
		if !isSecretKey(k) {
			t.Errorf("isSecretKey(%q) = false", k)
		}
	}
	for _, k := range []string{"tokens", "input_tokens", "token_count", "model", "thread", "path", "keyboard"} {
		if isSecretKey(k) {
			t.Errorf("isSecretKey(%q) = true", k)
		}
	}
}
