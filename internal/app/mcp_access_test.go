package app

import (
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/mcp"
	"github.com/gocodex/gocodex/protocol"
)

// eventLog records a manager's startup events as "server:state" and "complete".
type eventLog struct {
	mu   sync.Mutex
	seen []string
	done chan struct{} // receives at each mcp_startup_complete
}

func (l *eventLog) emit(ev protocol.EventMsg) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch m := ev.(type) {
	case protocol.McpStartupUpdateEvent:
		var st struct{ State string }
		_ = json.Unmarshal(m.Status, &st)
		l.seen = append(l.seen, m.Server+":"+st.State)
	case protocol.McpStartupCompleteEvent:
		l.seen = append(l.seen, "complete")
		l.done <- struct{}{}
	}
}

func (l *eventLog) take() []string {
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.seen
	l.seen = nil
	return out
}

// A reload replaces the servers and reports their startup like the first start; a closed
// host ignores reloads.
func TestMcpHostReload(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	log := &eventLog{done: make(chan struct{}, 4)}
	h := newMcpHost(mcp.Options{Servers: map[string]config.McpServerConfig{"a": {Command: missing}}, OnEvent: log.emit})
	h.Manager().Start()
	if diff := cmp.Diff([]string{"a:starting", "a:failed", "complete"}, log.take()); diff != "" {
		t.Errorf("first start (-want +got):\n%s", diff)
	}

	h.Reload(map[string]config.McpServerConfig{"b": {Command: missing}, "c": {Command: missing}})
	got := log.take()
	if diff := cmp.Diff([]string{"b:starting", "c:starting"}, got[:2]); diff != "" {
		t.Errorf("reload (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b", "c"}, h.Names()); diff != "" {
		t.Errorf("names after reload (-want +got):\n%s", diff)
	}
	if _, err := h.Tools(t.Context(), "a"); err == nil {
		t.Error("the old server is still offered")
	}

	if err := h.close(); err != nil {
		t.Fatal(err)
	}
	h.Reload(map[string]config.McpServerConfig{"d": {Command: missing}})
	if diff := cmp.Diff([]string{"b", "c"}, h.Names()); diff != "" {
		t.Errorf("a closed host reloaded (-want +got):\n%s", diff)
	}
}
