package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"sync"

	threadsvc "github.com/gocodex/gocodex/internal/host/threads"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// thread/search and thread/search/stream (experimental, Codex 0.171) find the stored threads
// whose visible messages contain a term, case-insensitively; the thread service reads the
// rollouts (threadsvc.SearchRollout), the listing filters, sorts and pages as thread/list
// does. The stream variant sends each match as a thread/search/partial as it is found, then
// the same final answer. thread/search/cancel and thread/search/stream/cancel stop a search
// of their own kind on the same connection, answering {} whatever the id; the search then
// answers Codex's -32600 "thread search cancelled".

// threadSearchParams is Codex 0.171's ThreadSearchParams.
type threadSearchParams struct {
	SearchTerm             string   `json:"searchTerm"`
	Archived               *bool    `json:"archived"`
	CurrentAccountOnly     *bool    `json:"currentAccountOnly"` // every local thread is the account's
	Cursor                 *string  `json:"cursor"`
	IncludeAttachedThreads *bool    `json:"includeAttachedThreads"`
	Limit                  *uint32  `json:"limit"`
	SortDirection          *string  `json:"sortDirection"`
	SortKey                *string  `json:"sortKey"`
	SourceKinds            []string `json:"sourceKinds"`
}

// threadSearchCancelParams is Codex 0.171's ThreadSearchCancelParams.
type threadSearchCancelParams struct {
	RequestID jsonrpc.ID `json:"requestId"`
}

// ThreadSearchResponse is Codex 0.171's ThreadSearchResponse.
type ThreadSearchResponse struct {
	Data            []ThreadSearchResult `json:"data"`
	NextCursor      *string              `json:"nextCursor"`
	BackwardsCursor *string              `json:"backwardsCursor"`
}

// ThreadSearchCancelResponse is Codex 0.171's (empty) ThreadSearchCancelResponse.
type ThreadSearchCancelResponse struct{}

// searchTermMaxBytes bounds a trimmed search term, as Codex 0.171 documents for the stream.
const searchTermMaxBytes = 65536

func (r *threads) registerThreadSearch(s *Server) {
	search := func(method string, stream bool) TypedHandler {
		h := Typed(func(ctx context.Context, c *Conn, p threadSearchParams) (ThreadSearchResponse, error) {
			if err := requireExperimental(c, method); err != nil {
				return ThreadSearchResponse{}, err
			}
			return r.search(ctx, c, p, stream)
		})
		h.required = []string{"searchTerm"}
		return h
	}
	cancel := func(method string, stream bool) TypedHandler {
		h := Typed(func(ctx context.Context, c *Conn, p threadSearchCancelParams) (ThreadSearchCancelResponse, error) {
			if err := requireExperimental(c, method); err != nil {
				return ThreadSearchCancelResponse{}, err
			}
			searchesOf(c).cancel(p.RequestID, stream)
			return ThreadSearchCancelResponse{}, nil
		})
		h.required = []string{"requestId"}
		return h
	}
	s.Handle("thread/search", search("thread/search", false))
	s.Handle("thread/search/stream", search("thread/search/stream", true))
	s.Handle("thread/search/cancel", cancel("thread/search/cancel", false))
	s.Handle("thread/search/stream/cancel", cancel("thread/search/stream/cancel", true))
}

// search runs one search under a context its cancel request can end.
func (r *threads) search(ctx context.Context, c *Conn, p threadSearchParams, stream bool) (ThreadSearchResponse, error) {
	term := strings.TrimSpace(p.SearchTerm)
	if term == "" {
		return ThreadSearchResponse{}, InvalidRequest("thread/search requires a non-empty searchTerm")
	}
	if len(term) > searchTermMaxBytes {
		return ThreadSearchResponse{}, InvalidRequest("thread/search searchTerm exceeds 65536 bytes")
	}
	if p.IncludeAttachedThreads != nil && *p.IncludeAttachedThreads {
		// Said, not ignored: the threads attached to a parent are not searched here.
		return ThreadSearchResponse{}, InvalidRequest("thread/search includeAttachedThreads is not supported by gocodex")
	}
	opts, keepListed, err := searchListOptions(p)
	if err != nil {
		return ThreadSearchResponse{}, err
	}
	store := threadsvc.New(codexHome(r.srv))
	var from *searchPosition
	if opts.Cursor != "" {
		pos, err := parseSearchCursor(opts.Cursor)
		if err != nil {
			return ThreadSearchResponse{}, err
		}
		from, opts.Cursor = &pos, "" // the listing is walked from its start, the cursor kept here
	}
	ctx, done := searchesOf(c).start(ctx, requestIDOf(ctx), stream)
	defer done()

	pageSize := opts.PageSize
	if pageSize <= 0 {
		pageSize = 25 // thread/list's
	}
	snippets := map[string]string{}
	positions := map[string]searchPosition{}
	var readErr error
	keep := func(s threadsvc.Summary, t *v2Thread) bool {
		pos := positionOf(s, opts.ByUpdated)
		if ctx.Err() != nil || readErr != nil || (from != nil && !pos.after(*from, opts.Ascending)) {
			return false
		}
		if keepListed != nil && !keepListed(t) {
			return false
		}
		snippet, found, err := store.SearchRollout(ctx, s.Path, term)
		if errors.Is(err, fs.ErrNotExist) {
			return false // deleted or archived since it was listed
		}
		if err != nil {
			readErr = err
			return false
		}
		if !found {
			return false
		}
		snippets[s.ID], positions[s.ID] = snippet, pos
		if stream && len(snippets) <= pageSize { // past it: the match that says a next page exists
			row := ThreadSearchResult{Thread: *t, Snippet: snippet}
			withPersistedSettings(&row.Thread, s) // Codex's partial rows carry the stored model
			n := ThreadSearchPartialNotification{RequestID: json.RawMessage(searchKey(requestIDOf(ctx))), Data: []ThreadSearchResult{row}}
			_ = c.Notify(ctx, "thread/search/partial", n)
		}
		return true
	}
	page, err := r.filteredPage(opts, keep, true)
	switch {
	case ctx.Err() != nil:
		return ThreadSearchResponse{}, InvalidRequest("thread search cancelled")
	case readErr != nil:
		return ThreadSearchResponse{}, internalError("thread search failed: " + readErr.Error())
	case err != nil:
		return ThreadSearchResponse{}, err
	}
	out := ThreadSearchResponse{Data: []ThreadSearchResult{}, NextCursor: page.NextCursor, BackwardsCursor: page.BackwardsCursor}
	for _, t := range page.Data {
		out.Data = append(out.Data, ThreadSearchResult{Thread: t, Snippet: snippets[t.ID]})
	}
	if n := len(page.Data); n > 0 {
		back := positions[page.Data[0].ID].backwards(opts.Ascending)
		out.BackwardsCursor = &back
		if out.NextCursor != nil {
			next := positions[page.Data[n-1].ID].cursor(opts.ByUpdated)
			out.NextCursor = &next
		}
	}
	return out, nil
}

// searchListOptions are the listing a search walks: thread/list's, from the search params.
func searchListOptions(p threadSearchParams) (threadsvc.ListOptions, func(*v2Thread) bool, error) {
	var opts threadsvc.ListOptions
	if p.Limit != nil {
		opts.PageSize = int(*p.Limit)
	}
	if p.Cursor != nil {
		opts.Cursor = *p.Cursor
	}
	if p.Archived != nil {
		opts.Archived = *p.Archived
	}
	if p.SortKey != nil {
		switch *p.SortKey {
		case "created_at":
		case "updated_at", "recency_at": // a stored thread's recency is its last update
			opts.ByUpdated = true
		default:
			return opts, nil, InvalidRequest("Invalid request: unknown variant `" + *p.SortKey + "`, expected one of `created_at`, `updated_at`, `recency_at`")
		}
	}
	if p.SortDirection != nil {
		switch *p.SortDirection {
		case "asc":
			opts.Ascending = true
		case "desc":
		default:
			return opts, nil, InvalidRequest("Invalid request: unknown variant `" + *p.SortDirection + "`, expected `asc` or `desc`")
		}
	}
	keep, err := applyListFilters(threadListParams{SourceKinds: p.SourceKinds}, &opts)
	return opts, keep, err
}

// runningSearches are a connection's searches in flight, by request id, so a cancel
// request can end one.
type runningSearches struct {
	mu      sync.Mutex
	running map[string]runningSearch
}

type runningSearch struct {
	stream bool
	cancel context.CancelFunc
}

type runningSearchesKey struct{}

func searchesOf(c *Conn) *runningSearches {
	return c.ValueOrInit(runningSearchesKey{}, func() any {
		return &runningSearches{running: map[string]runningSearch{}}
	}).(*runningSearches)
}

// start registers the search served under id; done forgets it and releases its context.
func (s *runningSearches) start(ctx context.Context, id jsonrpc.ID, stream bool) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	key := searchKey(id)
	s.mu.Lock()
	s.running[key] = runningSearch{stream: stream, cancel: cancel}
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		delete(s.running, key)
		s.mu.Unlock()
		cancel()
	}
}

// cancel ends the search of that kind under id, if one runs (a finished or unknown id is
// no error, as in Codex).
func (s *runningSearches) cancel(id jsonrpc.ID, stream bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if run, ok := s.running[searchKey(id)]; ok && run.stream == stream {
		run.cancel()
	}
}

// searchKey tells a numeric id from the same digits as a string.
func searchKey(id jsonrpc.ID) string {
	b, _ := json.Marshal(id)
	return string(b)
}
