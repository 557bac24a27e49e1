package wire

import (
	"encoding/json"
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

// V2McpStartupStatus is mcpServer/startupStatus/updated: one MCP server of the thread
// changed its startup state (starting, ready, failed, cancelled).
type V2McpStartupStatus struct {
	ThreadID *string `json:"threadId"`
	Name     string  `json:"name"`
	// EnvironmentID (Codex 0.171) is null: gocodex registers servers in the local
	// environment only.
	EnvironmentID *string `json:"environmentId"`
	Status        string  `json:"status"`
	Error         *string `json:"error"`
	FailureReason *string `json:"failureReason"`
}

// applyMcp projects the MCP startup events; mcp_startup_complete has no v2 notification.
func (p *V2Projector) applyMcp(msg protocol.EventMsg) []V2Notification {
	m, ok := msg.(protocol.McpStartupUpdateEvent)
	if !ok {
		return nil
	}
	n, ok := V2McpStartupStatusOf(p.threadID, m)
	if !ok {
		return nil
	}
	return []V2Notification{{"mcpServer/startupStatus/updated", n}}
}

// V2McpStartupStatusOf reads an mcp_startup_update's status ({"state":…,"error":…}); ok
// is false for a status it cannot read.
func V2McpStartupStatusOf(threadID string, ev protocol.McpStartupUpdateEvent) (V2McpStartupStatus, bool) {
	var st struct {
		State string  `json:"state"`
		Error *string `json:"error"`
	}
	if err := json.Unmarshal(ev.Status, &st); err != nil || st.State == "" {
		return V2McpStartupStatus{}, false
	}
	if st.Error != nil && !strings.HasPrefix(*st.Error, "MCP ") {
		// A start that failed, in Codex's words (timeouts and lost connections say so
		// themselves).
		msg := "MCP client for `" + ev.Server + "` failed to start: MCP startup failed: " + *st.Error
		st.Error = &msg
	}
	n := V2McpStartupStatus{Name: ev.Server, Status: st.State, Error: st.Error}
	if threadID != "" {
		n.ThreadID = &threadID
	}
	return n, true
}
