package wire

import "github.com/gocodex/gocodex/protocol"

// V2HookNotification is hook/started and hook/completed.
type V2HookNotification struct {
	ThreadID string           `json:"threadId"`
	TurnID   *string          `json:"turnId"`
	Run      V2HookRunSummary `json:"run"`
}

// V2HookRunSummary is one lifecycle hook run (HookRunSummary).
type V2HookRunSummary struct {
	ID            string                     `json:"id"`
	EventName     string                     `json:"eventName"`
	HandlerType   string                     `json:"handlerType"`
	ExecutionMode string                     `json:"executionMode"`
	Scope         string                     `json:"scope"`
	SourcePath    string                     `json:"sourcePath"`
	Source        string                     `json:"source"`
	DisplayOrder  int64                      `json:"displayOrder"`
	Status        string                     `json:"status"`
	StatusMessage *string                    `json:"statusMessage"`
	StartedAt     int64                      `json:"startedAt"`
	CompletedAt   *int64                     `json:"completedAt"`
	DurationMs    *int64                     `json:"durationMs"`
	Entries       []protocol.HookOutputEntry `json:"entries"`
}

func (p *V2Projector) hookNotification(turnID *string, r protocol.HookRunSummary) V2HookNotification {
	entries := r.Entries
	if entries == nil {
		entries = []protocol.HookOutputEntry{}
	}
	return V2HookNotification{ThreadID: p.threadID, TurnID: turnID, Run: V2HookRunSummary{
		ID: r.ID, EventName: Camel(r.EventName), HandlerType: Camel(r.HandlerType), ExecutionMode: r.ExecutionMode, Scope: r.Scope,
		SourcePath: r.SourcePath, Source: Camel(r.Source), DisplayOrder: r.DisplayOrder, Status: string(r.Status),
		StatusMessage: r.StatusMessage, StartedAt: r.StartedAt, CompletedAt: r.CompletedAt, DurationMs: r.DurationMs, Entries: entries,
	}}
}
