package appserver

import (
	"context"
	"runtime"

	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// windowsSandbox/readiness and windowsSandbox/setupStart: gocodex has no Windows sandbox.
// Off Windows Codex 0.169 reports it not configured, and accepts a setup request only to
// report it failed in windowsSandbox/setupCompleted; gocodex answers the same way on every
// system, saying on Windows that gocodex itself lacks it.

type windowsSandboxSetupStartParams struct {
	Mode string  `json:"mode"`
	Cwd  *string `json:"cwd"`
}

type windowsSandboxSetupCompleted struct {
	Error   *string `json:"error"`
	Mode    string  `json:"mode"`
	Success bool    `json:"success"`
}

func registerWindowsSandboxMethods(s *Server) {
	s.Handle("windowsSandbox/readiness", TypedOptional(func(ctx context.Context, c *Conn, _ struct{}) (map[string]string, error) {
		return map[string]string{"status": "notConfigured"}, nil
	}))
	s.Handle("windowsSandbox/setupStart", Typed(func(ctx context.Context, c *Conn, p windowsSandboxSetupStartParams) (map[string]bool, error) {
		if p.Mode != "elevated" && p.Mode != "unelevated" {
			return nil, InvalidRequest("Invalid request: unknown variant `" + p.Mode + "`, expected `elevated` or `unelevated`")
		}
		msg := "legacy Windows sandbox setup is only supported on Windows"
		if p.Mode == "elevated" {
			msg = "elevated Windows sandbox setup is only supported on Windows"
		}
		if runtime.GOOS == "windows" {
			msg = "gocodex does not support the Windows sandbox"
		}
		jsonrpc.AfterReply(ctx, func() {
			_ = c.Notify(c.Context(), "windowsSandbox/setupCompleted", windowsSandboxSetupCompleted{Error: &msg, Mode: p.Mode})
		})
		return map[string]bool{"started": true}, nil
	}))
}
