package appserver

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	threadsvc "github.com/gocodex/gocodex/internal/host/threads"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// Thread sections (threadSection/*, thread/section/move), as Codex 0.169 answers them: the
// state starts with a "Pinned" section, sections list in creation order, a thread sits in
// at most one section, and moving a thread tells every connection thread/section/changed.
// Deleting a section takes its threads out of it without a notification.

type v2ThreadSection struct {
	ID         string                     `json:"id"`
	Name       string                     `json:"name"`
	Appearance *v2ThreadSectionAppearance `json:"appearance"`
}

type v2ThreadSectionAppearance struct {
	Icon  *string `json:"icon"`
	Color *string `json:"color"`
}

type sectionCreateParams struct {
	Name       string                     `json:"name"`
	Appearance *v2ThreadSectionAppearance `json:"appearance"`
}

type sectionUpdateParams struct {
	SectionID  string                     `json:"sectionId"`
	Name       string                     `json:"name"`
	Appearance *v2ThreadSectionAppearance `json:"appearance"`
}

type sectionIDParams struct {
	SectionID string `json:"sectionId"`
}

type sectionListParams struct {
	Cursor *string `json:"cursor"`
	Limit  *uint32 `json:"limit"`
}

type sectionResponse struct {
	Section v2ThreadSection `json:"section"`
}

type sectionListResponse struct {
	Data       []v2ThreadSection `json:"data"`
	NextCursor *string           `json:"nextCursor"`
}

type sectionMoveParams struct {
	ThreadID string `json:"threadId"`
	// SectionID null takes the thread out of its section.
	SectionID      *string `json:"sectionId"`
	BeforeThreadID *string `json:"beforeThreadId"`
}

func (r *threads) registerSections(s *Server) {
	s.Handle("threadSection/create", Typed(r.sectionCreate))
	s.Handle("threadSection/update", Typed(r.sectionUpdate))
	s.Handle("threadSection/delete", Typed(r.sectionDelete))
	s.Handle("threadSection/list", TypedOptional(r.sectionList))
	s.Handle("thread/section/move", Typed(r.sectionMove))
}

// invalidParamsBare is a -32602 error with Codex's text alone (no "Invalid params:" prefix),
// as its thread section and attachment methods answer.
func invalidParamsBare(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// errSectionNotFound is Codex's -32602 answer for an unknown section id.
func errSectionNotFound(id string) error {
	return invalidParamsBare("thread section not found: " + id)
}

func (r *threads) sectionCreate(ctx context.Context, c *Conn, p sectionCreateParams) (sectionResponse, error) {
	if strings.TrimSpace(p.Name) == "" {
		return sectionResponse{}, invalidParamsBare("section name must not be empty")
	}
	sec := v2ThreadSection{ID: newSubmissionID(), Name: p.Name, Appearance: p.Appearance}
	err := r.state().update(func(d *threadStateDoc) error {
		d.Sections = append(d.Sections, sec)
		return nil
	})
	return sectionResponse{sec}, err
}

func (r *threads) sectionUpdate(ctx context.Context, c *Conn, p sectionUpdateParams) (sectionResponse, error) {
	if strings.TrimSpace(p.Name) == "" {
		return sectionResponse{}, invalidParamsBare("section name must not be empty")
	}
	var out v2ThreadSection
	err := r.state().update(func(d *threadStateDoc) error {
		for i := range d.Sections {
			if d.Sections[i].ID == p.SectionID {
				d.Sections[i].Name, d.Sections[i].Appearance = p.Name, p.Appearance
				out = d.Sections[i]
				return nil
			}
		}
		return errSectionNotFound(p.SectionID)
	})
	return sectionResponse{out}, err
}

func (r *threads) sectionDelete(ctx context.Context, c *Conn, p sectionIDParams) (empty, error) {
	err := r.state().update(func(d *threadStateDoc) error {
		for i := range d.Sections {
			if d.Sections[i].ID == p.SectionID {
				d.Sections = append(d.Sections[:i], d.Sections[i+1:]...)
				for tid, e := range d.ThreadSections {
					if e.SectionID == p.SectionID {
						delete(d.ThreadSections, tid)
					}
				}
				return nil
			}
		}
		return errSectionNotFound(p.SectionID)
	})
	return empty{}, err
}

// sectionList pages by section id: the cursor is the last id of the previous page.
func (r *threads) sectionList(ctx context.Context, c *Conn, p sectionListParams) (sectionListResponse, error) {
	var all []v2ThreadSection
	if err := r.state().read(func(d *threadStateDoc) { all = d.Sections }); err != nil {
		return sectionListResponse{}, err
	}
	if p.Cursor != nil {
		for i, s := range all {
			if s.ID == *p.Cursor {
				all = all[i+1:]
				break
			}
		}
	}
	out := sectionListResponse{Data: all}
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

func (r *threads) sectionMove(ctx context.Context, c *Conn, p sectionMoveParams) (empty, error) {
	if err := r.threadExists(p.ThreadID); err != nil {
		return empty{}, err
	}
	err := r.state().update(func(d *threadStateDoc) error {
		if p.SectionID == nil {
			delete(d.ThreadSections, p.ThreadID)
			return nil
		}
		if findSection(d, *p.SectionID) == nil {
			return InvalidRequest("section " + *p.SectionID + " does not exist")
		}
		return placeInSection(d, p.ThreadID, *p.SectionID, p.BeforeThreadID)
	})
	if err != nil {
		return empty{}, err
	}
	r.notifyAll(ctx, c, "thread/section/changed", struct {
		ThreadID  string  `json:"threadId"`
		SectionID *string `json:"sectionId"`
	}{p.ThreadID, p.SectionID})
	return empty{}, nil
}

func findSection(d *threadStateDoc, id string) *v2ThreadSection {
	for i := range d.Sections {
		if d.Sections[i].ID == id {
			return &d.Sections[i]
		}
	}
	return nil
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
	_ = r.state().read(func(d *threadStateDoc) {
		for _, t := range ts {
			if e, ok := d.ThreadSections[t.ID]; ok {
				if sec := findSection(d, e.SectionID); sec != nil {
					s, at := *sec, e.EnteredAt
					t.Section, t.SectionEnteredAt = &s, &at
				}
			}
			if g, ok := d.Git[t.ID]; ok {
				g := g
				t.GitInfo = &g
			}
		}
	})
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

// errorMessage is an error's text without a JSON-RPC code.
func errorMessage(err error) string {
	if e, ok := err.(*jsonrpc.Error); ok {
		return e.Message
	}
	return err.Error()
}

// sectionOrder is a section's threads in their order.
func sectionOrder(d *threadStateDoc, sectionID string) []string {
	var ids []string
	for id, e := range d.ThreadSections {
		if e.SectionID == sectionID {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := d.ThreadSections[ids[i]], d.ThreadSections[ids[j]]
		if a.Position != b.Position {
			return a.Position < b.Position
		}
		return ids[i] < ids[j]
	})
	return ids
}

// placeInSection puts a thread into a section, before another thread of it or last, and
// numbers the section's threads again. A thread that was in the section keeps the time it
// entered it.
func placeInSection(d *threadStateDoc, threadID, sectionID string, before *string) error {
	order := sectionOrder(d, sectionID)
	if before != nil && *before != "" {
		if e, ok := d.ThreadSections[*before]; !ok || e.SectionID != sectionID || *before == threadID {
			return InvalidRequest("before thread " + *before + " is not in section " + sectionID)
		}
	}
	entry := threadSectionEntry{SectionID: sectionID, EnteredAt: time.Now().Unix()}
	if cur, ok := d.ThreadSections[threadID]; ok && cur.SectionID == sectionID {
		entry.EnteredAt = cur.EnteredAt
	}
	kept := order[:0:0]
	for _, id := range order {
		if id != threadID {
			kept = append(kept, id)
		}
	}
	at := len(kept)
	if before != nil && *before != "" {
		for i, id := range kept {
			if id == *before {
				at = i
			}
		}
	}
	order = append(kept[:at:at], append([]string{threadID}, kept[at:]...)...)
	if d.ThreadSections == nil {
		d.ThreadSections = map[string]threadSectionEntry{}
	}
	d.ThreadSections[threadID] = entry
	for i, id := range order {
		e := d.ThreadSections[id]
		e.Position = i
		d.ThreadSections[id] = e
	}
	return nil
}

// listBySectionPosition is thread/list with sortKey section_position: a section's threads
// in the order thread/section/move gave them (either sortDirection), paged by position.
func (r *threads) listBySectionPosition(p threadListParams, opts threadsvc.ListOptions) (threadListResponse, error) {
	var sectionID *string
	if len(p.SectionID) > 0 {
		_ = json.Unmarshal(p.SectionID, &sectionID)
	}
	if sectionID == nil {
		return threadListResponse{}, InvalidRequest("section-position sorting requires a section filter")
	}
	var order []string
	if err := r.state().read(func(d *threadStateDoc) { order = sectionOrder(d, *sectionID) }); err != nil {
		return threadListResponse{}, err
	}
	start := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 || n > len(order) {
			return threadListResponse{}, InvalidRequest("invalid cursor: " + *p.Cursor)
		}
		start = n
	}
	size := opts.PageSize
	if size <= 0 {
		size = 25
	}
	out := threadListResponse{Data: []v2Thread{}}
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
