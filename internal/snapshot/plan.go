package snapshot

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// ChangeKind is what a rewind does to one path.
type ChangeKind string

const (
	// Create brings back a file the rewound turns deleted.
	Create ChangeKind = "create"
	// Modify restores the content (and mode) a file had before the rewound turns.
	Modify ChangeKind = "modify"
	// Delete removes a file the rewound turns created.
	Delete ChangeKind = "delete"
	// Mode restores only the permission bits.
	Mode ChangeKind = "mode"
)

// Change is one path a rewind restores.
type Change struct {
	Path string     `json:"path"` // slash-separated, relative to the root
	Kind ChangeKind `json:"kind"`
}

// Plan is what rewinding the last N turns does.
type Plan struct {
	Root string `json:"root"`
	// Turns are the turns rewound, oldest first.
	Turns   []TurnRecord `json:"turns"`
	Changes []Change     `json:"changes"`
	// HandEdits are paths changed since (or between) the rewound turns by someone else
	// than the turns; the rewind leaves them as they are.
	HandEdits []string `json:"hand_edits"`
	// Conflicts are paths changed both by a rewound turn and by hand: restoring them would
	// lose the hand edit, so the rewind is refused while there are any.
	Conflicts []string `json:"conflicts"`
	// Notes say where the plan had less to go on (a turn that never ended).
	Notes []string `json:"notes,omitempty"`

	// target is each changed path's entry to restore; current its entry now.
	target, current map[string]entry
}

// Plan reports what rewinding the last n turns would do, changing nothing.
func (t *Thread) Plan(ctx context.Context, n int) (*Plan, error) {
	end, err := t.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	p, _, err := t.plan(ctx, n)
	return p, err
}

// plan computes the rewind of the last n turns against a fresh snapshot, whose id it returns.
func (t *Thread) plan(ctx context.Context, n int) (*Plan, string, error) {
	recorded := len(t.j.Turns)
	if n < 1 {
		return nil, "", fmt.Errorf("snapshot: rewind of %d turns: the count must be at least 1", n)
	}
	if n > recorded {
		return nil, "", fmt.Errorf("snapshot: %w: cannot rewind %d turns, thread %s has %d recorded", ErrNotEnoughTurns, n, t.j.ThreadID, recorded)
	}
	now, err := t.st.snapshot(ctx)
	if err != nil {
		return nil, "", err
	}
	rewound := t.j.Turns[recorded-n:]
	p := &Plan{Root: t.j.Root, Turns: append([]TurnRecord(nil), rewound...), target: map[string]entry{}, current: map[string]entry{}}
	// Quiet turns changed nothing: the plan is made of the others.
	var turns []TurnRecord
	for _, tr := range rewound {
		if !tr.Quiet {
			turns = append(turns, tr)
		}
	}
	if len(turns) == 0 {
		return p, now, nil
	}
	byTurns, byHand := map[string]bool{}, map[string]bool{}
	for i, tr := range turns {
		next := now
		if i+1 < len(turns) {
			next = turns[i+1].Before
		}
		end := tr.After
		if end == "" {
			// The turn never ended: what changed until the next snapshot is taken as its.
			end = next
			p.Notes = append(p.Notes, fmt.Sprintf("turn %s never ended: every change until the next snapshot is counted as the turn's", tr.TurnID))
		}
		if err := addPaths(ctx, t.st, tr.Before, end, byTurns); err != nil {
			return nil, "", err
		}
		if err := addPaths(ctx, t.st, end, next, byHand); err != nil {
			return nil, "", err
		}
	}
	restore, err := t.st.diff(ctx, turns[0].Before, now)
	if err != nil {
		return nil, "", err
	}
	for path := range byTurns {
		d, differs := restore[path]
		if !differs {
			continue // back as it was already
		}
		if byHand[path] {
			p.Conflicts = append(p.Conflicts, path)
			continue
		}
		p.Changes = append(p.Changes, Change{Path: path, Kind: kindOf(d)})
		p.target[path], p.current[path] = d.Old, d.New
	}
	for path := range byHand {
		if !byTurns[path] {
			p.HandEdits = append(p.HandEdits, path)
		}
	}
	sort.Slice(p.Changes, func(i, j int) bool { return p.Changes[i].Path < p.Changes[j].Path })
	sort.Strings(p.HandEdits)
	sort.Strings(p.Conflicts)
	return p, now, nil
}

func addPaths(ctx context.Context, st store, a, b string, into map[string]bool) error {
	d, err := st.diff(ctx, a, b)
	if err != nil {
		return err
	}
	for path := range d {
		into[path] = true
	}
	return nil
}

// kindOf names the rewind of one delta (Old is the state restored, New the state now).
func kindOf(d delta) ChangeKind {
	switch {
	case !d.Old.exists():
		return Delete
	case !d.New.exists():
		return Create
	case d.Old.Kind == d.New.Kind && d.Old.ID == d.New.ID:
		return Mode
	}
	return Modify
}

// conflictError is the refusal of a plan with conflicts.
func (p *Plan) conflictError() error {
	return fmt.Errorf("snapshot: %w: rewind refused, nothing changed; edited by hand since the turns and changed by them: %s", ErrConflict, strings.Join(p.Conflicts, ", "))
}
