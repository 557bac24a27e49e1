package appserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/filelock"
)

// threadStateFileName is where gocodex keeps what Codex 0.169 keeps about threads in its
// SQLite state database (state_5.sqlite, goals_1.sqlite) rather than in rollouts: thread
// sections and which thread sits in which, attachments, goals and edited git metadata.
// One JSON document in CODEX_HOME, rewritten whole through a temporary file and a rename,
// so a reader never sees half of it.
const threadStateFileName = "gocodex_thread_state.json"

// pinnedSectionID is the section every Codex 0.169 state database starts with ("Pinned").
const pinnedSectionID = "01984de2-8f74-7c91-a3b2-5c5e937cf318"

// threadStateDoc is the file's content.
type threadStateDoc struct {
	Version int `json:"version"`
	// Sections are in creation order, the built-in "Pinned" first.
	Sections       []v2ThreadSection             `json:"sections"`
	ThreadSections map[string]threadSectionEntry `json:"threadSections,omitempty"`
	Attachments    []storedAttachment            `json:"attachments,omitempty"`
	Git            map[string]gitInfo            `json:"git,omitempty"`
	Goals          map[string]v2ThreadGoal       `json:"goals,omitempty"`
	// GoalTimeMs is the time each active goal's turns took, to the millisecond.
	GoalTimeMs map[string]int64 `json:"goalTimeMs,omitempty"`
}

type threadSectionEntry struct {
	SectionID string `json:"sectionId"`
	EnteredAt int64  `json:"enteredAt"`
	// Position orders the threads of a section (thread/list's section_position).
	Position int `json:"position"`
}

type storedAttachment struct {
	ThreadID string `json:"threadId"`
	v2ThreadAttachment
}

// threadState reads and rewrites the file; mu orders this process's changes. Every change
// reads the file again first, so another process's earlier change is kept.
type threadState struct {
	mu   sync.Mutex
	path string
}

func newThreadState(codexHome string) *threadState {
	return &threadState{path: filepath.Join(codexHome, threadStateFileName)}
}

// load reads the document; a missing file is the initial state.
func (s *threadState) load() (*threadStateDoc, error) {
	doc := &threadStateDoc{Version: 1}
	b, err := os.ReadFile(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		doc.Sections = []v2ThreadSection{{ID: pinnedSectionID, Name: "Pinned"}}
		return doc, nil
	case err != nil:
		return nil, internalError("read thread state: " + err.Error())
	}
	if err := json.Unmarshal(b, doc); err != nil {
		return nil, internalError(fmt.Sprintf("thread state %s is damaged: %v", s.path, err))
	}
	return doc, nil
}

// read calls f with the current document.
func (s *threadState) read(f func(*threadStateDoc)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	doc, err := s.load()
	if err != nil {
		return err
	}
	f(doc)
	return nil
}

// update lets f change the document and writes it back unless f fails.
func (s *threadState) update(f func(*threadStateDoc) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return internalError("thread state: " + err.Error())
	}
	unlock, err := filelock.Exclusive(s.path + ".lock")
	if err != nil {
		return internalError("lock thread state: " + err.Error())
	}
	defer unlock()
	doc, err := s.load()
	if err != nil {
		return err
	}
	if err := f(doc); err != nil {
		return err
	}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return internalError(err.Error())
	}
	if err := writeFileAtomic(s.path, append(b, '\n')); err != nil {
		return internalError("write thread state: " + err.Error())
	}
	return nil
}

// writeFileAtomic writes data to a temporary file next to path and renames it over path.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		_ = os.Remove(name)
	}
	return err
}

// state is the server's thread state store, made on first use.
func (r *threads) state() *threadState {
	r.stateOnce.Do(func() { r.stateStore = newThreadState(codexHome(r.srv)) })
	return r.stateStore
}

// registerThreadFamilies registers the thread methods kept in the thread state file and the
// history edits: sections, attachments, goals, metadata, revert and item injection.
func (r *threads) registerThreadFamilies(s *Server) {
	r.registerSections(s)
	r.registerAttachments(s)
	r.registerGoals(s)
	r.registerMetadata(s)
	r.registerRevert(s)
	r.registerReadState(s)
}

// unloadGone unloads a thread being archived or deleted: its connections hear its status
// go notLoaded and no thread/closed (Codex 0.169's order). The function it returns sends
// c the method's own notification after that status, on the path the status took.
func (r *threads) unloadGone(c *Conn, lt *loadedThread) func(wire.V2Notification) {
	lt.mu.Lock()
	lt.gone = true
	q := lt.queues[c]
	lt.mu.Unlock()
	r.unload(lt)
	<-lt.pumpDone
	return func(n wire.V2Notification) {
		if q == nil {
			c.broadcast().push(n) // the status went this way too
			return
		}
		select { // the subscriber queue sends its last notifications, then stops
		case <-q.quit:
		case <-c.Context().Done():
		case <-time.After(5 * time.Second):
		}
		_ = c.Notify(c.Context(), n.Method, n.Params)
	}
}

// forgetThreadState drops a deleted thread's section, attachments, goal and git edits.
func (r *threads) forgetThreadState(id string) {
	err := r.state().update(func(d *threadStateDoc) error {
		delete(d.ThreadSections, id)
		delete(d.Goals, id)
		delete(d.GoalTimeMs, id)
		delete(d.Git, id)
		kept := d.Attachments[:0]
		for _, a := range d.Attachments {
			if a.ThreadID != id {
				kept = append(kept, a)
			}
		}
		d.Attachments = kept
		return nil
	})
	if err != nil {
		r.srv.logger.Warn("thread state not cleaned after delete", "thread", id, "err", err)
	}
}

// copyAttachments gives a fork its source's attachments, as new ones (Codex 0.169 copies
// attachments to a fork, not its goal or section).
func (r *threads) copyAttachments(from, to string) {
	err := r.state().update(func(d *threadStateDoc) error {
		now := time.Now().Unix()
		for _, a := range d.Attachments {
			if a.ThreadID == from {
				c := a
				c.ThreadID, c.ID, c.CreatedAt = to, newSubmissionID(), now
				d.Attachments = append(d.Attachments, c)
			}
		}
		return nil
	})
	if err != nil {
		r.srv.logger.Warn("attachments not copied to the fork", "thread", to, "err", err)
	}
}
