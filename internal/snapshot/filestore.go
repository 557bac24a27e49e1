package snapshot

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// maxFiles bounds a snapshot without git: a turn started in a home directory or a disk root
// must fail plainly rather than copy it all.
const maxFiles = 200_000

// fileStore snapshots a plain directory into a content-addressed store: objects/<2>/<62>
// hold file bytes (a symlink's target), manifests/<id>.gz list every path with its mode,
// content hash and the stat fields that let the next snapshot skip re-hashing it.
type fileStore struct {
	root, dir string
	// skip holds absolute directories never snapshotted (the journal's own CODEX_HOME when
	// it lies under the root).
	skip []string
	// last is the manifest id the stat cache is loaded from on first use.
	last  string
	cache *manifest
	// rewinds is the journal's rewind count the cache was built under.
	rewinds int
	// loaded keeps a few parsed manifests: a plan reads each snapshot of its turns twice.
	loaded map[string]*manifest
	// maxFiles is maxFiles; tests lower it.
	maxFiles int
}

// record is one path of a manifest.
type record struct {
	entry
	Size, Mtime int64
	Ino         uint64
}

type manifest struct {
	// start is when the snapshot began: a file whose mtime is not before it may have
	// changed again within the clock's granularity, so its hash is not trusted as a cache.
	start   int64
	records map[string]record
	order   []string
}

const manifestHeader = "gocodex-snapshot-manifest 1"

func (s *fileStore) exactPerm() bool { return true }

func (s *fileStore) objectPath(id string) string {
	return filepath.Join(s.dir, "objects", id[:2], id[2:])
}

func (s *fileStore) manifestPath(id string) string {
	return filepath.Join(s.dir, "manifests", id+".gz")
}

func (s *fileStore) snapshot(ctx context.Context) (string, error) {
	if s.cache == nil && s.last != "" {
		s.cache, _ = s.load(s.last) // a cache only: without it every file is hashed again
	}
	m := &manifest{start: time.Now().UnixNano(), records: map[string]record{}}
	limit := s.maxFiles
	if limit == 0 {
		limit = maxFiles
	}
	err := filepath.WalkDir(s.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("snapshot: walk %s: %w", path, err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if path != s.root && (d.Name() == ".git" || s.skipped(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil // sockets, fifos, devices: not content
		}
		if len(m.records) >= limit {
			return fmt.Errorf("snapshot: %s holds more than %d files; snapshots without git are for project directories (run gocodex in a git repository, or in a smaller directory)", s.root, limit)
		}
		rel, err := filepath.Rel(s.root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("snapshot: stat %s: %w", path, err)
		}
		r, err := s.record(path, rel, info, s.cache)
		if err != nil {
			return err
		}
		m.records[rel] = r
		m.order = append(m.order, rel)
		return nil
	})
	if err != nil {
		return "", err
	}
	id, err := s.save(m)
	if err != nil {
		return "", err
	}
	s.cache, s.last = m, id
	return id, nil
}

func (s *fileStore) skipped(path string) bool {
	for _, p := range s.skip {
		if path == p {
			return true
		}
	}
	return false
}

// record describes one file, re-using the cached hash when the stat fields match.
func (s *fileStore) record(path, rel string, info fs.FileInfo, cache *manifest) (record, error) {
	r := record{Size: info.Size(), Mtime: info.ModTime().UnixNano(), Ino: inode(info)}
	r.Kind, r.Perm = kindFile, info.Mode().Perm()
	if info.Mode()&fs.ModeSymlink != 0 {
		r.Kind, r.Perm = kindSymlink, 0o777
	}
	if cache != nil {
		if c, ok := cache.records[rel]; ok && c.Kind == r.Kind && c.Size == r.Size && c.Mtime == r.Mtime && c.Ino == r.Ino && r.Mtime < cache.start {
			r.ID = c.ID
			return r, nil
		}
	}
	var err error
	if r.Kind == kindSymlink {
		target, lerr := os.Readlink(path)
		if lerr != nil {
			return r, fmt.Errorf("snapshot: read link %s: %w", path, lerr)
		}
		r.ID, err = s.putBytes([]byte(target))
	} else if r.Size <= smallFile {
		data, rerr := os.ReadFile(path)
		if rerr != nil {
			return r, fmt.Errorf("snapshot: read %s: %w", path, rerr)
		}
		r.ID, err = s.putBytes(data)
	} else {
		f, oerr := os.Open(path)
		if oerr != nil {
			return r, fmt.Errorf("snapshot: read %s: %w", path, oerr)
		}
		r.ID, err = s.putStream(f)
		f.Close()
	}
	if err != nil {
		return r, fmt.Errorf("snapshot: store %s: %w", path, err)
	}
	return r, nil
}

// smallFile is the size up to which a file is hashed in memory, so that content the store
// already holds costs no write.
const smallFile = 8 << 20

// putBytes stores data under its sha-256 unless it is there already. Objects are not
// fsynced (as git's loose objects): read verifies the hash, so a torn one is reported.
func (s *fileStore) putBytes(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	id := hex.EncodeToString(sum[:])
	dst := s.objectPath(id)
	if _, err := os.Stat(dst); err == nil {
		return id, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return "", err
	}
	return id, writeFile(dst, data, 0o600, false)
}

// putStream stores a large file's content, hashing it while copying it to a temporary file.
func (s *fileStore) putStream(src io.Reader) (string, error) {
	objects := filepath.Join(s.dir, "objects")
	if err := os.MkdirAll(objects, 0o700); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(objects, ".tmp-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(h, tmp), src); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	id := hex.EncodeToString(h.Sum(nil))
	dst := s.objectPath(id)
	if _, err := os.Stat(dst); err == nil {
		return id, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return "", err
	}
	return id, os.Rename(tmp.Name(), dst)
}

// save writes the manifest under the hash of its records (the header's start time is not
// part of it, so an unchanged tree costs no new file).
func (s *fileStore) save(m *manifest) (string, error) {
	var body bytes.Buffer
	for _, p := range m.order {
		r := m.records[p]
		kind := "f"
		if r.Kind == kindSymlink {
			kind = "l"
		}
		fmt.Fprintf(&body, "%s %o %d %d %d %s\t%s\x00", kind, r.Perm, r.Size, r.Mtime, r.Ino, r.ID, p)
	}
	sum := sha256.Sum256(body.Bytes())
	id := hex.EncodeToString(sum[:])
	path := s.manifestPath(id)
	if _, err := os.Stat(path); err == nil {
		return id, nil
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	fmt.Fprintf(zw, "%s %d\n", manifestHeader, m.start)
	zw.Write(body.Bytes())
	if err := zw.Close(); err != nil {
		return "", fmt.Errorf("snapshot: compress manifest: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("snapshot: create manifest dir: %w", err)
	}
	if err := writeFileAtomic(path, gz.Bytes(), 0o600); err != nil {
		return "", err
	}
	s.remember(id, m)
	return id, nil
}

func (s *fileStore) remember(id string, m *manifest) {
	if s.loaded == nil || len(s.loaded) >= 8 {
		s.loaded = map[string]*manifest{}
	}
	s.loaded[id] = m
}

// load reads a manifest; a damaged one is an error naming the file.
func (s *fileStore) load(id string) (*manifest, error) {
	if m, ok := s.loaded[id]; ok {
		return m, nil
	}
	path := s.manifestPath(id)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("snapshot: read manifest: %w", err)
	}
	defer f.Close()
	corrupt := func(why string) error {
		return fmt.Errorf("snapshot: manifest %s is corrupt: %s", path, why)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, corrupt(err.Error())
	}
	br := bufio.NewReader(zr)
	head, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(head, manifestHeader+" ") {
		return nil, corrupt("no header")
	}
	m := &manifest{records: map[string]record{}}
	if m.start, err = strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(head, manifestHeader+" ")), 10, 64); err != nil {
		return nil, corrupt("bad start time in the header")
	}
	for {
		line, err := br.ReadString(0)
		if err == io.EOF && line == "" {
			break
		}
		if err != nil {
			return nil, corrupt(err.Error())
		}
		r, rel, perr := parseRecord(strings.TrimSuffix(line, "\x00"))
		if perr != nil {
			return nil, corrupt(perr.Error())
		}
		m.records[rel] = r
		m.order = append(m.order, rel)
	}
	s.remember(id, m)
	return m, nil
}

func parseRecord(line string) (record, string, error) {
	head, rel, ok := strings.Cut(line, "\t")
	f := strings.Fields(head)
	if !ok || len(f) != 6 || checkRelPath(rel) != nil {
		return record{}, "", fmt.Errorf("bad record %q", line)
	}
	var r record
	switch f[0] {
	case "f":
		r.Kind = kindFile
	case "l":
		r.Kind = kindSymlink
	default:
		return r, "", fmt.Errorf("bad kind in record %q", line)
	}
	perm, err1 := strconv.ParseUint(f[1], 8, 32)
	size, err2 := strconv.ParseInt(f[2], 10, 64)
	mtime, err3 := strconv.ParseInt(f[3], 10, 64)
	ino, err4 := strconv.ParseUint(f[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || len(f[5]) != 64 || !validSnapshotID(f[5]) || perm > 0o7777 {
		return r, "", fmt.Errorf("bad field in record %q", line)
	}
	r.Perm, r.Size, r.Mtime, r.Ino, r.ID = os.FileMode(perm), size, mtime, ino, f[5]
	return r, rel, nil
}

func (s *fileStore) diff(_ context.Context, a, b string) (map[string]delta, error) {
	out := map[string]delta{}
	if a == b {
		return out, nil
	}
	ma, err := s.load(a)
	if err != nil {
		return nil, err
	}
	mb, err := s.load(b)
	if err != nil {
		return nil, err
	}
	for p, ra := range ma.records {
		rb, ok := mb.records[p]
		if !ok || rb.entry != ra.entry {
			out[p] = delta{Path: p, Old: ra.entry, New: rb.entry}
		}
	}
	for p, rb := range mb.records {
		if _, ok := ma.records[p]; !ok {
			out[p] = delta{Path: p, New: rb.entry}
		}
	}
	return out, nil
}

func (s *fileStore) read(_ context.Context, entries map[string]entry) (map[string][]byte, error) {
	out := make(map[string][]byte, len(entries))
	for p, e := range entries {
		data, err := os.ReadFile(s.objectPath(e.ID))
		if err != nil {
			return nil, fmt.Errorf("snapshot: the store lost the content of %s: %w", p, err)
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != e.ID {
			return nil, fmt.Errorf("snapshot: the stored content of %s (%s) is corrupt", p, s.objectPath(e.ID))
		}
		out[p] = data
	}
	return out, nil
}

// pin and unpin have nothing to do: the journal names the manifests it keeps.
func (s *fileStore) pin(context.Context, string, string) error { return nil }
func (s *fileStore) unpin(context.Context, []string) error     { return nil }

// release removes the manifests not in keep and the objects none of the kept ones names.
func (s *fileStore) release(_ context.Context, keep []string) error {
	kept := map[string]bool{}
	for _, id := range keep {
		kept[id] = true
	}
	live := map[string]bool{}
	for id := range kept {
		m, err := s.load(id)
		if err != nil {
			return err
		}
		for _, r := range m.records {
			live[r.ID] = true
		}
	}
	manifests, _ := filepath.Glob(filepath.Join(s.dir, "manifests", "*.gz"))
	for _, p := range manifests {
		if !kept[strings.TrimSuffix(filepath.Base(p), ".gz")] {
			if err := os.Remove(p); err != nil {
				return fmt.Errorf("snapshot: release: %w", err)
			}
		}
	}
	objects, _ := filepath.Glob(filepath.Join(s.dir, "objects", "*", "*"))
	for _, p := range objects {
		if !live[filepath.Base(filepath.Dir(p))+filepath.Base(p)] {
			if err := os.Remove(p); err != nil {
				return fmt.Errorf("snapshot: release: %w", err)
			}
		}
	}
	// The stat cache may name objects just removed: start it afresh.
	s.cache, s.last, s.loaded = nil, "", nil
	return nil
}
