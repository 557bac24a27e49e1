package safegit

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// AddAll is `git add --all` of pathspecs (the whole tree when there are none) into the
// Repo's index, leaving out every gitlink the index holds whose directory is a repository:
// for each, git add would run `git status` inside the submodule or nested repository, which
// runs that repository's own drivers (only the top repository's are neutralised). A nested
// repository that is new is added as a gitlink without looking inside; the next AddAll
// leaves it out. A gitlink whose directory is no repository any more is dropped from the
// index first, so that git add takes the directory's files (should a repository appear
// there meanwhile, git add meets it as new). Pathspecs go through stdin, so their number is
// not bounded by the command line. It needs GitDir and WorkTree.
func (r *Repo) AddAll(ctx context.Context, pathspecs ...string) error {
	index, err := r.indexPath()
	if err != nil {
		return err
	}
	if r.opts.WorkTree == "" {
		return fmt.Errorf("safegit: AddAll needs the work tree: %w", ErrRefused)
	}
	links, split, err := gitlinks(index, r.hashSize(ctx))
	if err != nil {
		return err
	}
	if split {
		// Entries of a split index live in a shared index this reader does not follow: make
		// it whole first (the override keeps git from splitting it again).
		if _, err := r.run(ctx, contentCommand, nil, []string{"update-index", "--no-split-index"}); err != nil {
			return err
		}
		if links, _, err = gitlinks(index, r.hashSize(ctx)); err != nil {
			return err
		}
	}
	var stale bytes.Buffer
	kept := links[:0]
	for _, l := range links {
		if _, err := os.Lstat(filepath.Join(r.opts.WorkTree, filepath.FromSlash(l), ".git")); errors.Is(err, fs.ErrNotExist) {
			stale.WriteString(l)
			stale.WriteByte(0)
			continue
		}
		kept = append(kept, l)
	}
	if stale.Len() > 0 {
		if _, err := r.run(ctx, contentCommand, &stale, []string{"update-index", "-z", "--force-remove", "--stdin"}); err != nil {
			return err
		}
	}
	links = kept
	var specs bytes.Buffer
	if len(pathspecs) == 0 {
		pathspecs = []string{"."}
	}
	for _, p := range pathspecs {
		specs.WriteString(p)
		specs.WriteByte(0)
	}
	for _, l := range links {
		specs.WriteString(":(exclude,top,literal)" + l)
		specs.WriteByte(0)
	}
	_, err = r.run(ctx, contentCommand, &specs, []string{"add", "--all", "--pathspec-from-file=-", "--pathspec-file-nul"})
	return err
}

// hashSize is the object id length of the repository (sha1 when its config cannot be read:
// the command that needs it fails on that config anyway).
func (r *Repo) hashSize(ctx context.Context) int {
	if cfg, err := r.config(ctx); err == nil {
		return cfg.hashSize
	}
	return 20
}

// Filters names the filter drivers the configuration defines (each neutralised), sorted.
func (r *Repo) Filters(ctx context.Context) ([]string, error) {
	cfg, err := r.config(ctx)
	if err != nil {
		return nil, err
	}
	return append([]string(nil), cfg.filters...), nil
}

func (r *Repo) indexPath() (string, error) {
	switch {
	case r.opts.IndexFile != "":
		return r.opts.IndexFile, nil
	case r.opts.GitDir != "":
		return filepath.Join(r.opts.GitDir, "index"), nil
	}
	return "", fmt.Errorf("safegit: AddAll needs the index file or the git dir: %w", ErrRefused)
}

// gitlinks lists the paths of the gitlink entries (mode 160000) of the index file at path
// (none when there is no file); split reports a split index, whose shared part is not read.
// It reads index versions 2, 3 and 4.
func gitlinks(path string, hashSize int) (links []string, split bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("safegit: read the index: %w", err)
	}
	bad := func(why string) error { return fmt.Errorf("safegit: index %s: %s", path, why) }
	if len(data) < 12+hashSize || string(data[:4]) != "DIRC" {
		return nil, false, bad("not an index file")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, false, bad(fmt.Sprintf("version %d, which gocodex does not read", version))
	}
	count := binary.BigEndian.Uint32(data[8:12])
	body := data[:len(data)-hashSize] // the trailing checksum
	off := 12
	fixed := 40 + hashSize + 2 // stat data and mode, the object id, the flags
	var prev []byte
	for range count {
		if off+fixed > len(body) {
			return nil, false, bad("truncated entry")
		}
		mode := binary.BigEndian.Uint32(body[off+24 : off+28])
		flags := binary.BigEndian.Uint16(body[off+fixed-2 : off+fixed])
		nameAt := off + fixed
		if flags&0x4000 != 0 { // extended flags (version 3 and later)
			nameAt += 2
		}
		var name []byte
		if version == 4 {
			strip, n := varint(body[min(nameAt, len(body)):])
			if n == 0 || strip > uint64(len(prev)) {
				return nil, false, bad("bad path compression")
			}
			nameAt += n
			end := bytes.IndexByte(body[min(nameAt, len(body)):], 0)
			if end < 0 {
				return nil, false, bad("unterminated path")
			}
			name = append(append([]byte{}, prev[:uint64(len(prev))-strip]...), body[nameAt:nameAt+end]...)
			off = nameAt + end + 1
		} else {
			end := bytes.IndexByte(body[min(nameAt, len(body)):], 0)
			if end < 0 {
				return nil, false, bad("unterminated path")
			}
			name = body[nameAt : nameAt+end]
			off += (nameAt - off + end + 8) &^ 7 // NUL padding to a multiple of eight
		}
		if mode&0o170000 == 0o160000 {
			links = append(links, string(name))
		}
		prev = name
	}
	// Extensions: a four-byte signature and a four-byte size each.
	for off+8 <= len(body) {
		size := int(binary.BigEndian.Uint32(body[off+4 : off+8]))
		if string(body[off:off+4]) == "link" {
			split = true
		}
		if size < 0 || off+8+size > len(body) {
			return nil, false, bad("truncated extension")
		}
		off += 8 + size
	}
	return links, split, nil
}

// varint decodes git's offset varint (varint.c); n is 0 when buf holds none.
func varint(buf []byte) (v uint64, n int) {
	if len(buf) == 0 {
		return 0, 0
	}
	c := buf[0]
	v, n = uint64(c&127), 1
	for c&128 != 0 {
		if n >= len(buf) || n > 9 {
			return 0, 0
		}
		v++
		c = buf[n]
		n++
		v = v<<7 + uint64(c&127)
	}
	return v, n
}
