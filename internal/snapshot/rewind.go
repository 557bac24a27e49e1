package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Rewind restores the files the last n turns changed and drops those turns from the
// journal. It is refused, with nothing changed, when n exceeds the recorded turns, when the
// journal was made elsewhere, or when the plan has conflicts. Every restored file is written
// whole (temporary file and rename); if a write fails midway, the files already restored
// are put back as they were and the error says so.
func (t *Thread) Rewind(ctx context.Context, n int) (*Plan, error) {
	end, err := t.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	p, _, err := t.plan(ctx, n)
	if err != nil {
		return nil, err
	}
	if len(p.Conflicts) > 0 {
		return p, p.conflictError()
	}
	want := map[string]entry{}
	for _, c := range p.Changes {
		if c.Kind == Create || c.Kind == Modify {
			want[c.Path] = p.target[c.Path]
		}
	}
	contents, err := t.st.read(ctx, want)
	if err != nil {
		return p, fmt.Errorf("snapshot: rewind refused, nothing changed: %w", err)
	}
	// From here on the files change: finish even if the caller gives up.
	ctx = context.WithoutCancel(ctx)
	if err := t.apply(ctx, p, contents); err != nil {
		return p, err
	}
	if err := t.dropTurns(ctx, n, true); err != nil {
		return p, err
	}
	return p, nil
}

// apply makes the files match the plan: removals deepest first, then writes shallowest
// first (so a directory a turn put where a file was goes before the file comes back).
func (t *Thread) apply(ctx context.Context, p *Plan, contents map[string][]byte) error {
	changes := append([]Change(nil), p.Changes...)
	sort.SliceStable(changes, func(i, j int) bool {
		di, dj := changes[i].Kind == Delete, changes[j].Kind == Delete
		if di != dj {
			return di
		}
		if di {
			return changes[i].Path > changes[j].Path
		}
		return changes[i].Path < changes[j].Path
	})
	root := t.j.Root
	var done []Change
	for _, c := range changes {
		var err error
		switch c.Kind {
		case Delete:
			err = removeFile(root, c.Path)
		case Mode:
			err = chmodFile(root, c.Path, t.perm(root, c.Path, p.target[c.Path]))
		default:
			err = writeEntry(root, c.Path, p.target[c.Path], t.perm(root, c.Path, p.target[c.Path]), contents[c.Path])
		}
		if err != nil {
			undo := t.undo(ctx, p, done)
			if undo != nil {
				return fmt.Errorf("snapshot: rewind failed at %s: %w; putting back the %d files already restored also failed: %v", c.Path, err, len(done), undo)
			}
			return fmt.Errorf("snapshot: rewind failed at %s, nothing changed: %w", c.Path, err)
		}
		done = append(done, c)
	}
	return nil
}

// undo puts the paths in done back as they were before the rewind began.
func (t *Thread) undo(ctx context.Context, p *Plan, done []Change) error {
	prior := map[string]entry{}
	for _, c := range done {
		if e := p.current[c.Path]; e.exists() {
			prior[c.Path] = e
		}
	}
	contents, err := t.st.read(ctx, prior)
	if err != nil {
		return err
	}
	var errs []error
	for i := len(done) - 1; i >= 0; i-- {
		path := done[i].Path
		e, ok := prior[path]
		if !ok {
			errs = append(errs, removeFile(t.j.Root, path))
			continue
		}
		errs = append(errs, writeEntry(t.j.Root, path, e, t.perm(t.j.Root, path, e), contents[path]))
	}
	return errors.Join(errs...)
}

// perm is the mode to give path restored as e. The files store knows all the bits; git
// keeps only the executable bit, so an existing file keeps its bits with x set or cleared
// the way git's checkout does.
func (t *Thread) perm(root, rel string, e entry) os.FileMode {
	if t.st.exactPerm() || e.Kind != kindFile {
		return e.Perm
	}
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil || !fi.Mode().IsRegular() {
		return e.Perm
	}
	cur := fi.Mode().Perm()
	if e.Perm&0o100 != 0 {
		return cur | (cur&0o444)>>2
	}
	return cur &^ 0o111
}

// parentDir returns the absolute directory of rel, creating the missing directories below
// root and refusing any symlink or file on the way (a restored file never lands outside root).
func parentDir(root, rel string, create bool) (string, error) {
	dir := root
	parts := strings.Split(rel, "/")
	for _, part := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist) && create:
			if err := os.Mkdir(dir, 0o755); err != nil {
				return "", err
			}
		case err != nil:
			return "", err
		case !fi.IsDir():
			return "", fmt.Errorf("%s is not a directory (a symlink or a file is in the way)", dir)
		}
	}
	return dir, nil
}

func writeEntry(root, rel string, e entry, perm os.FileMode, data []byte) error {
	if err := checkRelPath(rel); err != nil {
		return err
	}
	dir, err := parentDir(root, rel, true)
	if err != nil {
		return err
	}
	dst := filepath.Join(root, filepath.FromSlash(rel))
	if fi, err := os.Lstat(dst); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory with files the rewind does not remove", dst)
	}
	if e.Kind == kindSymlink {
		tmp := filepath.Join(dir, ".gocodex-rewind-"+filepath.Base(dst))
		os.Remove(tmp)
		if err := os.Symlink(string(data), tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, dst); err != nil {
			os.Remove(tmp)
			return err
		}
		return nil
	}
	f, err := os.CreateTemp(dir, ".gocodex-rewind-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func chmodFile(root, rel string, perm os.FileMode) error {
	if _, err := parentDir(root, rel, false); err != nil {
		return err
	}
	path := filepath.Join(root, filepath.FromSlash(rel))
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is no longer a regular file", path)
	}
	return os.Chmod(path, perm)
}

// removeFile removes rel and then the directories it leaves empty, up to root.
func removeFile(root, rel string) error {
	if err := checkRelPath(rel); err != nil {
		return err
	}
	if _, err := parentDir(root, rel, false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	path := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for dir := filepath.Dir(path); dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break
		}
	}
	return nil
}

// Forget drops the last n turns from the journal and leaves the files as they are: the
// conversation lost those turns (a history-only rollback), so a later rewind must not count
// them. It refuses n beyond the recorded turns and a journal made elsewhere.
func (t *Thread) Forget(ctx context.Context, n int) error {
	end, err := t.begin()
	if err != nil {
		return err
	}
	defer end()
	if n < 1 || n > len(t.j.Turns) {
		return fmt.Errorf("snapshot: %w: cannot forget %d turns, thread %s has %d recorded", ErrNotEnoughTurns, n, t.j.ThreadID, len(t.j.Turns))
	}
	return t.dropTurns(ctx, n, false)
}

// dropTurns removes the last n turns from the journal and unpins their snapshots; rewound
// says the files went back with them. The journal lock is held.
func (t *Thread) dropTurns(ctx context.Context, n int, rewound bool) error {
	ctx = context.WithoutCancel(ctx)
	kept := t.j.Turns[:len(t.j.Turns)-n]
	var names []string
	for _, tr := range t.j.Turns[len(kept):] {
		if !tr.Quiet {
			names = append(names, strconv.Itoa(tr.Seq)+"/before", strconv.Itoa(tr.Seq)+"/after")
		}
	}
	t.j.Turns = append([]TurnRecord(nil), kept...)
	t.j.Rewinds++
	if err := t.save(); err != nil {
		if rewound {
			return fmt.Errorf("snapshot: the files are restored but the journal could not be updated: %w", err)
		}
		return fmt.Errorf("snapshot: the journal could not be updated: %w", err)
	}
	var keep []string
	for _, tr := range kept {
		if tr.Before != "" {
			keep = append(keep, tr.Before)
		}
		if tr.After != "" {
			keep = append(keep, tr.After)
		}
	}
	err := errors.Join(t.st.unpin(ctx, names), t.st.release(ctx, keep))
	if fs, isFiles := t.st.(*fileStore); isFiles {
		fs.rewinds = t.j.Rewinds
	}
	if err != nil {
		return fmt.Errorf("snapshot: turns dropped; cleaning their snapshots failed: %w", err)
	}
	return nil
}
