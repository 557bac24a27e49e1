package appserver

import (
	"context"
	"strings"

	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/protocol"
)

// ThreadShellCommand (thread/shellCommand) hands the user's own command to the engine (run_user_shell_command), which
// runs it as Codex does: unsandboxed in the user's shell, as a turn of its own (or beside a
// running turn), reported as a commandExecution item with source userShell, and recorded so
// the model sees it on its next turn.
func (a *api) ThreadShellCommand(ctx context.Context, c *Conn, p ThreadShellCommandParams) (ThreadShellCommandResponse, error) {
	r := a.r
	lt, err := r.loadedOrErr(p.ThreadID)
	if err != nil {
		return ThreadShellCommandResponse{}, err
	}
	if strings.TrimSpace(p.Command) == "" {
		return ThreadShellCommandResponse{}, InvalidRequest("command must not be empty")
	}
	select {
	case <-lt.th.Done():
		return ThreadShellCommandResponse{}, InvalidRequest("thread is closed")
	default:
	}
	// Submitted once the answer is out, so its notifications follow the response.
	jsonrpc.AfterReply(ctx, func() {
		_ = lt.th.SubmitWithID(newSubmissionID(), protocol.RunUserShellCommandOp{Command: p.Command})
	})
	return ThreadShellCommandResponse{}, nil
}
