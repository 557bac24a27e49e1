package model

import (
	"testing"
	"time"
)

func TestUsageLimitMessages(t *testing.T) {
	tests := []struct{ plan, want string }{
		{"", "You’ve hit your usage limit. Try again later."},
		{"plus", "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again later."},
		{"pro", "You’ve hit your usage limit. Visit https://chatgpt.com/settings/usage to purchase more credits or try again later."},
		{"free", "You’ve hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again later."},
		{"team", "You’ve hit your usage limit. To get more access now, send a request to your admin or try again later."},
		{"business", "You’ve hit your usage limit. To get more access now, send a request to your admin or try again later."},
		{"enterprise", "You’ve hit your usage limit. Try again later."},
	}
	for _, tt := range tests {
		e := &Error{Kind: KindUsageLimitReached, PlanType: tt.plan}
		if got := e.Error(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.plan, got, tt.want)
		}
	}
}

func TestFormatReset(t *testing.T) {
	now := time.Date(2026, 11, 22, 8, 37, 0, 0, time.UTC)
	tests := []struct {
		t    time.Time
		want string
	}{
		{time.Date(2026, 11, 22, 8, 42, 0, 0, time.UTC), "8:42 AM"},
		{time.Date(2026, 11, 24, 9, 37, 0, 0, time.UTC), "Nov 24th, 2026 9:37 AM"},
		{time.Date(2026, 12, 1, 13, 5, 0, 0, time.UTC), "Dec 1st, 2026 1:05 PM"},
		{time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), "Dec 2nd, 2026 12:00 AM"},
		{time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC), "Dec 3rd, 2026 12:00 AM"},
		{time.Date(2026, 12, 11, 0, 0, 0, 0, time.UTC), "Dec 11th, 2026 12:00 AM"},
		{time.Date(2026, 12, 23, 0, 0, 0, 0, time.UTC), "Dec 23rd, 2026 12:00 AM"},
	}
	for _, tt := range tests {
		if got := formatReset(tt.t, now); got != tt.want {
			t.Errorf("%v: got %q want %q", tt.t, got, tt.want)
		}
	}
}
