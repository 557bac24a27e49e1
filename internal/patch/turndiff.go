package patch

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gocodex/gocodex/internal/gitmarker"
)

const (
	zeroOID = "0000000000000000000000000000000000000000"
	devNull = "/dev/null"
)

// TurnDiff accumulates what a turn changed. The first time a patch touches a path, the
// file's content at that moment (or its absence) becomes the baseline; UnifiedDiff compares
// every tracked file's baseline with what is on disk now, in git's format, for the
// turn_diff event. A moved file keeps its baseline and is reported under its new path. It is
// not safe for concurrent use; the engine owns one per turn.
type TurnDiff struct {
	files  []*trackedFile
	byPath map[string]*trackedFile // current absolute path → file
	// cwd names files outside any git repository, relative to it when they are under it.
	cwd string
}

type trackedFile struct {
	origPath, curPath string
	baseline          []byte // nil when the file did not exist
	baseMode          string
}

// NewTurnDiff returns an empty tracker.
func NewTurnDiff() *TurnDiff { return &TurnDiff{byPath: map[string]*trackedFile{}} }

// SetCwd sets the turn's working directory, which names files outside any git repository
// (relative to it when they are under it, else absolute). The first call wins; without one,
// the directory of the first tracked patch is used.
func (t *TurnDiff) SetCwd(cwd string) {
	if t.cwd == "" {
		t.cwd = cwd
	}
}

// Track takes baselines for the files a verified patch is about to change. Call it before
// applying the patch.
func (t *TurnDiff) Track(v *Verified) {
	t.SetCwd(v.Cwd)
	for _, c := range v.Changes {
		f := t.track(c.Path)
		if c.MovePath == "" || c.MovePath == c.Path {
			continue
		}
		// Like Codex: a move to a new path is a rename (one entry, old path → new path); a
		// move onto a file that exists or is tracked shows as the source deleted and the
		// destination changed.
		if _, tracked := t.byPath[c.MovePath]; tracked {
			continue
		}
		if _, _, exists := readBlob(c.MovePath); exists {
			t.track(c.MovePath)
			continue
		}
		delete(t.byPath, c.Path)
		f.curPath = c.MovePath
		t.byPath[c.MovePath] = f
	}
}

func (t *TurnDiff) track(path string) *trackedFile {
	if f, ok := t.byPath[path]; ok {
		return f
	}
	f := &trackedFile{origPath: path, curPath: path, baseMode: "100644"}
	if data, mode, ok := readBlob(path); ok {
		f.baseline, f.baseMode = data, mode
	}
	t.files = append(t.files, f)
	t.byPath[path] = f
	return f
}

// readBlob returns what git would store for path: the bytes of a file or a symlink's target,
// with its mode.
func readBlob(path string) ([]byte, string, bool) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, "", false
	}
	switch {
	case info.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			return nil, "", false
		}
		return []byte(target), "120000", true
	case info.Mode().IsRegular():
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, "", false
		}
		if data == nil {
			data = []byte{}
		}
		mode := "100644"
		if info.Mode()&0o111 != 0 {
			mode = "100755"
		}
		return data, mode, true
	}
	return nil, "", false
}

func blobOID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// UnifiedDiff returns the git-style diff of every tracked file against its baseline, files
// ordered by path; empty when nothing differs.
func (t *TurnDiff) UnifiedDiff() string {
	type entry struct {
		display string
		text    string
	}
	var entries []entry
	for _, f := range t.files {
		left, right := t.displayPath(f.origPath), t.displayPath(f.curPath)
		if text := fileDiff(f, left, right); text != "" {
			entries = append(entries, entry{right, text})
		}
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].display < entries[j].display })
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.text)
	}
	return b.String()
}

func fileDiff(f *trackedFile, left, right string) string {
	cur, curMode, exists := readBlob(f.curPath)
	if !exists {
		cur = nil
		curMode = "100644"
	}
	hadBase := f.baseline != nil
	if hadBase == exists && string(f.baseline) == string(cur) {
		return "" // unchanged, or created and removed again within the turn
	}
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\n", left, right)
	switch {
	case !hadBase:
		fmt.Fprintf(&b, "new file mode %s\n", curMode)
	case !exists:
		fmt.Fprintf(&b, "deleted file mode %s\n", f.baseMode)
	case f.baseMode != curMode:
		fmt.Fprintf(&b, "old mode %s\nnew mode %s\n", f.baseMode, curMode)
	}
	leftOID, rightOID := zeroOID, zeroOID
	if hadBase {
		leftOID = blobOID(f.baseline)
	}
	if exists {
		rightOID = blobOID(cur)
	}
	fmt.Fprintf(&b, "index %s..%s\n", leftOID, rightOID)
	oldHeader, newHeader := "a/"+left, "b/"+right
	if !hadBase {
		oldHeader = devNull
	}
	if !exists {
		newHeader = devNull
	}
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldHeader, newHeader)
	if !utf8.Valid(f.baseline) || !utf8.Valid(cur) {
		b.WriteString("Binary files differ\n")
		return b.String()
	}
	b.WriteString(unifiedHunks(string(f.baseline), string(cur), 3))
	return b.String()
}

// displayPath names a file as Codex does: relative to the root of the git repository
// holding it; outside any repository, relative to the turn's directory when under it, else
// by its absolute path.
func (t *TurnDiff) displayPath(abs string) string {
	if rel, ok := gitRelative(abs); ok {
		return rel
	}
	if t.cwd != "" {
		if rel, err := filepath.Rel(t.cwd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(abs)
}

// gitRelative returns abs relative to the root of the git repository holding it.
func gitRelative(abs string) (string, bool) {
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if gitmarker.Exists(os.Lstat, dir, ".git") {
			rel, err := filepath.Rel(dir, abs)
			return filepath.ToSlash(rel), err == nil
		}
		if parent := filepath.Dir(dir); parent == dir {
			return "", false
		}
	}
}
