package appserver

import (
	"strconv"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/rollout"
)

// Backwards cursors, as Codex 0.169 sends them with every non-empty page of thread/list,
// thread/turns/list and thread/items/list (and with thread/resume and thread/revert): a
// cursor for the opposite sortDirection whose first page starts again at this page's first
// entry. Codex's are opaque strings; so are ours, each in the form its list method takes.

// threadListBackwardsCursor anchors at the page's first thread.
func threadListBackwardsCursor(first rollout.ThreadSummary, opts rollout.ListOptions) *string {
	c := rollout.BackwardsCursor(first, opts)
	if c == "" {
		return nil
	}
	return &c
}

// turnsBackwardsCursor: thread/turns/list's cursor is the id of the first turn to return.
func turnsBackwardsCursor(page []wire.V2Turn) *string {
	if len(page) == 0 {
		return nil
	}
	id := page[0].ID
	return &id
}

// itemsBackwardsCursor: thread/items/list's cursor is a position in the list as sorted; the
// page's first entry, at start of n, is at n-1-start the other way round.
func itemsBackwardsCursor(start, pageLen, n int) *string {
	if pageLen == 0 {
		return nil
	}
	c := strconv.Itoa(n - 1 - start)
	return &c
}

// threadResumeResponse is thread/resume's answer: the settings and the cursors to hydrate
// the newest turns and items with (sortDirection "desc").
type threadResumeResponse struct {
	threadSettings
	TurnsBackwardsCursor *string `json:"turnsBackwardsCursor"`
	ItemsBackwardsCursor *string `json:"itemsBackwardsCursor"`
}

// resumeCursors anchors at the newest turn and the newest item of turns.
func resumeCursors(turns []wire.V2Turn) (turnsCursor, itemsCursor *string) {
	if len(turns) == 0 {
		return nil, nil
	}
	last := turns[len(turns)-1].ID
	n := 0
	for _, t := range turns {
		n += len(t.Items)
	}
	if n > 0 {
		zero := "0" // the newest item comes first when sorted newest first
		itemsCursor = &zero
	}
	return &last, itemsCursor
}
