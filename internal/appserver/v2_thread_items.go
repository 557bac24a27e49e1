package appserver

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

type itemsListParams struct {
	ThreadID      string          `json:"threadId"`
	TurnID        *string         `json:"turnId"`
	Cursor        json.RawMessage `json:"cursor"`
	Limit         *int            `json:"limit"`
	SortDirection *string         `json:"sortDirection"`
}

type itemEntry struct {
	TurnID        string      `json:"turnId"`
	Item          wire.V2Item `json:"item"`
	StartedAtMs   *int64      `json:"startedAtMs"`
	CompletedAtMs *int64      `json:"completedAtMs"`
}

type itemsListResponse struct {
	Data            []itemEntry `json:"data"`
	NextCursor      *string     `json:"nextCursor"`
	BackwardsCursor *string     `json:"backwardsCursor"`
}

// itemsList pages through a thread's items (all turns, or one), oldest first unless asked
// otherwise. The cursor is the position to continue from; item anchors start over.
func (r *threads) itemsList(ctx context.Context, c *Conn, p itemsListParams) (itemsListResponse, error) {
	var turns []wire.V2Turn
	if lt, ok := r.get(p.ThreadID); ok {
		turns = lt.turns()
	} else {
		t, err := r.stored(p.ThreadID, true)
		if isNoThread(err, p.ThreadID) {
			// Codex 0.169's words for a thread it has neither loaded nor stored.
			return itemsListResponse{}, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "thread/items/list is not supported yet"}
		}
		if err != nil {
			return itemsListResponse{}, err
		}
		turns = t.Turns
	}
	entries := []itemEntry{}
	for _, t := range turns {
		if p.TurnID != nil && *p.TurnID != "" && t.ID != *p.TurnID {
			continue
		}
		for _, it := range t.Items {
			s, e := it.Times()
			entries = append(entries, itemEntry{TurnID: t.ID, Item: it, StartedAtMs: s, CompletedAtMs: e})
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
	if p.Limit != nil && *p.Limit > 0 && start+*p.Limit < end {
		end = start + *p.Limit
	}
	out := itemsListResponse{Data: entries[start:end]}
	out.BackwardsCursor = itemsBackwardsCursor(start, end-start, len(entries))
	if end < len(entries) {
		next := strconv.Itoa(end)
		out.NextCursor = &next
	}
	return out, nil
}
