package appserver

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/appserver/wire"
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
		if d.ThreadSections == nil {
			d.ThreadSections = map[string]threadSectionEntry{}
		}
		d.ThreadSections[p.ThreadID] = threadSectionEntry{SectionID: *p.SectionID, EnteredAt: time.Now().Unix()}
		return nil
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
	context.AfterFunc(ctx, func() {
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
	if names := threadNames(codexHome(r.srv)); len(names) > 0 {
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
