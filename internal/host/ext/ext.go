// Package ext is how features plug into the host (after tailscale's ipnext): an Extension
// is given the Host when the host starts and registers there what it adds — tools every
// thread's model gets, hooks on a thread's events, its share of the thread state file —
// and the faces reach it through the host (Find) to answer their methods. Goals, thread
// sections, attachments, git edits and read state are extensions
// (internal/host/{goals,sections,attachments,gitedits,readstate}).
package ext

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// Extension is one feature of the host. Init registers its hooks and state with h; an
// error stops the host from starting (a feature that cannot keep its state is not
// pretended). Extensions are safe for concurrent use.
type Extension interface {
	Name() string
	Init(h Host) error
}

// Host is what an extension sees of the host.
type Host interface {
	// CodexHome is where state is kept.
	CodexHome() string
	// Logger reports what an extension cannot tell its caller.
	Logger() *slog.Logger
	// Hooks are where an extension registers what it adds; only during Init.
	Hooks() *Hooks
	// State is the thread state file the extensions share (AddPart).
	State() *StateFile
	// Extension is another extension by name, nil if there is none.
	Extension(name string) Extension
}

// Thread is what an extension sees of a loaded thread.
type Thread interface {
	ID() string
	// FeatureEnabled is the thread's configuration's [features] switch.
	FeatureEnabled(name string, def bool) bool
	// Ephemeral threads keep no rollout.
	Ephemeral() bool
	// Submit queues an operation on the thread.
	Submit(op protocol.Op) (string, error)
}

// Notice is a notification an extension has the faces tell (a Codex v2 method and its
// params).
type Notice struct {
	Method string
	Params any
}

// Hooks are the extension points the host calls. Each list is called in the order the
// extensions were given to New.
type Hooks struct {
	// Tools are offered to a new thread's model; the thread's configuration decides.
	Tools []func(featureEnabled func(name string, def bool) bool) []tool.Handler
	// BeforeEvent sees each event of a loaded thread, in order, before the faces project it;
	// turnID is the running turn. What it returns is told ahead of the event's own notices.
	BeforeEvent []func(t Thread, ev protocol.Event, turnID string) []Notice
	// TurnEnded sees each completed turn; what it returns is told among the turn's last
	// notices, before the thread goes idle.
	TurnEnded []func(t Thread, ev protocol.TurnCompleteEvent) []Notice
	// AfterEvent sees each event once its notices are out, still in the thread's event
	// order (no other event of the thread is delivered meanwhile).
	AfterEvent []func(t Thread, ev protocol.Event)
	// ThreadForked is told a fork was made of a stored thread.
	ThreadForked []func(from, to string)
	// ThreadDeleted is told a thread was deleted: its state goes.
	ThreadDeleted []func(id string)
}

// Options configure the host side of the extensions.
type Options struct {
	CodexHome string
	Logger    *slog.Logger
}

// Set is the host's extensions, initialized in order; it is their Host.
type Set struct {
	opts  Options
	hooks Hooks
	state *StateFile
	exts  []Extension
	init  bool
}

// New initializes exts in order; names must be unique.
func New(opts Options, exts ...Extension) (*Set, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Set{opts: opts, state: NewStateFile(filepath.Join(opts.CodexHome, StateFileName))}
	seen := map[string]bool{}
	s.init = true
	for _, e := range exts {
		if seen[e.Name()] {
			return nil, fmt.Errorf("extension %q registered twice", e.Name())
		}
		seen[e.Name()] = true
		s.exts = append(s.exts, e)
		if err := e.Init(s); err != nil {
			return nil, fmt.Errorf("extension %s: %w", e.Name(), err)
		}
	}
	s.init = false
	s.state.seal()
	return s, nil
}

func (s *Set) CodexHome() string    { return s.opts.CodexHome }
func (s *Set) Logger() *slog.Logger { return s.opts.Logger }
func (s *Set) State() *StateFile    { return s.state }

// Hooks panics outside Init: the hooks are read without a lock once the host runs.
func (s *Set) Hooks() *Hooks {
	if !s.init {
		panic("ext: hooks registered after the host started")
	}
	return &s.hooks
}

// Extension finds an initialized (or initializing) extension by name.
func (s *Set) Extension(name string) Extension {
	for _, e := range s.exts {
		if e.Name() == name {
			return e
		}
	}
	return nil
}

// Find is the extension of type T, if the host has it.
func Find[T Extension](s *Set) (T, bool) {
	for _, e := range s.exts {
		if t, ok := e.(T); ok {
			return t, true
		}
	}
	var zero T
	return zero, false
}

// Tools are the tools every extension offers a new thread with this configuration.
func (s *Set) Tools(featureEnabled func(name string, def bool) bool) []tool.Handler {
	var out []tool.Handler
	for _, f := range s.hooks.Tools {
		out = append(out, f(featureEnabled)...)
	}
	return out
}

// BeforeEvent runs the BeforeEvent hooks.
func (s *Set) BeforeEvent(t Thread, ev protocol.Event, turnID string) []Notice {
	var out []Notice
	for _, f := range s.hooks.BeforeEvent {
		out = append(out, f(t, ev, turnID)...)
	}
	return out
}

// TurnEnded runs the TurnEnded hooks for a completed turn (nothing for other events).
func (s *Set) TurnEnded(t Thread, ev protocol.Event) []Notice {
	tc, ok := ev.Msg.(protocol.TurnCompleteEvent)
	if !ok {
		return nil
	}
	var out []Notice
	for _, f := range s.hooks.TurnEnded {
		out = append(out, f(t, tc)...)
	}
	return out
}

// AfterEvent runs the AfterEvent hooks.
func (s *Set) AfterEvent(t Thread, ev protocol.Event) {
	for _, f := range s.hooks.AfterEvent {
		f(t, ev)
	}
}

// ThreadForked runs the ThreadForked hooks.
func (s *Set) ThreadForked(from, to string) {
	for _, f := range s.hooks.ThreadForked {
		f(from, to)
	}
}

// ThreadDeleted runs the ThreadDeleted hooks.
func (s *Set) ThreadDeleted(id string) {
	for _, f := range s.hooks.ThreadDeleted {
		f(id)
	}
}

// NewID is a fresh UUIDv7 (ids of sections, attachments, revisions, as Codex's).
func NewID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}
