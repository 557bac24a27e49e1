package logging

import (
	"log/slog"
	"regexp"
	"strings"
)

// Redacted replaces a secret in the log.
const Redacted = "[REDACTED]"

// secretKeys are attribute keys whose values are secrets, whatever they hold.
var secretKeys = []string{"authorization", "api_key", "apikey", "token", "access_token",
	"refresh_token", "id_token", "password", "secret", "cookie", "bearer"}

// secretPatterns find secrets inside any text: bearer credentials, OpenAI-style keys, JWTs.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=-]+`),
	regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{8,}`),
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`),
}

// redactAttr is the handlers' ReplaceAttr: it sees every attribute (the message too, and
// those inside groups).
func redactAttr(_ []string, a slog.Attr) slog.Attr {
	if isSecretKey(a.Key) {
		return slog.String(a.Key, Redacted)
	}
	if a.Value.Kind() == slog.KindString {
		if s := RedactText(a.Value.String()); s != a.Value.String() {
			return slog.String(a.Key, s)
		}
	}
	if a.Value.Kind() == slog.KindAny {
		if err, ok := a.Value.Any().(error); ok {
			return slog.String(a.Key, RedactText(err.Error()))
		}
	}
	return a
}

func isSecretKey(key string) bool {
	k := strings.ToLower(key)
	for _, s := range secretKeys {
		if k == s || strings.HasSuffix(k, "_"+s) || strings.HasSuffix(k, "-"+s) {
			return true
		}
	}
	return false
}

// RedactText masks the secrets found in s.
func RedactText(s string) string {
	for _, p := range secretPatterns {
		s = p.ReplaceAllString(s, Redacted)
	}
	return s
}
