package appserver

import (
	"context"
	"strings"

	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/protocol"
)

type shellCommandParams struct {
	ThreadID  string `json:"threadId"`
	Command   string `json:"command"`
	TimeoutMs *int64 `json:"timeoutMs"`
}

// shellCommand hands the user's own command to the engine (run_user_shell_command), which
// runs it as Codex does: unsandboxed in the user's shell, as a turn of its own (or beside a
// running turn), reported as a commandExecution item with source userShell, and recorded so
// the model sees it on its next turn.
func (r *threads) shellCommand(ctx context.Context, c *Conn, p shellCommandParams) (empty, error) {
	lt, err := r.loadedOrErr(p.ThreadID)
	if err != nil {
		return empty{}, err
	}
	if strings.TrimSpace(p.Command) == "" {
		return empty{}, InvalidRequest("command must not be empty")
	}
	select {
	case <-lt.th.Done():
		return empty{}, InvalidRequest("thread is closed")
	default:
	}
	// Submitted once the answer is out, so its notifications follow the response.
	jsonrpc.AfterReply(ctx, func() {
		_ = lt.th.SubmitWithID(newSubmissionID(), protocol.RunUserShellCommandOp{Command: p.Command})
	})
	return empty{}, nil
}
