package appserver

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
)

// JWTAuth checks signed bearer tokens (--ws-auth signed-bearer-token): HS256 JWTs signed
// with a shared secret, with optional issuer and audience, and exp/nbf honoured within a
// clock skew.
type JWTAuth struct {
	Secret       []byte
	Issuer       string // required "iss" when set
	Audience     string // required among "aud" when set
	MaxClockSkew time.Duration
	Now          func() time.Time // nil means time.Now
}

// DefaultMaxClockSkew is the leeway on exp and nbf when none is configured.
const DefaultMaxClockSkew = 30 * time.Second

var errBadToken = errors.New("invalid websocket bearer token")

// Verify reports whether token is a valid HS256 JWT for a.
func (a *JWTAuth) Verify(token string) error {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return errBadToken
	}
	var header struct {
		Alg string `json:"alg"`
	}
	if err := decodeSegment(parts[0], &header); err != nil || header.Alg != "HS256" {
		return errBadToken
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return errBadToken
	}
	mac := hmac.New(sha256.New, a.Secret)
	mac.Write([]byte(parts[0] + "." + parts[1]))
	if !hmac.Equal(sig, mac.Sum(nil)) {
		return errBadToken
	}
	var claims struct {
		Exp *float64        `json:"exp"`
		Nbf *float64        `json:"nbf"`
		Iss string          `json:"iss"`
		Aud json.RawMessage `json:"aud"`
	}
	if err := decodeSegment(parts[1], &claims); err != nil {
		return errBadToken
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	skew := a.MaxClockSkew
	if skew == 0 {
		skew = DefaultMaxClockSkew
	}
	t := now()
	if claims.Exp == nil || t.After(unixSeconds(*claims.Exp).Add(skew)) {
		return errBadToken
	}
	if claims.Nbf != nil && t.Add(skew).Before(unixSeconds(*claims.Nbf)) {
		return errBadToken
	}
	if a.Issuer != "" && subtle.ConstantTimeCompare([]byte(claims.Iss), []byte(a.Issuer)) != 1 {
		return errBadToken
	}
	if a.Audience != "" && !audienceHas(claims.Aud, a.Audience) {
		return errBadToken
	}
	return nil
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func unixSeconds(s float64) time.Time { return time.Unix(0, int64(s*float64(time.Second))) }

// audienceHas accepts "aud" as a string or an array of strings.
func audienceHas(raw json.RawMessage, want string) bool {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one == want
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		for _, a := range many {
			if a == want {
				return true
			}
		}
	}
	return false
}

// authorize checks a websocket upgrade's bearer token against the configured scheme and
// answers 401 with Codex's reason when it fails.
func (o WSOptions) authorize(w http.ResponseWriter, r *http.Request) bool {
	if len(o.TokenSHA256) == 0 && o.JWT == nil {
		return true
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || tok == "" {
		unauthorized(w, "missing websocket bearer token")
		return false
	}
	valid := false
	if len(o.TokenSHA256) > 0 {
		valid = subtle.ConstantTimeCompare(HashToken(tok), o.TokenSHA256) == 1
	} else {
		valid = o.JWT.Verify(tok) == nil
	}
	if !valid {
		unauthorized(w, errBadToken.Error())
		return false
	}
	return true
}
