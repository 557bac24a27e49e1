package appserver_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"github.com/gocodex/gocodex/internal/appserver"
)

func signJWT(t *testing.T, secret, alg string, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	head := enc(map[string]string{"alg": alg, "typ": "JWT"}) + "." + enc(claims)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(head))
	return head + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

func TestJWTAuthVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	auth := &appserver.JWTAuth{Secret: []byte("k"), Issuer: "me", Audience: "codex", MaxClockSkew: 10 * time.Second, Now: func() time.Time { return now }}
	exp := now.Unix() + 60
	tests := []struct {
		name  string
		token string
		ok    bool
	}{
		{"valid", signJWT(t, "k", "HS256", map[string]any{"exp": exp, "iss": "me", "aud": "codex"}), true},
		{"audience in a list", signJWT(t, "k", "HS256", map[string]any{"exp": exp, "iss": "me", "aud": []string{"x", "codex"}}), true},
		{"expired within skew", signJWT(t, "k", "HS256", map[string]any{"exp": now.Unix() - 5, "iss": "me", "aud": "codex"}), true},
		{"expired", signJWT(t, "k", "HS256", map[string]any{"exp": now.Unix() - 11, "iss": "me", "aud": "codex"}), false},
		{"not yet valid", signJWT(t, "k", "HS256", map[string]any{"exp": exp, "nbf": now.Unix() + 11, "iss": "me", "aud": "codex"}), false},
		{"no exp", signJWT(t, "k", "HS256", map[string]any{"iss": "me", "aud": "codex"}), false},
		{"wrong secret", signJWT(t, "other", "HS256", map[string]any{"exp": exp, "iss": "me", "aud": "codex"}), false},
		{"wrong issuer", signJWT(t, "k", "HS256", map[string]any{"exp": exp, "iss": "you", "aud": "codex"}), false},
		{"wrong audience", signJWT(t, "k", "HS256", map[string]any{"exp": exp, "iss": "me", "aud": "other"}), false},
		{"alg none", signJWT(t, "k", "none", map[string]any{"exp": exp, "iss": "me", "aud": "codex"}), false},
		{"garbage", "a.b.c", false},
		{"two parts", "a.b", false},
	}
	for _, tt := range tests {
		if err := auth.Verify(tt.token); (err == nil) != tt.ok {
			t.Errorf("%s: Verify = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}
