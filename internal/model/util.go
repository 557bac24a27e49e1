package model

import (
	"net/url"
	"sort"
)

// CodexVersion is the Codex release whose wire behaviour this package reproduces; it is the
// version in the default User-Agent and the OpenAI provider's `version` header.
const CodexVersion = "0.169.0"

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func queryEscape(s string) string { return url.QueryEscape(s) }
