// Package sections is the host extension that keeps thread sections, as Codex 0.169 does:
// the state starts with a "Pinned" section, sections list in creation order, a thread sits
// in at most one section at a position, and deleting a section takes its threads out of
// it. Kept in the thread state file (sections, threadSections).
package sections

import (
	"sort"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/host/ext"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// Name is the extension's name.
const Name = "sections"

// PinnedID is the section every Codex 0.169 state database starts with ("Pinned").
const PinnedID = "01984de2-8f74-7c91-a3b2-5c5e937cf318"

// Section is Codex's ThreadSection.
type Section struct {
	ID         string      `json:"id"`
	Name       string      `json:"name"`
	Appearance *Appearance `json:"appearance"`
}

// Appearance is a section's icon and color.
type Appearance struct {
	Icon  *string `json:"icon"`
	Color *string `json:"color"`
}

// Placement is where a thread sits: its section and when it entered it.
type Placement struct {
	Section   Section
	EnteredAt int64
}

// state is the extension's part of the thread state file.
type state struct {
	// Sections are in creation order, the built-in "Pinned" first.
	Sections       []Section        `json:"sections"`
	ThreadSections map[string]entry `json:"threadSections,omitempty"`
}

type entry struct {
	SectionID string `json:"sectionId"`
	EnteredAt int64  `json:"enteredAt"`
	// Position orders the threads of a section (thread/list's section_position).
	Position int `json:"position"`
}

// Extension keeps the sections.
type Extension struct {
	ext.Stateful[state]
}

// New is the extension, ready for ext.New.
func New() *Extension { return &Extension{} }

func (e *Extension) Name() string { return Name }

// Init adds the sections to the thread state file; a deleted thread leaves its section.
func (e *Extension) Init(h ext.Host) error {
	e.Keep(h, func(s *state) { s.Sections = []Section{{ID: PinnedID, Name: "Pinned"}} })
	h.Hooks().ThreadDeleted = append(h.Hooks().ThreadDeleted, e.forget)
	return nil
}

// invalidParamsBare is a -32602 error with Codex's text alone (no "Invalid params:"
// prefix), as its thread section and attachment methods answer.
func invalidParamsBare(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

func invalidRequest(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg}
}

// errNotFound is Codex's -32602 answer for an unknown section id.
func errNotFound(id string) error {
	return invalidParamsBare("thread section not found: " + id)
}

// Create adds a section.
func (e *Extension) Create(name string, look *Appearance) (Section, error) {
	if strings.TrimSpace(name) == "" {
		return Section{}, invalidParamsBare("section name must not be empty")
	}
	sec := Section{ID: ext.NewID(), Name: name, Appearance: look}
	err := e.Part.Update(func(s *state) error {
		s.Sections = append(s.Sections, sec)
		return nil
	})
	return sec, err
}

// Update renames a section and sets its appearance.
func (e *Extension) Update(id, name string, look *Appearance) (Section, error) {
	if strings.TrimSpace(name) == "" {
		return Section{}, invalidParamsBare("section name must not be empty")
	}
	var out Section
	err := e.Part.Update(func(s *state) error {
		for i := range s.Sections {
			if s.Sections[i].ID == id {
				s.Sections[i].Name, s.Sections[i].Appearance = name, look
				out = s.Sections[i]
				return nil
			}
		}
		return errNotFound(id)
	})
	return out, err
}

// Delete removes a section; its threads are in none after.
func (e *Extension) Delete(id string) error {
	return e.Part.Update(func(s *state) error {
		for i := range s.Sections {
			if s.Sections[i].ID == id {
				s.Sections = append(s.Sections[:i], s.Sections[i+1:]...)
				for tid, en := range s.ThreadSections {
					if en.SectionID == id {
						delete(s.ThreadSections, tid)
					}
				}
				return nil
			}
		}
		return errNotFound(id)
	})
}

// List is every section in creation order.
func (e *Extension) List() ([]Section, error) {
	var all []Section
	err := e.Part.Read(func(s *state) { all = s.Sections })
	return all, err
}

// Move puts a thread into a section (nil: out of its section), before another thread of
// it or last.
func (e *Extension) Move(threadID string, sectionID, before *string) error {
	return e.Part.Update(func(s *state) error {
		if sectionID == nil {
			delete(s.ThreadSections, threadID)
			return nil
		}
		if s.find(*sectionID) == nil {
			return invalidRequest("section " + *sectionID + " does not exist")
		}
		return s.place(threadID, *sectionID, before)
	})
}

// Placements are where the threads ids sit (those in no section are left out).
func (e *Extension) Placements(ids ...string) (map[string]Placement, error) {
	out := map[string]Placement{}
	err := e.Part.Read(func(s *state) {
		for _, id := range ids {
			if en, ok := s.ThreadSections[id]; ok {
				if sec := s.find(en.SectionID); sec != nil {
					out[id] = Placement{Section: *sec, EnteredAt: en.EnteredAt}
				}
			}
		}
	})
	return out, err
}

// Order is a section's threads in their order.
func (e *Extension) Order(sectionID string) ([]string, error) {
	var ids []string
	err := e.Part.Read(func(s *state) { ids = s.order(sectionID) })
	return ids, err
}

func (e *Extension) forget(id string) {
	e.UpdateOrWarn("thread section not cleaned after delete", id, func(s *state) error {
		delete(s.ThreadSections, id)
		return nil
	})
}

func (s *state) find(id string) *Section {
	for i := range s.Sections {
		if s.Sections[i].ID == id {
			return &s.Sections[i]
		}
	}
	return nil
}

// order is a section's threads in their order.
func (s *state) order(sectionID string) []string {
	var ids []string
	for id, en := range s.ThreadSections {
		if en.SectionID == sectionID {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := s.ThreadSections[ids[i]], s.ThreadSections[ids[j]]
		if a.Position != b.Position {
			return a.Position < b.Position
		}
		return ids[i] < ids[j]
	})
	return ids
}

// place puts a thread into a section, before another thread of it or last, and numbers
// the section's threads again. A thread that was in the section keeps the time it entered
// it.
func (s *state) place(threadID, sectionID string, before *string) error {
	order := s.order(sectionID)
	if before != nil && *before != "" {
		if en, ok := s.ThreadSections[*before]; !ok || en.SectionID != sectionID || *before == threadID {
			return invalidRequest("before thread " + *before + " is not in section " + sectionID)
		}
	}
	en := entry{SectionID: sectionID, EnteredAt: time.Now().Unix()}
	if cur, ok := s.ThreadSections[threadID]; ok && cur.SectionID == sectionID {
		en.EnteredAt = cur.EnteredAt
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
	if s.ThreadSections == nil {
		s.ThreadSections = map[string]entry{}
	}
	s.ThreadSections[threadID] = en
	for i, id := range order {
		e := s.ThreadSections[id]
		e.Position = i
		s.ThreadSections[id] = e
	}
	return nil
}
