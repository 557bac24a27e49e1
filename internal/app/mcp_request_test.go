package app

import (
	"path/filepath"
	"testing"

	"github.com/gocodex/gocodex/internal/config"
)

// Servers started for a request are waited for; their status says which state they are in,
// and a server the host does not have is an unknown server.
func TestStartMcpServersStatus(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	h := StartMcpServers(map[string]config.McpServerConfig{"a": {Command: missing}}, func(string) string { return "" }, nil, nil)
	defer func() {
		if err := h.Close(); err != nil {
			t.Error(err)
		}
	}()
	if _, err := h.Tools(t.Context(), "a"); err == nil {
		t.Fatal("a server whose command is missing started")
	}
	st, ok := h.Status("a")
	if !ok || !st.Failed || st.Ready || st.Cancelled || st.Err == nil {
		t.Errorf("status of a failed server = %+v, %v", st, ok)
	}
	if _, ok := h.Status("b"); ok {
		t.Error("status of a server the host does not have")
	}
	_, err := h.Tools(t.Context(), "b")
	if !IsUnknownMcpServer(err) {
		t.Errorf("tools of an unknown server: %v", err)
	}
	if got, want := UnknownMcpServer("b").Error(), "unknown MCP server 'b'"; got != want {
		t.Errorf("UnknownMcpServer = %q, want %q", got, want)
	}
	if !IsUnknownMcpServer(UnknownMcpServer("b")) {
		t.Error("UnknownMcpServer is not an unknown server")
	}
}
