package logging

import (
	"regexp"
	"strings"
	"sync"
)

// Redacted replaces every secret this package finds.
const Redacted = "[REDACTED]"

// secretKeyWords are the words that make an attribute key (or a key=value pair in text)
// a credential. "token" counts only as the last word, so token_count and input_tokens,
// which the logs need, stay readable.
var (
	secretKeyParts  = []string{"authorization", "api_key", "apikey", "password", "passwd", "secret", "cookie"}
	secretKeySuffix = "token"
)

// isSecretKey reports whether an attribute key names a credential, ignoring case and
// treating '-' like '_' (X-Api-Key, OPENAI_API_KEY, refresh_token, Set-Cookie).
func isSecretKey(key string) bool {
	k := strings.ReplaceAll(strings.ToLower(key), "-", "_")
	for _, p := range secretKeyParts {
		if strings.Contains(k, p) {
			return true
		}
	}
	return strings.HasSuffix(k, secretKeySuffix)
}

// secretText finds credential-shaped text. Order matters: a key=value pair is masked whole
// (with any Bearer/Basic scheme) before the bare shapes are looked for. The patterns are
// compiled on first use: a run that logs nothing pays nothing at start-up.
var secretText = sync.OnceValue(func() []secretPattern {
	return []secretPattern{
		// authorization: Bearer x, api_key=x, "password": "x", access_token=x&...
		{regexp.MustCompile(`(?i)((?:authorization|api[_-]?key|password|passwd|secret|cookie|token)["']?\s*[:=]\s*["']?)(?:(?:bearer|basic)\s+)?[^\s"'&,;}\]]+`), "${1}" + Redacted},
		{regexp.MustCompile(`(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]+`), "${1} " + Redacted},
		// OpenAI-style keys: sk-..., sk-proj-...
		{regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{8,}`), Redacted},
		// JWTs (ID and access tokens): base64url header "eyJ..." then payload and signature.
		{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`), Redacted},
	}
})

type secretPattern struct {
	re   *regexp.Regexp
	repl string
}

// RedactText masks every secret-looking substring of s.
func RedactText(s string) string {
	for _, p := range secretText() {
		s = p.re.ReplaceAllString(s, p.repl)
	}
	return s
}
