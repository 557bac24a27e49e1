package rollout

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// IndexFileName is the summary cache kept in each folder of rollouts. It is derived data:
// the rollouts stay the source of truth, a missing, unreadable or outdated cache is rebuilt
// from them, and a folder that cannot be written to simply goes without.
const IndexFileName = ".rollout-index.json"

// directReads is how many heads a walk reads before it turns to the folders' caches: the
// first page of an unfiltered listing needs about a page of heads and should not pay for
// loading a cache, while a filter that rejects most threads would otherwise read every head.
const directReads = 64

// indexVersion 2 added history_mode, 3 originator, 4 the first turn's model and effort.
const indexVersion = 4

type indexFile struct {
	Version int                   `json:"version"`
	Entries map[string]indexEntry `json:"entries"`
}

// indexEntry is what a head yields that never changes once the first user message exists;
// the modification time is read from the file each time.
type indexEntry struct {
	ID            string    `json:"id"`
	ForkedFromID  string    `json:"forked_from_id,omitempty"`
	Preview       string    `json:"preview"`
	Cwd           string    `json:"cwd"`
	ModelProvider string    `json:"model_provider,omitempty"`
	Source        string    `json:"source,omitempty"`
	CLIVersion    string    `json:"cli_version,omitempty"`
	Git           *GitInfo  `json:"git,omitempty"`
	HistoryMode   string    `json:"history_mode,omitempty"`
	Originator    string    `json:"originator,omitempty"`
	Model         string    `json:"model,omitempty"`
	Effort        string    `json:"effort,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
}

// heads reads thread summaries for one walk, through the folders' caches once the walk has
// read directReads heads directly. Call flush when the walk is over.
type heads struct {
	reads int
	dirs  map[string]*dirIndex
	br    *bufio.Reader
}

type dirIndex struct {
	entries map[string]indexEntry
	dirty   bool
}

func newHeads() *heads {
	return &heads{dirs: map[string]*dirIndex{}, br: bufio.NewReaderSize(nil, 16<<10)}
}

// summary returns the thread summary of the rollout at path and whether it has a message
// from the user (threads without one are not listed). UpdatedAt is left for the caller.
func (h *heads) summary(path string) (ThreadSummary, bool) {
	dir, name := filepath.Split(path)
	if h.reads < directReads && h.dirs[dir] == nil {
		h.reads++
		s, ok, err := readSummaryWith(path, h.br)
		return s, ok && err == nil
	}
	ix := h.dirs[dir]
	if ix == nil {
		ix = loadDirIndex(dir)
		h.dirs[dir] = ix
	}
	if e, ok := ix.entries[name]; ok {
		return e.summary(path), true
	}
	s, ok, err := readSummaryWith(path, h.br)
	if err != nil || !ok {
		return s, false // not cached: it may get its first user message later
	}
	ix.entries[name] = entryOf(s)
	ix.dirty = true
	return s, true
}

// flush writes the caches that learned something. Errors are ignored: the cache only saves
// time.
func (h *heads) flush() {
	for dir, ix := range h.dirs {
		if ix.dirty {
			_ = writeDirIndex(dir, ix)
		}
	}
}

func loadDirIndex(dir string) *dirIndex {
	ix := &dirIndex{entries: map[string]indexEntry{}}
	data, err := os.ReadFile(filepath.Join(dir, IndexFileName))
	if err != nil {
		return ix
	}
	var f indexFile
	if json.Unmarshal(data, &f) != nil || f.Version != indexVersion || f.Entries == nil {
		return ix // unreadable or of another version: rebuilt as the walk goes
	}
	ix.entries = f.Entries
	return ix
}

// writeDirIndex replaces the cache atomically (temporary file, rename), so concurrent
// walkers read either version whole; the last writer wins, and any version is correct.
func writeDirIndex(dir string, ix *dirIndex) error {
	// Entries of files that are gone (archived, deleted) are dropped here.
	for name := range ix.entries {
		if _, err := os.Stat(filepath.Join(dir, name)); os.IsNotExist(err) {
			delete(ix.entries, name)
		}
	}
	data, err := json.Marshal(indexFile{Version: indexVersion, Entries: ix.entries})
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".rollout-index-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(dir, IndexFileName))
}

func entryOf(s ThreadSummary) indexEntry {
	return indexEntry{ID: s.ID, ForkedFromID: s.ForkedFromID, Preview: s.Preview, Cwd: s.Cwd, ModelProvider: s.ModelProvider,
		Source: s.Source, CLIVersion: s.CLIVersion, Git: s.Git, HistoryMode: s.HistoryMode, Originator: s.Originator,
		Model: s.Model, Effort: s.ReasoningEffort, CreatedAt: s.CreatedAt}
}

func (e indexEntry) summary(path string) ThreadSummary {
	return ThreadSummary{ID: e.ID, Path: path, ForkedFromID: e.ForkedFromID, Preview: e.Preview, Cwd: e.Cwd,
		ModelProvider: e.ModelProvider, Source: e.Source, CLIVersion: e.CLIVersion, Git: e.Git, HistoryMode: e.HistoryMode, Originator: e.Originator,
		Model: e.Model, ReasoningEffort: e.Effort, CreatedAt: e.CreatedAt}
}
