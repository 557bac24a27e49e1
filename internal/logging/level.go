package logging

import (
	"fmt"
	"log/slog"
	"strings"
)

// LevelEnv is the variable that sets the level.
const LevelEnv = "GOCODEX_LOG"

// levelOff is above every level a logger emits, so "off" writes nothing.
const levelOff = slog.LevelError + 100

// Level reads GOCODEX_LOG, else a level word in RUST_LOG; info by default.
func Level(getenv func(string) string) slog.Level {
	if lv, ok := parseLevel(getenv(LevelEnv)); ok {
		return lv
	}
	// RUST_LOG directives look like "warn" or "codex_core=debug,info": take the last word.
	directives := strings.Split(getenv("RUST_LOG"), ",")
	for i := len(directives) - 1; i >= 0; i-- {
		d := directives[i]
		if _, after, ok := strings.Cut(d, "="); ok {
			d = after
		}
		if lv, ok := parseLevel(d); ok {
			return lv
		}
	}
	return slog.LevelInfo
}

// levelProblem says why a set GOCODEX_LOG was not used, so a typo does not pass unnoticed.
func levelProblem(getenv func(string) string) error {
	v := getenv(LevelEnv)
	if _, ok := parseLevel(v); ok || strings.TrimSpace(v) == "" {
		return nil
	}
	return fmt.Errorf("log: %s=%q is not a level (trace, debug, info, warn, error, off); using %v", LevelEnv, v, Level(func(k string) string {
		if k == LevelEnv {
			return ""
		}
		return getenv(k)
	}))
}

func parseLevel(s string) (slog.Level, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "trace", "debug":
		return slog.LevelDebug, true
	case "info":
		return slog.LevelInfo, true
	case "warn", "warning":
		return slog.LevelWarn, true
	case "error":
		return slog.LevelError, true
	case "off", "none":
		return levelOff, true
	}
	return 0, false
}
