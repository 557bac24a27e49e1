package auth

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Claims are what Codex reads from the ChatGPT tokens (nothing is verified: the tokens come
// from the issuer over TLS and are only used to label the account and time the refresh).
type Claims struct {
	Email     string
	PlanType  string
	UserID    string
	AccountID string
}

// IDClaims reads the id token's claims: email (or the profile's), and the
// https://api.openai.com/auth object's plan, user and account.
func IDClaims(idToken string) (Claims, error) {
	var c struct {
		Email   string `json:"email"`
		Profile struct {
			Email string `json:"email"`
		} `json:"https://api.openai.com/profile"`
		Auth struct {
			PlanType      string `json:"chatgpt_plan_type"`
			ChatGPTUserID string `json:"chatgpt_user_id"`
			UserID        string `json:"user_id"`
			AccountID     string `json:"chatgpt_account_id"`
		} `json:"https://api.openai.com/auth"`
	}
	if err := jwtPayload(idToken, &c); err != nil {
		return Claims{}, err
	}
	out := Claims{Email: c.Email, PlanType: c.Auth.PlanType, UserID: c.Auth.ChatGPTUserID, AccountID: c.Auth.AccountID}
	if out.Email == "" {
		out.Email = c.Profile.Email
	}
	if out.UserID == "" {
		out.UserID = c.Auth.UserID
	}
	return out, nil
}

// Expiry is the access token's exp; false when it has none.
func Expiry(accessToken string) (time.Time, bool) {
	var c struct {
		Exp *float64 `json:"exp"`
	}
	if jwtPayload(accessToken, &c) != nil || c.Exp == nil {
		return time.Time{}, false
	}
	return time.Unix(int64(*c.Exp), 0), true
}

var errTokenFormat = errors.New("invalid ID token format")

// jwtPayload decodes a JWT's payload segment into v without checking the signature.
func jwtPayload(token string, v any) error {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[1] == "" {
		return errTokenFormat
	}
	data, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return errTokenFormat
	}
	if err := json.Unmarshal(data, v); err != nil {
		return errTokenFormat
	}
	return nil
}
