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

// gitInfoEdits is thread/metadata/update's gitInfo, kept raw: absent, null and a value of
// each field mean different things.
type gitInfoEdits map[string]json.RawMessage

// gitFields maps the wire names to the gitInfo fields they edit.
var gitFields = []struct {
	name  string
	field func(*gitInfo) **string
}{
	{"sha", func(g *gitInfo) **string { return &g.Sha }},
	{"branch", func(g *gitInfo) **string { return &g.Branch }},
	{"originUrl", func(g *gitInfo) **string { return &g.OriginURL }},
}

// ThreadMetadataUpdate answers thread/metadata/update.
func (a *api) ThreadMetadataUpdate(ctx context.Context, c *Conn, p ThreadMetadataUpdateParams) (ThreadMetadataUpdateResponse, error) {
	r := a.r
	if p.GitInfo == nil {
		return ThreadMetadataUpdateResponse{}, InvalidRequest("thread metadata update must include at least one field")
	}
	edits := map[string]*string{}
	for _, f := range gitFields {
		raw, ok := (*p.GitInfo)[f.name]
		if !ok {
			continue
		}
		var v *string
		if err := json.Unmarshal(raw, &v); err != nil {
			return ThreadMetadataUpdateResponse{}, InvalidRequest("Invalid request: gitInfo." + f.name + ": expected a string or null")
		}
		if v != nil && *v == "" {
			return ThreadMetadataUpdateResponse{}, InvalidRequest("gitInfo." + f.name + " must not be empty")
		}
		edits[f.name] = v
	}
	if len(edits) == 0 {
		return ThreadMetadataUpdateResponse{}, InvalidRequest("gitInfo must include at least one field")
	}
	if _, err := uuid.Parse(p.ThreadID); err != nil {
		return ThreadMetadataUpdateResponse{}, InvalidRequest("invalid thread id: " + uuidError(p.ThreadID))
	}
	lt, loaded := r.get(p.ThreadID)
	var t v2Thread
	if loaded {
		t = lt.v2(false)
	} else {
		var err error
		if t, err = r.stored(p.ThreadID, false); err != nil {
			return ThreadMetadataUpdateResponse{}, errNoRollout(p.ThreadID)
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
		return ThreadMetadataUpdateResponse{}, err
	}
	if loaded {
		lt.mu.Lock()
		gi := g
		lt.info.Git = &gi
		lt.mu.Unlock()
	}
	t.GitInfo = &g
	return ThreadMetadataUpdateResponse{t}, nil
}
