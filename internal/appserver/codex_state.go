package appserver

import (
	threadsvc "github.com/gocodex/gocodex/internal/host/threads"
)

// store is the host's thread service for this server's CODEX_HOME: every stored thread is
// read, forked, archived, renamed and deleted through it.
func (r *threads) store() *threadsvc.Service { return threadsvc.New(codexHome(r.srv)) }

// warnPartial logs what the thread service could not mirror (Codex's state database, the
// session index, the snapshots): the operation happened, so it is no error for the client.
func (r *threads) warnPartial(err error) error {
	if threadsvc.IsPartial(err) {
		r.srv.logger.Warn("thread stores not all updated; Codex's lists may show the thread as it was until Codex repairs its row", "err", err)
		return nil
	}
	return err
}
