package appserver

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
)

// thread/metadata/update edits a thread's git metadata as Codex 0.169 does: each of sha,
// branch and originUrl is left alone when absent, cleared by null and replaced by a
// non-empty string. Codex keeps the edit in its state database; gocodex in the thread
// state file (v2_thread_state.go), and every later Thread object shows it.

type metadataUpdateParams struct {
	ThreadID string `json:"threadId"`
	// GitInfo is kept raw: absent, null and a value of each field mean different things.
	GitInfo map[string]json.RawMessage `json:"gitInfo"`
}

func (r *threads) registerMetadata(s *Server) {
	s.Handle("thread/metadata/update", Typed(r.metadataUpdate))
}

// gitFields maps the wire names to the gitInfo fields they edit.
var gitFields = []struct {
	name  string
	field func(*gitInfo) **string
}{
	{"sha", func(g *gitInfo) **string { return &g.Sha }},
	{"branch", func(g *gitInfo) **string { return &g.Branch }},
	{"originUrl", func(g *gitInfo) **string { return &g.OriginURL }},
}

func (r *threads) metadataUpdate(ctx context.Context, c *Conn, p metadataUpdateParams) (threadResponse, error) {
	if p.GitInfo == nil {
		return threadResponse{}, InvalidRequest("thread metadata update must include at least one field")
	}
	edits := map[string]*string{}
	for _, f := range gitFields {
		raw, ok := p.GitInfo[f.name]
		if !ok {
			continue
		}
		var v *string
		if err := json.Unmarshal(raw, &v); err != nil {
			return threadResponse{}, InvalidRequest("Invalid request: gitInfo." + f.name + ": expected a string or null")
		}
		if v != nil && *v == "" {
			return threadResponse{}, InvalidRequest("gitInfo." + f.name + " must not be empty")
		}
		edits[f.name] = v
	}
	if len(edits) == 0 {
		return threadResponse{}, InvalidRequest("gitInfo must include at least one field")
	}
	if _, err := uuid.Parse(p.ThreadID); err != nil {
		return threadResponse{}, InvalidRequest("invalid thread id: " + uuidError(p.ThreadID))
	}
	lt, loaded := r.get(p.ThreadID)
	var t v2Thread
	if loaded {
		t = lt.v2(false)
	} else {
		var err error
		if t, err = r.stored(p.ThreadID, false); err != nil {
			return threadResponse{}, errNoRollout(p.ThreadID)
		}
	}
	r.decorate(&t)
	t.CanAcceptDirectInput = nil // Codex 0.169 answers from its metadata store, loaded or not
	g := gitInfo{}
	if t.GitInfo != nil {
		g = *t.GitInfo
	}
	for _, f := range gitFields {
		if v, ok := edits[f.name]; ok {
			*f.field(&g) = v
		}
	}
	if err := r.gitEdits().Set(p.ThreadID, g); err != nil {
		return threadResponse{}, err
	}
	if loaded {
		lt.mu.Lock()
		gi := g
		lt.info.Git = &gi
		lt.mu.Unlock()
	}
	t.GitInfo = &g
	return threadResponse{t}, nil
}
