package testkit

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// ReferenceCodex returns the path of the real Codex binary installed by
// ../shared/tools/reference-codex (or named by GOCODEX_REFERENCE_CODEX), or "" when it is
// not installed. Tests that compare with it skip when it is missing; run it with CODEX_HOME
// set to a temporary directory written by WriteConfig, and always under a timeout.
func ReferenceCodex() string {
	if p := os.Getenv("GOCODEX_REFERENCE_CODEX"); p != "" {
		return p
	}
	cache := os.Getenv("CODEX_REF_CACHE")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return ""
			}
			base = filepath.Join(home, ".cache")
		}
		cache = filepath.Join(base, "gocodex-reference")
	}
	pkg, triple := "codex-linux-x64", "x86_64-unknown-linux-musl"
	if runtime.GOARCH == "arm64" {
		pkg, triple = "codex-linux-arm64", "aarch64-unknown-linux-musl"
	}
	p := filepath.Join(cache, "node_modules/@openai", pkg, "vendor", triple, "bin/codex")
	if st, err := os.Stat(p); err != nil || st.IsDir() {
		return ""
	}
	return p
}

// RateLimitHeaders are the x-codex-* headers a server sends with a rate-limit snapshot.
func RateLimitHeaders(primaryUsedPercent float64, windowMinutes int, resetAt int64) map[string]string {
	return map[string]string{
		"x-codex-primary-used-percent":   fmt.Sprintf("%g", primaryUsedPercent),
		"x-codex-primary-window-minutes": fmt.Sprint(windowMinutes),
		"x-codex-primary-reset-at":       fmt.Sprint(resetAt),
	}
}
