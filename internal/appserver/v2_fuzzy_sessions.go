package appserver

import (
	"context"
	"sync"
)

// Fuzzy file search sessions (experimental), as Codex 0.169 runs them: sessionStart keeps
// the roots under a client-chosen id and reports an empty search; each sessionUpdate searches
// them for its query and, once answered, sends fuzzyFileSearch/sessionUpdated with the
// matches, then fuzzyFileSearch/sessionCompleted; sessionStop forgets the session (stopping
// an unknown one is fine). Sessions belong to their connection.

type fuzzySessionStartParams struct {
	SessionID string   `json:"sessionId"`
	Roots     []string `json:"roots"`
}

type fuzzySessionUpdateParams struct {
	SessionID string `json:"sessionId"`
	Query     string `json:"query"`
}

type fuzzySessionStopParams struct {
	SessionID string `json:"sessionId"`
}

// fuzzySession is one session's roots; mu keeps its searches' notifications in query order.
type fuzzySession struct {
	mu    sync.Mutex
	roots []string
}

type fuzzySessionsKey struct{}

// fuzzySessions is c's session table, made on first use.
func fuzzySessions(c *Conn) map[string]*fuzzySession {
	m, _ := c.values[fuzzySessionsKey{}].(map[string]*fuzzySession)
	if m == nil {
		m = map[string]*fuzzySession{}
		c.values[fuzzySessionsKey{}] = m
	}
	return m
}

func registerFuzzySessions(s *Server) {
	s.Handle("fuzzyFileSearch/sessionStart", Typed(func(ctx context.Context, c *Conn, p fuzzySessionStartParams) (struct{}, error) {
		if err := requireExperimental(c, "fuzzyFileSearch/sessionStart"); err != nil {
			return struct{}{}, err
		}
		if len(p.Roots) == 0 {
			return struct{}{}, internalError("failed to start fuzzy file search session: at least one search directory is required")
		}
		fs := &fuzzySession{roots: append([]string(nil), p.Roots...)}
		c.mu.Lock()
		fuzzySessions(c)[p.SessionID] = fs
		c.mu.Unlock()
		fs.searchAfter(ctx, c, p.SessionID, "")
		return struct{}{}, nil
	}))
	s.Handle("fuzzyFileSearch/sessionUpdate", Typed(func(ctx context.Context, c *Conn, p fuzzySessionUpdateParams) (struct{}, error) {
		if err := requireExperimental(c, "fuzzyFileSearch/sessionUpdate"); err != nil {
			return struct{}{}, err
		}
		c.mu.Lock()
		fs := fuzzySessions(c)[p.SessionID]
		c.mu.Unlock()
		if fs == nil {
			return struct{}{}, InvalidRequest("fuzzy file search session not found: " + p.SessionID)
		}
		fs.searchAfter(ctx, c, p.SessionID, p.Query)
		return struct{}{}, nil
	}))
	s.Handle("fuzzyFileSearch/sessionStop", Typed(func(ctx context.Context, c *Conn, p fuzzySessionStopParams) (struct{}, error) {
		if err := requireExperimental(c, "fuzzyFileSearch/sessionStop"); err != nil {
			return struct{}{}, err
		}
		c.mu.Lock()
		delete(fuzzySessions(c), p.SessionID)
		c.mu.Unlock()
		return struct{}{}, nil
	}))
}

// searchAfter searches once the request's answer is out (ctx done) and reports the matches.
// The search runs under the connection's context: it stops when the client goes away.
func (fs *fuzzySession) searchAfter(ctx context.Context, c *Conn, id, query string) {
	context.AfterFunc(ctx, func() {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		res := fuzzySearch(c.Context(), FuzzyFileSearchParams{Query: query, Roots: fs.roots})
		_ = c.Notify(c.Context(), "fuzzyFileSearch/sessionUpdated", FuzzyFileSearchSessionUpdatedNotification{SessionID: id, Query: query, Files: res.Files})
		_ = c.Notify(c.Context(), "fuzzyFileSearch/sessionCompleted", FuzzyFileSearchSessionCompletedNotification{SessionID: id})
	})
}
