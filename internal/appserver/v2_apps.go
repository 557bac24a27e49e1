package appserver

import (
	"context"
)

// app/list, app/installed and app/read: apps are ChatGPT connectors, offered to an account
// signed in with ChatGPT. Without such a sign-in there are none, and gocodex answers the
// empty lists Codex 0.169 answers then; signed in, it says it does not support them rather
// than claim the account has none.

const noApps = "gocodex does not support apps (ChatGPT connectors)"

// appsSignedIn reports whether the account is signed in with ChatGPT, the one sign-in that
// has apps.
func appsSignedIn(s *Server) bool { _, ok := accountBackend(s); return ok }

// AppList answers app/list.
func (a *api) AppList(ctx context.Context, c *Conn, p AppsListParams) (AppsListResponse, error) {
	if appsSignedIn(a.s) {
		return AppsListResponse{}, InvalidRequest(noApps)
	}
	return AppsListResponse{Data: []AppInfo{}}, nil
}

// AppInstalled answers app/installed.
func (a *api) AppInstalled(ctx context.Context, c *Conn, _ AppsInstalledParams) (AppsInstalledResponse, error) {
	if appsSignedIn(a.s) {
		return AppsInstalledResponse{}, InvalidRequest(noApps)
	}
	return AppsInstalledResponse{Apps: []InstalledApp{}}, nil
}

// AppRead answers app/read.
func (a *api) AppRead(ctx context.Context, c *Conn, p AppsReadParams) (AppsReadResponse, error) {
	if p.AppIDs == nil {
		return AppsReadResponse{}, missingField("appIds")
	}
	if appsSignedIn(a.s) {
		return AppsReadResponse{}, InvalidRequest(noApps)
	}
	missing := append([]string{}, p.AppIDs...)
	return AppsReadResponse{Apps: []ConnectorMetadata{}, MissingAppIDs: missing}, nil
}
