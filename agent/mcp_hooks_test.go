package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
)

func TestOnStartedEmitsOutsideTurns(t *testing.T) {
	started := make(chan func(protocol.EventMsg), 1)
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.OnStarted = func(emit func(protocol.EventMsg)) { started <- emit }
	}})
	defer h.shutdown()
	emit := <-started
	emit(protocol.McpStartupUpdateEvent{Server: "docs", Status: json.RawMessage(`{"state":"ready"}`)})
	evs := h.until(isType("mcp_startup_update"))
	ev, ok := find[protocol.McpStartupUpdateEvent](evs)
	if !ok || ev.Server != "docs" {
		t.Fatalf("events %v", types(evs))
	}
}

func TestListMcpToolsOp(t *testing.T) {
	want := protocol.McpListToolsResponseEvent{
		Tools:             map[string]json.RawMessage{"mcp__docs__find": json.RawMessage(`{"name":"find"}`)},
		Resources:         map[string]json.RawMessage{},
		ResourceTemplates: map[string]json.RawMessage{},
		AuthStatuses:      map[string]json.RawMessage{"docs": json.RawMessage(`"unsupported"`)},
	}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.ListMcpTools = func(context.Context) protocol.McpListToolsResponseEvent { return want }
	}})
	defer h.shutdown()
	h.submit(protocol.ListMcpToolsOp{})
	got, ok := find[protocol.McpListToolsResponseEvent](h.until(isType("mcp_list_tools_response")))
	if !ok {
		t.Fatal("no mcp_list_tools_response")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

func TestListMcpToolsOpWithoutManager(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	defer h.shutdown()
	h.submit(protocol.ListMcpToolsOp{})
	got, ok := find[protocol.McpListToolsResponseEvent](h.until(isType("mcp_list_tools_response")))
	if !ok || got.Tools == nil || len(got.Tools) != 0 {
		t.Fatalf("response %+v", got)
	}
}
