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

// WindowsSandboxReadiness answers windowsSandbox/readiness.
func (a *api) WindowsSandboxReadiness(ctx context.Context, c *Conn) (WindowsSandboxReadinessResponse, error) {
	return WindowsSandboxReadinessResponse{Status: "notConfigured"}, nil
}

// WindowsSandboxSetupStart answers windowsSandbox/setupStart.
func (a *api) WindowsSandboxSetupStart(ctx context.Context, c *Conn, p WindowsSandboxSetupStartParams) (WindowsSandboxSetupStartResponse, error) {
	if p.Mode != "elevated" && p.Mode != "unelevated" {
		return WindowsSandboxSetupStartResponse{}, InvalidRequest("Invalid request: unknown variant `" + string(p.Mode) + "`, expected `elevated` or `unelevated`")
	}
	msg := "legacy Windows sandbox setup is only supported on Windows"
	if p.Mode == "elevated" {
		msg = "elevated Windows sandbox setup is only supported on Windows"
	}
	if runtime.GOOS == "windows" {
		msg = "gocodex does not support the Windows sandbox"
	}
	jsonrpc.AfterReply(ctx, func() {
		_ = c.Notify(c.Context(), "windowsSandbox/setupCompleted", WindowsSandboxSetupCompletedNotification{Error: &msg, Mode: p.Mode})
	})
	return WindowsSandboxSetupStartResponse{Started: true}, nil
}
