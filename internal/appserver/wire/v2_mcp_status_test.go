package wire

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
)

func TestV2McpStartupStatus(t *testing.T) {
	thread := "th_1"
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name   string
		status string
		want   []V2Notification
	}{
		{"starting", `{"state":"starting"}`, []V2Notification{{"mcpServer/startupStatus/updated",
			V2McpStartupStatus{ThreadID: &thread, Name: "docs", Status: "starting"}}}},
		{"ready", `{"state":"ready"}`, []V2Notification{{"mcpServer/startupStatus/updated",
			V2McpStartupStatus{ThreadID: &thread, Name: "docs", Status: "ready"}}}},
		{"failed start", `{"state":"failed","error":"No such file or directory (os error 2)"}`, []V2Notification{{"mcpServer/startupStatus/updated",
			V2McpStartupStatus{ThreadID: &thread, Name: "docs", Status: "failed",
				Error: str("MCP client for `docs` failed to start: MCP startup failed: No such file or directory (os error 2)")}}}},
		{"timed out", `{"state":"failed","error":"MCP client for ` + "`docs`" + ` timed out after 1 seconds."}`, []V2Notification{{"mcpServer/startupStatus/updated",
			V2McpStartupStatus{ThreadID: &thread, Name: "docs", Status: "failed", Error: str("MCP client for `docs` timed out after 1 seconds.")}}}},
		{"cancelled", `{"state":"cancelled"}`, []V2Notification{{"mcpServer/startupStatus/updated",
			V2McpStartupStatus{ThreadID: &thread, Name: "docs", Status: "cancelled"}}}},
		{"unreadable", `"ready"`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewV2Projector(thread, nil)
			got := p.Apply(protocol.Event{ID: "", Msg: protocol.McpStartupUpdateEvent{Server: "docs", Status: json.RawMessage(tc.status)}})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// mcp_startup_complete has no v2 notification.
	if got := NewV2Projector(thread, nil).Apply(protocol.Event{Msg: protocol.McpStartupCompleteEvent{}}); len(got) != 0 {
		t.Errorf("mcp_startup_complete projected to %v", got)
	}
}

func FuzzV2McpStartupStatusOf(f *testing.F) {
	f.Add(`{"state":"failed","error":"boom"}`)
	f.Add(`{"state":"ready"}`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, status string) {
		n, ok := V2McpStartupStatusOf("th", protocol.McpStartupUpdateEvent{Server: "s", Status: json.RawMessage(status)})
		if ok && (n.Status == "" || n.Name != "s") {
			t.Fatalf("accepted %q as %+v", status, n)
		}
	})
}
