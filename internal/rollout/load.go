package rollout

import (
	"fmt"
	"io"
	"os"
)

// maxBaseDepth bounds the chain of history bases Load follows (a fork of a fork of …), so a
// cycle in damaged files cannot loop.
const maxBaseDepth = 32

// Load reads the rollout at path the way resume needs it: when its session_meta names a
// history base (a Codex 0.169 fork), the base thread's lines up to the recorded end come
// first, recursively, so Reconstruct sees the whole conversation. The base is looked up by
// id under codexHome.
func Load(codexHome, path string) (*Rollout, error) {
	r, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	base := r.Meta.HistoryBase
	var prefix []Line
	for depth := 0; base != nil && base.ThreadID != ""; depth++ {
		if depth == maxBaseDepth {
			return nil, fmt.Errorf("read rollout %s: history bases nest deeper than %d", path, maxBaseDepth)
		}
		lines, next, err := readBase(codexHome, *base)
		if err != nil {
			return nil, fmt.Errorf("read rollout %s: history base: %w", path, err)
		}
		prefix = append(lines, prefix...)
		base = next
	}
	r.basesLoaded = true
	if len(prefix) > 0 {
		own := r.Lines
		r.Lines = make([]Line, 0, len(prefix)+len(own))
		r.Lines = append(append(r.Lines, own[0]), prefix...) // session_meta stays first
		r.Lines = append(r.Lines, own[1:]...)
	}
	return r, nil
}

// readBase returns the base's lines (without its session_meta) that precede the recorded
// end, and the base's own history base.
func readBase(codexHome string, b HistoryBase) ([]Line, *HistoryBase, error) {
	path, _, err := Find(codexHome, b.ThreadID)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var rd io.Reader = f
	if b.EndOrdinalExclusive <= 0 && b.EndByteOffset > 0 {
		rd = io.LimitReader(f, b.EndByteOffset)
	}
	r, err := Parse(rd)
	if err != nil {
		return nil, nil, err
	}
	var out []Line
	for i, l := range r.Lines {
		if l.Type == TypeSessionMeta {
			continue
		}
		if b.EndOrdinalExclusive > 0 {
			if l.Ordinal != nil && *l.Ordinal >= b.EndOrdinalExclusive {
				break
			}
			if l.Ordinal == nil && int64(i) >= b.EndOrdinalExclusive {
				break
			}
		}
		out = append(out, l)
	}
	return out, r.Meta.HistoryBase, nil
}
