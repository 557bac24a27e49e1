package appserver

import (
	"context"
)

// app/list, app/installed and app/read: apps are ChatGPT connectors, offered to an account
// signed in with ChatGPT. Without such a sign-in there are none, and gocodex answers the
// empty lists Codex 0.169 answers then; signed in, it says it does not support them rather
// than claim the account has none.

type appsListParams struct {
	Cursor   *string `json:"cursor"`
	Limit    *uint32 `json:"limit"`
	ThreadID *string `json:"threadId"`
}

type appsReadParams struct {
	AppIDs *[]string `json:"appIds"`
}

const noApps = "gocodex does not support apps (ChatGPT connectors)"

func registerAppMethods(s *Server) {
	signedIn := func() bool { _, ok := accountBackend(s); return ok }
	s.Handle("app/list", TypedOptional(func(ctx context.Context, c *Conn, p appsListParams) (map[string]any, error) {
		if signedIn() {
			return nil, InvalidRequest(noApps)
		}
		return map[string]any{"data": []any{}, "nextCursor": nil}, nil
	}))
	s.Handle("app/installed", TypedOptional(func(ctx context.Context, c *Conn, _ appsListParams) (map[string]any, error) {
		if signedIn() {
			return nil, InvalidRequest(noApps)
		}
		return map[string]any{"apps": []any{}}, nil
	}))
	s.Handle("app/read", Typed(func(ctx context.Context, c *Conn, p appsReadParams) (map[string]any, error) {
		if p.AppIDs == nil {
			return nil, missingField("appIds")
		}
		if signedIn() {
			return nil, InvalidRequest(noApps)
		}
		missing := append([]string{}, *p.AppIDs...)
		return map[string]any{"apps": []any{}, "missingAppIds": missing}, nil
	}))
}
