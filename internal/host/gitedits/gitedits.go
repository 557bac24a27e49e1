// Package gitedits is the host extension that keeps the git metadata a client edited for a
// thread (thread/metadata/update's gitInfo), which then replaces what the rollout
// recorded. Kept in the thread state file (git).
package gitedits

import "github.com/gocodex/gocodex/internal/host/ext"

// Name is the extension's name.
const Name = "gitEdits"

// Info is Codex's GitInfo of a thread.
type Info struct {
	Sha       *string `json:"sha"`
	Branch    *string `json:"branch"`
	OriginURL *string `json:"originUrl"`
}

type state struct {
	Git map[string]Info `json:"git,omitempty"`
}

// Extension keeps the edits.
type Extension struct {
	ext.Stateful[state]
}

// New is the extension, ready for ext.New.
func New() *Extension { return &Extension{} }

func (e *Extension) Name() string { return Name }

// Init adds the edits to the thread state file; a deleted thread's go.
func (e *Extension) Init(h ext.Host) error {
	e.Keep(h, nil)
	h.Hooks().ThreadDeleted = append(h.Hooks().ThreadDeleted, e.forget)
	return nil
}

// Of are the edited git metadata of the threads ids (those never edited are left out).
func (e *Extension) Of(ids ...string) (map[string]Info, error) {
	out := map[string]Info{}
	err := e.Part.Read(func(s *state) {
		for _, id := range ids {
			if g, ok := s.Git[id]; ok {
				out[id] = g
			}
		}
	})
	return out, err
}

// Set keeps a thread's git metadata.
func (e *Extension) Set(id string, g Info) error {
	return e.Part.Update(func(s *state) error {
		if s.Git == nil {
			s.Git = map[string]Info{}
		}
		s.Git[id] = g
		return nil
	})
}

func (e *Extension) forget(id string) {
	e.UpdateOrWarn("git edits not cleaned after delete", id, func(s *state) error {
		delete(s.Git, id)
		return nil
	})
}
