package appserver

import (
	"strings"
	"time"

	threadsvc "github.com/gocodex/gocodex/internal/host/threads"
)

// Codex 0.171's search cursors name a place in the search's order: the sort time and the
// thread id ("2026-11-27T20:21:18Z|<id>" in creation order, whole seconds;
// "2026-12-08T00:26:54.753Z|<id>" by update, milliseconds). The backwards cursor is a bare
// time a millisecond before the page's first thread (after it, ascending), meant for the
// opposite sortDirection. A page continues strictly after its cursor.

const searchMillisLayout = "2006-01-02T15:04:05.000Z"

// searchPosition is a thread's place in a search's order, or a cursor's (bare: a time
// alone, from a backwards cursor).
type searchPosition struct {
	at   time.Time
	id   string
	bare bool
}

func positionOf(s threadsvc.Summary, byUpdated bool) searchPosition {
	if byUpdated {
		return searchPosition{at: s.UpdatedAt.Truncate(time.Millisecond), id: s.ID}
	}
	return searchPosition{at: s.CreatedAt.Truncate(time.Second), id: s.ID}
}

// parseSearchCursor reads a cursor a search answered, refusing anything else in Codex's words.
func parseSearchCursor(cursor string) (searchPosition, error) {
	at, id, hasID := strings.Cut(cursor, "|")
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil || (hasID && id == "") {
		return searchPosition{}, InvalidRequest("invalid cursor: " + cursor)
	}
	return searchPosition{at: t, id: id, bare: !hasID}, nil
}

// after reports whether p comes strictly after cursor in the search's direction (time,
// then id, both in that direction).
func (p searchPosition) after(cursor searchPosition, ascending bool) bool {
	c := p.at.Compare(cursor.at)
	if c == 0 && !cursor.bare {
		c = strings.Compare(p.id, cursor.id)
	}
	if ascending {
		return c > 0
	}
	return c < 0
}

// cursor is the next page's cursor when p is a page's last thread.
func (p searchPosition) cursor(byUpdated bool) string {
	if byUpdated {
		return p.at.UTC().Format(searchMillisLayout) + "|" + p.id
	}
	return p.at.UTC().Format(time.RFC3339) + "|" + p.id
}

// backwards is the backwards cursor of a page whose first thread is p.
func (p searchPosition) backwards(ascending bool) string {
	d := -time.Millisecond
	if ascending {
		d = time.Millisecond
	}
	return p.at.Add(d).UTC().Format(searchMillisLayout)
}
