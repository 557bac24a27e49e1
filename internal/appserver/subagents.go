package appserver

import (
	"time"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/protocol"
)

// Sub-agents (multi_agent_v2) are threads of the host that no client started: their events
// come from the host's registry, and go to the connections of their parent as Codex 0.169
// sends them (status, turn and item notifications; no thread/started). A child's approval
// request goes to those connections like its parent's.

// observeSubagents has the host's sub-agents shown here; once per App.
func (r *threads) observeSubagents(a *app.App) {
	a.ObserveSubagents(r.childEvent)
}

// childEvent delivers one event of a sub-agent; false when its parent is not loaded here
// (nobody could see it or answer its approvals).
func (r *threads) childEvent(child app.Thread, parentID string, ev protocol.Event) bool {
	// Looked up in its own map: an unloaded child still delivers its last events (its
	// shutdown), which end its deliveries.
	v, ok := r.children.Load(child.ID())
	lt, _ := v.(*loadedThread)
	if !ok {
		parent, ok := r.get(parentID)
		if !ok {
			return false
		}
		now := time.Now()
		lt = &loadedThread{id: child.ID(), th: child, app: parent.app, cfg: parent.cfg,
			info: threadInfo{Source: "subagent", CreatedAt: now, UpdatedAt: now, Ephemeral: parent.info.Ephemeral,
				CLIVersion: parent.info.CLIVersion, Originator: parent.info.Originator, HistoryMode: parent.info.HistoryMode}}
		r.load(nil, lt)
		r.children.Store(child.ID(), lt)
		parent.mu.Lock()
		subs := append([]*Conn(nil), parent.subs...)
		parent.mu.Unlock()
		for _, c := range subs {
			r.subscribe(c, lt)
		}
		lt.markReady()
	}
	lt.deliver(ev)
	if _, done := ev.Msg.(protocol.ShutdownCompleteEvent); done {
		r.children.Delete(child.ID())
		r.table.Unload(lt)
		lt.closed()
		close(lt.pumpDone)
	}
	return true
}
