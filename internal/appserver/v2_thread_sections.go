package appserver

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/host/ext"
	"github.com/gocodex/gocodex/internal/host/sections"
	threadsvc "github.com/gocodex/gocodex/internal/host/threads"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// Thread sections (threadSection/*, thread/section/move) are kept by the host's sections
// extension (internal/host/sections). As in Codex 0.169, moving a thread tells every
// connection thread/section/changed; deleting a section takes its threads out of it
// without a notification.

type v2ThreadSection = sections.Section

type v2ThreadSectionAppearance = sections.Appearance

// invalidParamsBare is a -32602 error with Codex's text alone (no "Invalid params:" prefix),
// as its thread section and attachment methods answer.
func invalidParamsBare(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// sections is the host's sections extension.
func (r *threads) sections() *sections.Extension {
	e, _ := ext.Find[*sections.Extension](r.extensions())
	return e
}

// ThreadSectionCreate answers threadSection/create.
func (a *api) ThreadSectionCreate(ctx context.Context, c *Conn, p ThreadSectionCreateParams) (ThreadSectionCreateResponse, error) {
	sec, err := a.r.sections().Create(p.Name, p.Appearance)
	return ThreadSectionCreateResponse{sec}, err
}

// ThreadSectionUpdate answers threadSection/update.
func (a *api) ThreadSectionUpdate(ctx context.Context, c *Conn, p ThreadSectionUpdateParams) (ThreadSectionUpdateResponse, error) {
	sec, err := a.r.sections().Update(p.SectionID, p.Name, p.Appearance)
	return ThreadSectionUpdateResponse{sec}, err
}

// ThreadSectionDelete answers threadSection/delete.
func (a *api) ThreadSectionDelete(ctx context.Context, c *Conn, p ThreadSectionDeleteParams) (ThreadSectionDeleteResponse, error) {
	return ThreadSectionDeleteResponse{}, a.r.sections().Delete(p.SectionID)
}

// ThreadSectionList answers threadSection/list, paged by section id: the cursor is the last
// id of the previous page.
func (a *api) ThreadSectionList(ctx context.Context, c *Conn, p ThreadSectionListParams) (ThreadSectionListResponse, error) {
	all, err := a.r.sections().List()
	if err != nil {
		return ThreadSectionListResponse{}, err
	}
	if p.Cursor != nil {
		for i, s := range all {
			if s.ID == *p.Cursor {
				all = all[i+1:]
				break
			}
		}
	}
	out := ThreadSectionListResponse{Data: all}
	if p.Limit != nil && *p.Limit > 0 && len(all) > int(*p.Limit) {
		out.Data = all[:*p.Limit]
		next := out.Data[len(out.Data)-1].ID
		out.NextCursor = &next
	}
	if out.Data == nil {
		out.Data = []v2ThreadSection{}
	}
	return out, nil
}

// ThreadSectionMove answers thread/section/move.
func (a *api) ThreadSectionMove(ctx context.Context, c *Conn, p ThreadSectionMoveParams) (ThreadSectionMoveResponse, error) {
	if err := a.r.threadExists(p.ThreadID); err != nil {
		return ThreadSectionMoveResponse{}, err
	}
	if err := a.r.sections().Move(p.ThreadID, p.SectionID, p.BeforeThreadID); err != nil {
		return ThreadSectionMoveResponse{}, err
	}
	a.r.notifyAll(ctx, c, "thread/section/changed", ThreadSectionChangedNotification{ThreadID: p.ThreadID, SectionID: p.SectionID})
	return ThreadSectionMoveResponse{}, nil
}

// threadExists answers Codex's errors for a thread id that is malformed or unknown.
func (r *threads) threadExists(id string) error {
	if _, ok := r.get(id); ok {
		return nil
	}
	_, _, err := findRollout(codexHome(r.srv), id)
	return err
}

// notifyAll sends a notification to every initialized connection once the request's
// answer is out.
func (r *threads) notifyAll(ctx context.Context, c *Conn, method string, params any) {
	jsonrpc.AfterReply(ctx, func() {
		_ = c.Notify(c.Context(), method, params)
		for _, o := range r.srv.initializedConns() {
			if o != c {
				o.broadcast().push(wire.V2Notification{Method: method, Params: params})
			}
		}
	})
}

// decorate adds what CODEX_HOME knows about a thread to its v2 object: its name (the
// session index), its section and edited git metadata (the state file).
func (r *threads) decorate(ts ...*v2Thread) {
	if names := threadsvc.New(codexHome(r.srv)).NameMap(); len(names) > 0 {
		for _, t := range ts {
			if n, ok := names[t.ID]; ok && n != "" {
				n := n
				t.Name = &n
			}
		}
	}
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.ID
	}
	places, _ := r.sections().Placements(ids...)
	gits, _ := r.gitEdits().Of(ids...)
	for _, t := range ts {
		if pl, ok := places[t.ID]; ok {
			s, at := pl.Section, pl.EnteredAt
			t.Section, t.SectionEnteredAt = &s, &at
		}
		if g, ok := gits[t.ID]; ok {
			t.GitInfo = &g
		}
	}
}

// sectionFilter is thread/list's sectionId: absent keeps every thread, null keeps those in
// no section, an id keeps that section's.
func sectionFilter(raw json.RawMessage) (keep func(*v2Thread) bool) {
	if len(raw) == 0 {
		return func(*v2Thread) bool { return true }
	}
	var id *string
	_ = json.Unmarshal(raw, &id)
	return func(t *v2Thread) bool {
		if id == nil {
			return t.Section == nil
		}
		return t.Section != nil && t.Section.ID == *id
	}
}

// listBySectionPosition is thread/list with sortKey section_position: a section's threads
// in the order thread/section/move gave them (either sortDirection), paged by position.
func (r *threads) listBySectionPosition(p threadListParams, opts threadsvc.ListOptions) (ThreadListResponse, error) {
	var sectionID *string
	if len(p.SectionID) > 0 {
		_ = json.Unmarshal(p.SectionID, &sectionID)
	}
	if sectionID == nil {
		return ThreadListResponse{}, InvalidRequest("section-position sorting requires a section filter")
	}
	order, err := r.sections().Order(*sectionID)
	if err != nil {
		return ThreadListResponse{}, err
	}
	start := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 || n > len(order) {
			return ThreadListResponse{}, InvalidRequest("invalid cursor: " + *p.Cursor)
		}
		start = n
	}
	size := opts.PageSize
	if size <= 0 {
		size = 25
	}
	out := ThreadListResponse{Data: []v2Thread{}}
	for i := start; i < len(order); i++ {
		t, ok := r.listedThread(order[i], opts.Archived)
		if !ok || (p.SearchTerm != nil && *p.SearchTerm != "" && !strings.Contains(t.Preview, *p.SearchTerm) && (t.Name == nil || !strings.Contains(*t.Name, *p.SearchTerm))) {
			continue
		}
		if len(out.Data) == size {
			next := strconv.Itoa(i)
			out.NextCursor = &next
			break
		}
		if len(out.Data) == 0 {
			back := strconv.Itoa(i)
			out.BackwardsCursor = &back
		}
		out.Data = append(out.Data, t)
	}
	out.ReadStates = r.readStates(out.Data)
	return out, nil
}

// listedThread is a thread as thread/list shows it, if it is on disk and archived or not
// as asked (a thread not yet recorded is not listed).
func (r *threads) listedThread(id string, archived bool) (v2Thread, bool) {
	_, isArchived, err := findRollout(codexHome(r.srv), id)
	if err != nil || isArchived != archived {
		return v2Thread{}, false
	}
	if lt, ok := r.get(id); ok {
		return lt.v2(false), true
	}
	t, err := r.stored(id, false)
	return t, err == nil
}
