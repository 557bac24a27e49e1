// Package auth holds the credentials Codex and gocodex share: CODEX_HOME/auth.json (or the
// OS keyring), the API key or the ChatGPT tokens in it, their refresh and revocation, and the
// sign-in flows that produce them. The file format is Codex 0.169's, so either binary can use
// what the other wrote.
package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// Mode is auth.json's auth_mode.
type Mode string

const (
	ModeAPIKey  Mode = "apikey"
	ModeChatGPT Mode = "chatgpt"
)

// File is the content of auth.json. Members this package does not know are kept, in their
// place after the known ones, so a file written by a newer Codex loses nothing here.
type File struct {
	Mode Mode
	// APIKey is OPENAI_API_KEY: the key in API-key mode, or (browser sign-in) the key the id
	// token was exchanged for. Nil writes null in ChatGPT mode and nothing in API-key mode.
	APIKey *string
	// Tokens are the ChatGPT tokens; nil in API-key mode.
	Tokens *Tokens
	// LastRefresh is when the tokens were last issued or refreshed.
	LastRefresh *time.Time

	extra []member
}

// Tokens is auth.json's tokens object.
type Tokens struct {
	IDToken      string
	AccessToken  string
	RefreshToken string
	// Provenance is oauth_provenance: the issuer and client the tokens came from (Codex 0.169
	// writes it; older files lack it, and a refresh keeps whichever form the file had).
	Provenance *Provenance
	// LoginOwnerID is login_owner_id, kept as Codex wrote it.
	LoginOwnerID *string
	AccountID    *string

	extra []member
}

// Provenance is oauth_provenance.
type Provenance struct {
	Issuer   string `json:"issuer"`
	ClientID string `json:"client_id"`
}

type member struct {
	key   string
	value json.RawMessage
}

// ParseFile reads auth.json's content. A file without auth_mode is Codex's legacy API-key
// file when it has a key, else ChatGPT when it has tokens.
func ParseFile(data []byte) (*File, error) {
	f := &File{}
	var ferr error
	err := protocol.ObjectMembers(data, func(key string, v []byte) bool {
		switch key {
		case "auth_mode":
			var m string
			ferr = json.Unmarshal(v, &m)
			f.Mode = Mode(m)
		case "OPENAI_API_KEY":
			ferr = json.Unmarshal(v, &f.APIKey)
		case "tokens":
			if string(v) != "null" {
				f.Tokens, ferr = parseTokens(v)
			}
		case "last_refresh":
			var s *string
			if ferr = json.Unmarshal(v, &s); ferr == nil && s != nil {
				t, err := time.Parse(time.RFC3339Nano, *s)
				if err != nil {
					ferr = fmt.Errorf("last_refresh: %w", err)
				}
				f.LastRefresh = &t
			}
		default:
			f.extra = append(f.extra, member{key, bytes.Clone(v)})
		}
		if ferr != nil {
			ferr = fmt.Errorf("%s: %w", key, ferr)
		}
		return ferr == nil
	})
	if err == nil {
		err = ferr
	}
	if err == nil && !json.Valid(data) {
		err = errors.New("not valid JSON")
	}
	if err != nil {
		return nil, err
	}
	switch f.Mode {
	case ModeAPIKey, ModeChatGPT:
	case "":
		if f.APIKey != nil {
			f.Mode = ModeAPIKey
		} else if f.Tokens != nil {
			f.Mode = ModeChatGPT
		} else {
			return nil, errors.New("neither an API key nor ChatGPT tokens")
		}
	default:
		return nil, fmt.Errorf("unknown auth_mode %q", f.Mode)
	}
	if f.Mode == ModeChatGPT && f.Tokens == nil {
		return f, nil // Codex reports such a file as signed in; a request then fails clearly.
	}
	return f, nil
}

func parseTokens(data []byte) (*Tokens, error) {
	t := &Tokens{}
	var ferr error
	err := protocol.ObjectMembers(data, func(key string, v []byte) bool {
		switch key {
		case "id_token":
			ferr = json.Unmarshal(v, &t.IDToken)
		case "access_token":
			ferr = json.Unmarshal(v, &t.AccessToken)
		case "refresh_token":
			ferr = json.Unmarshal(v, &t.RefreshToken)
		case "oauth_provenance":
			ferr = json.Unmarshal(v, &t.Provenance)
		case "login_owner_id":
			ferr = json.Unmarshal(v, &t.LoginOwnerID)
		case "account_id":
			ferr = json.Unmarshal(v, &t.AccountID)
		default:
			t.extra = append(t.extra, member{key, bytes.Clone(v)})
		}
		if ferr != nil {
			ferr = fmt.Errorf("%s: %w", key, ferr)
		}
		return ferr == nil
	})
	if err == nil {
		err = ferr
	}
	return t, err
}

// Marshal writes the file as Codex does: two-space indentation, no trailing newline, the
// known members first in Codex's order.
func (f *File) Marshal() ([]byte, error) {
	var b objectWriter
	b.put("auth_mode", string(f.Mode))
	if f.APIKey != nil || f.Mode == ModeChatGPT {
		b.put("OPENAI_API_KEY", f.APIKey)
	}
	if f.Tokens != nil {
		t := f.Tokens
		var tb objectWriter
		tb.put("id_token", t.IDToken)
		tb.put("access_token", t.AccessToken)
		tb.put("refresh_token", t.RefreshToken)
		if t.Provenance != nil {
			tb.put("oauth_provenance", t.Provenance)
		}
		if t.LoginOwnerID != nil {
			tb.put("login_owner_id", *t.LoginOwnerID)
		}
		if t.AccountID != nil {
			tb.put("account_id", *t.AccountID)
		}
		tb.extra(t.extra)
		b.putRaw("tokens", tb.bytes())
	}
	if f.LastRefresh != nil {
		b.put("last_refresh", f.LastRefresh.UTC().Format(time.RFC3339Nano))
	} else if f.Mode == ModeChatGPT {
		b.put("last_refresh", nil)
	}
	b.extra(f.extra)
	if b.err != nil {
		return nil, b.err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b.bytes(), "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// objectWriter builds a JSON object member by member, in the order given.
type objectWriter struct {
	buf bytes.Buffer
	err error
}

func (w *objectWriter) put(key string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		w.err = err
		return
	}
	w.putRaw(key, data)
}

func (w *objectWriter) putRaw(key string, v []byte) {
	if w.buf.Len() == 0 {
		w.buf.WriteByte('{')
	} else {
		w.buf.WriteByte(',')
	}
	k, _ := json.Marshal(key)
	w.buf.Write(k)
	w.buf.WriteByte(':')
	w.buf.Write(v)
}

func (w *objectWriter) extra(ms []member) {
	for _, m := range ms {
		w.putRaw(m.key, m.value)
	}
}

func (w *objectWriter) bytes() []byte {
	if w.buf.Len() == 0 {
		return []byte("{}")
	}
	return append(bytes.Clone(w.buf.Bytes()), '}')
}

// MaskKey shows an API key as `codex login status` does: at most 13 characters become
// "***", longer ones keep their first 8 and last 5.
func MaskKey(key string) string {
	if len(key) <= 13 {
		return "***"
	}
	return key[:8] + "***" + key[len(key)-5:]
}

// NormalizeKey trims the white space around a key read from stdin (an inner newline stays, as
// in Codex).
func NormalizeKey(s string) string { return strings.TrimSpace(s) }
