package appserver

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// ThreadItemsList (thread/items/list) pages through a thread's items (all turns, or one), oldest first unless asked
// otherwise. The cursor is the position to continue from; item anchors start over.
func (a *api) ThreadItemsList(ctx context.Context, c *Conn, p ThreadItemsListParams) (ThreadItemsListResponse, error) {
	r := a.r
	var turns []wire.V2Turn
	if lt, ok := r.get(p.ThreadID); ok {
		turns = lt.turns()
	} else {
		t, err := r.stored(p.ThreadID, true)
		if isNoThread(err, p.ThreadID) {
			// Codex 0.169's words for a thread it has neither loaded nor stored.
			return ThreadItemsListResponse{}, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "thread/items/list is not supported yet"}
		}
		if err != nil {
			return ThreadItemsListResponse{}, err
		}
		turns = t.Turns
	}
	entries := []ThreadItemEntry{}
	for _, t := range turns {
		if p.TurnID != nil && *p.TurnID != "" && t.ID != *p.TurnID {
			continue
		}
		for _, it := range t.Items {
			s, e := it.Times()
			entries = append(entries, ThreadItemEntry{TurnID: t.ID, Item: it, StartedAtMs: s, CompletedAtMs: e})
		}
	}
	if p.SortDirection != nil && *p.SortDirection == "desc" {
		for i, j := 0, len(entries)-1; i < j; i, j = i+1, j-1 {
			entries[i], entries[j] = entries[j], entries[i]
		}
	}
	start := 0
	var cur string
	if json.Unmarshal(p.Cursor, &cur) == nil {
		if n, err := strconv.Atoi(cur); err == nil && n >= 0 && n <= len(entries) {
			start = n
		}
	}
	end := len(entries)
	if p.Limit != nil && *p.Limit > 0 && start+int(*p.Limit) < end {
		end = start + int(*p.Limit)
	}
	out := ThreadItemsListResponse{Data: entries[start:end]}
	out.BackwardsCursor = itemsBackwardsCursor(start, end-start, len(entries))
	if end < len(entries) {
		next := strconv.Itoa(end)
		out.NextCursor = &next
	}
	return out, nil
}
