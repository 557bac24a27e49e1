package tui

import (
	"context"
	"time"
)

// logoutTimeout bounds the revocation of a ChatGPT sign-in.
const logoutTimeout = 15 * time.Second

// logout is /logout: the stored credentials are removed (a ChatGPT sign-in revoked first)
// and the UI ends, as Codex's does.
func (m *Model) logout(typed, _ string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	f := m.ui.host.Logout
	if f == nil {
		m.tr.add(cell{kind: cellError, body: "/logout is not available here: this session keeps no credentials."})
		m.refresh()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), logoutTimeout)
	defer cancel()
	removed, warning, err := f(ctx)
	if warning != "" {
		m.tr.add(cell{kind: cellWarning, body: warning})
	}
	if err != nil {
		m.tr.add(cell{kind: cellError, body: "Error logging out: " + err.Error()})
		m.refresh()
		return
	}
	if removed {
		m.tr.add(cell{kind: cellNote, body: "Successfully logged out"})
	} else {
		m.tr.add(cell{kind: cellNote, body: "Not logged in"})
	}
	m.refresh()
	m.quitCommand("", "")
}
