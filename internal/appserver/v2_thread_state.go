package appserver

import (
	"time"

	"github.com/gocodex/gocodex/internal/appserver/wire"
)

// What gocodex keeps about threads outside their rollouts (sections, attachments, goals,
// edited git metadata in gocodex_thread_state.json; read states in
// gocodex_read_state.jsonl) is kept by the host's extensions (host_ext.go).

// registerThreadFamilies registers the thread method outside Codex's stable schema that the
// host's read-state extension keeps (thread/readState/update); the schema's thread/* and
// threadSection/* answer through the generated ThreadAPI and ThreadSectionAPI.
func (r *threads) registerThreadFamilies(s *Server) {
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
func (r *threads) forgetThreadState(id string) { r.extensions().ThreadDeleted(id) }

// copyAttachments gives a fork its source's attachments, as new ones (Codex 0.169 copies
// attachments to a fork, not its goal or section).
func (r *threads) copyAttachments(from, to string) { r.extensions().ThreadForked(from, to) }
