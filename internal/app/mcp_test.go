package app

import (
	"testing"
	"time"

	"github.com/gocodex/gocodex/internal/config"
)

func TestOptionalGrace(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want time.Duration
	}{
		{nil, 0},
		{"x", 0},
		{int64(2500), 2500 * time.Millisecond},
		{float64(300), 300 * time.Millisecond},
		{int64(0), time.Nanosecond},
		{int64(-5), time.Nanosecond},
	} {
		if got := optionalGrace(tc.in); got != tc.want {
			t.Errorf("optionalGrace(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestHasEnabledMcpServer(t *testing.T) {
	off := false
	if hasEnabledMcpServer(nil) {
		t.Error("no servers")
	}
	if hasEnabledMcpServer(map[string]config.McpServerConfig{"a": {Command: "x", Enabled: &off}}) {
		t.Error("only a disabled server")
	}
	if !hasEnabledMcpServer(map[string]config.McpServerConfig{"a": {Command: "x", Enabled: &off}, "b": {Command: "y"}}) {
		t.Error("one enabled server")
	}
}
