package rollout

import (
	"encoding/base64"
	"path/filepath"
	"strconv"
)

// BackwardsCursor is a cursor for List with the opposite order of opts (Ascending flipped,
// ByUpdated kept) whose first page starts at s, the first thread of a page listed with
// opts: the app-server's "backwardsCursor". The cursors List takes are exclusive, so this
// one names a position just before s in the opposite order: s's file name with its last
// byte cut (just below it) or with a NUL added (just above it); no other rollout name can
// sort between either and s's own.
func BackwardsCursor(s ThreadSummary, opts ListOptions) string {
	name := filepath.Base(s.Path)
	if name == "." || len(name) < 2 {
		return ""
	}
	reversedAscending := !opts.Ascending
	anchor := name + "\x00" // above s: a descending walk starts at s
	if reversedAscending {
		anchor = name[:len(name)-1] // below s: an ascending walk starts at s
	}
	if !reversedAscending && !opts.ByUpdated {
		// Newest first by creation: List's own cursor, a file name.
		return base64.RawURLEncoding.EncodeToString([]byte(anchor))
	}
	raw := "o:" + strconv.FormatInt(s.UpdatedAt.UnixNano(), 10) + "|" + anchor
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// CursorAfter is List's cursor for the page after s in the order of opts: s's own position,
// which List's exclusive cursors skip. A caller that filters a page itself ends its page
// at s with it.
func CursorAfter(s ThreadSummary, opts ListOptions) string {
	name := filepath.Base(s.Path)
	if !opts.Ascending && !opts.ByUpdated {
		return base64.RawURLEncoding.EncodeToString([]byte(name))
	}
	raw := "o:" + strconv.FormatInt(s.UpdatedAt.UnixNano(), 10) + "|" + name
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}
