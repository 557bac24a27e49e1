package appserver

import (
	"context"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/protocol"
)

// threadRollbackParams are thread/rollback's, as Codex's app-server took them before 0.169
// replaced the method with thread/revert; RestoreFiles is gocodex's own opt-in.
type threadRollbackParams struct {
	ThreadID string `json:"threadId"`
	NumTurns int    `json:"numTurns"`
	// RestoreFiles also restores the files the dropped turns changed, from the thread's
	// snapshots (docs/app-server.md). Without it, as in Codex, only history changes.
	RestoreFiles bool `json:"restoreFiles"`
}

func (r *threads) registerRollback(s *Server) {
	s.Handle("thread/rollback", Typed(r.rollback))
}

// rollback drops the last turns from a loaded thread's history. With restoreFiles the
// turns' files are restored first, and a refusal (a hand edit of a file they changed, a
// rewind past the first turn) leaves history and files alone.
func (r *threads) rollback(ctx context.Context, c *Conn, p threadRollbackParams) (threadResponse, error) {
	lt, err := r.loadedOrErr(p.ThreadID)
	if err != nil {
		return threadResponse{}, err
	}
	if p.NumTurns < 1 {
		return threadResponse{}, InvalidRequest("num_turns must be >= 1")
	}
	if _, running := lt.runningTurn(); running {
		return threadResponse{}, InvalidRequest("Cannot rollback while a turn is in progress.")
	}
	if p.RestoreFiles {
		if _, err := app.RewindFiles(ctx, codexHome(r.srv), p.ThreadID, lt.cfg.Cwd, p.NumTurns, false); err != nil {
			return threadResponse{}, InvalidRequest(err.Error())
		}
	} else if err := app.ForgetTurns(ctx, codexHome(r.srv), p.ThreadID, lt.cfg.Cwd, p.NumTurns); err != nil {
		// The files stay; only a later rewind of files would be off, and it refuses then.
		r.srv.logger.Warn("snapshots not rolled back with the conversation", "thread", p.ThreadID, "err", err)
	}
	if err := lt.th.SubmitWithID(newSubmissionID(), protocol.ThreadRollbackOp{NumTurns: p.NumTurns}); err != nil {
		return threadResponse{}, internalError(err.Error())
	}
	// The thread's turns drop the same turns the history did (as a reload would show).
	lt.mu.Lock()
	lt.proj = dropUserTurns(lt.id, lt.proj.Turns(), p.NumTurns)
	lt.mu.Unlock()
	return threadResponse{lt.v2(false)}, nil
}
