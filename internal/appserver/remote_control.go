package appserver

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/google/uuid"
)

// remoteControlStatus is remoteControl/status/changed's params. gocodex has no remote control:
// every client hears, right after its initialize answer, that it is disabled, as Codex 0.169
// tells a client when its own remote control is off.
type remoteControlStatus struct {
	Status         string  `json:"status"`
	ServerName     string  `json:"serverName"`
	InstallationID string  `json:"installationId"`
	EnvironmentID  *string `json:"environmentId"`
}

// installation is the server's installation id, read once.
type installation struct {
	once sync.Once
	id   string
}

// installationID is the id kept in CODEX_HOME/installation_id, shared with Codex: read when
// the file holds a UUID, else a new random one written there (kept for this process even
// when the file cannot be written).
func installationID(codexHome string) string {
	path := filepath.Join(codexHome, "installation_id")
	if b, err := os.ReadFile(path); err == nil {
		if id, err := uuid.Parse(strings.TrimSpace(string(b))); err == nil {
			return id.String()
		}
	}
	id := uuid.NewString()
	if codexHome == "" {
		return id
	}
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		return id
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		// Another process wrote it first (or it held no UUID): use what is there if it is one.
		if b, err := os.ReadFile(path); err == nil {
			if prev, err := uuid.Parse(strings.TrimSpace(string(b))); err == nil {
				return prev.String()
			}
		}
		return id
	}
	if err != nil {
		return id
	}
	_, werr := f.WriteString(id)
	if cerr := f.Close(); werr != nil || cerr != nil {
		_ = os.Remove(path) // no half-written id
	}
	return id
}

// remoteControlStatus is the status gocodex reports: disabled.
func (c *Conn) remoteControlStatus() remoteControlStatus {
	s := c.srv
	s.installation.once.Do(func() { s.installation.id = installationID(codexHome(s)) })
	host, err := os.Hostname()
	if err != nil {
		host = ""
	}
	return remoteControlStatus{Status: "disabled", ServerName: host, InstallationID: s.installation.id}
}

// sendRemoteControlStatus tells c that remote control is disabled.
func (c *Conn) sendRemoteControlStatus() {
	_ = c.Notify(c.ctx, "remoteControl/status/changed", c.remoteControlStatus())
}
