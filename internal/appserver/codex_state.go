package appserver

import (
	"time"

	"github.com/gocodex/gocodex/internal/codexstate"
)

// Codex's own tools list threads from its state database (internal/codexstate): what the
// app-server changes about a stored thread (archive, unarchive, name, delete) is written
// there too, as Codex's app-server does. A failure is logged, never the request's: the
// rollouts and session_index.jsonl stay the truth, and Codex repairs its rows from them.

func (r *threads) codexStateArchived(id, rolloutPath string, archived bool) {
	r.noteCodexState(id, codexstate.SetArchived(codexHome(r.srv), id, rolloutPath, archived, time.Now()))
}

func (r *threads) codexStateNamed(id, name string) {
	r.noteCodexState(id, codexstate.SetName(codexHome(r.srv), id, name))
}

func (r *threads) codexStateDeleted(id string) {
	r.noteCodexState(id, codexstate.DeleteThread(codexHome(r.srv), id))
}

func (r *threads) noteCodexState(id string, err error) {
	if err != nil {
		r.srv.logger.Warn("Codex's state database not updated; Codex's lists show the thread as it was until Codex repairs its row",
			"thread", id, "err", err)
	}
}
