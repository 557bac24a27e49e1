package rollout

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// orderedEntry is one rollout file with what the orders compare.
type orderedEntry struct {
	path, name string
	mod        time.Time
}

// listOrdered serves the orders the folder layout does not give for free (by last update,
// or oldest first): it lists and stats every rollout, sorts, and reads heads from the
// cursor on. The cursor names the last entry returned: "o:" + its modification time in
// nanoseconds + "|" + its file name.
func listOrdered(codexHome string, opts ListOptions, size int) (Page, error) {
	var all []orderedEntry
	collect := func(p string) (bool, error) {
		if st, err := os.Stat(p); err == nil {
			all = append(all, orderedEntry{path: p, name: filepath.Base(p), mod: st.ModTime()})
		}
		return false, nil
	}
	var err error
	if opts.Archived {
		err = walkFlat(filepath.Join(codexHome, ArchivedDir), "", collect)
	} else {
		err = walkDated(filepath.Join(codexHome, SessionsDir), "", collect)
	}
	if err != nil {
		return Page{}, err
	}
	less := func(a, b orderedEntry) int { // ascending; reversed below for newest first
		if opts.ByUpdated {
			if c := a.mod.Compare(b.mod); c != 0 {
				return c
			}
		}
		return strings.Compare(a.name, b.name)
	}
	order := less
	if !opts.Ascending {
		order = func(a, b orderedEntry) int { return less(b, a) }
	}
	slices.SortFunc(all, order)
	start := 0
	if opts.Cursor != "" {
		cur, err := decodeOrderedCursor(opts.Cursor)
		if err != nil {
			return Page{}, err
		}
		start, _ = slices.BinarySearchFunc(all, cur, order)
		for start < len(all) && order(all[start], cur) <= 0 {
			start++
		}
	}
	var page Page
	h := newHeads()
	defer h.flush()
	for _, e := range all[start:] {
		s, ok := h.summary(e.path)
		if !ok || !matches(s, opts) {
			continue
		}
		s.UpdatedAt, s.Archived = e.mod, opts.Archived
		page.Threads = append(page.Threads, s)
		if len(page.Threads) == size {
			raw := "o:" + strconv.FormatInt(e.mod.UnixNano(), 10) + "|" + e.name
			page.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(raw))
			break
		}
	}
	return page, nil
}

func decodeOrderedCursor(c string) (orderedEntry, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	rest, ok := strings.CutPrefix(string(b), "o:")
	nanos, name, ok2 := strings.Cut(rest, "|")
	n, perr := strconv.ParseInt(nanos, 10, 64)
	if err != nil || !ok || !ok2 || perr != nil || !strings.HasPrefix(name, "rollout-") {
		return orderedEntry{}, fmt.Errorf("invalid cursor %q", c)
	}
	return orderedEntry{name: name, mod: time.Unix(0, n)}, nil
}
