package model

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

// parseRateLimits reads the x-codex-* rate-limit headers. ok is false when none are present.
func parseRateLimits(h http.Header) (protocol.RateLimitSnapshot, bool) {
	var s protocol.RateLimitSnapshot
	s.Primary = parseWindow(h, "x-codex-primary")
	s.Secondary = parseWindow(h, "x-codex-secondary")
	if v := h.Get("x-codex-credits-has-credits"); v != "" {
		c := &protocol.CreditsSnapshot{HasCredits: parseBool(v), Unlimited: parseBool(h.Get("x-codex-credits-unlimited"))}
		if b := h.Get("x-codex-credits-balance"); b != "" {
			c.Balance = &b
		}
		s.Credits = c
	}
	if s.Primary == nil && s.Secondary == nil && s.Credits == nil {
		return s, false
	}
	id := "codex"
	s.LimitID = &id
	return s, true
}

func parseWindow(h http.Header, prefix string) *protocol.RateLimitWindow {
	used := h.Get(prefix + "-used-percent")
	if used == "" {
		return nil
	}
	pct, err := strconv.ParseFloat(strings.TrimSpace(used), 64)
	if err != nil {
		return nil
	}
	w := &protocol.RateLimitWindow{UsedPercent: pct}
	if v, err := strconv.ParseInt(strings.TrimSpace(h.Get(prefix+"-window-minutes")), 10, 64); err == nil {
		w.WindowMinutes = &v
	}
	if v, err := strconv.ParseInt(strings.TrimSpace(h.Get(prefix+"-reset-at")), 10, 64); err == nil {
		w.ResetsAt = &v
	}
	return w
}

func parseBool(v string) bool {
	b, _ := strconv.ParseBool(strings.TrimSpace(v))
	return b
}
