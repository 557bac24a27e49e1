package snapshot

import (
	"fmt"
	"os"
	"strings"
)

// machine identifies the computer a journal was written on: a journal copied to another
// machine (a synced CODEX_HOME, a copied thread) describes a tree that is not here.
type machine struct {
	ID   string // /etc/machine-id where there is one
	Host string
}

// machineIDFiles are read in order; the first non-empty one wins.
var machineIDFiles = []string{"/etc/machine-id", "/var/lib/dbus/machine-id"}

func thisMachine() machine {
	var m machine
	for _, p := range machineIDFiles {
		if b, err := os.ReadFile(p); err == nil {
			if id := strings.TrimSpace(string(b)); id != "" {
				m.ID = id
				break
			}
		}
	}
	m.Host, _ = os.Hostname()
	return m
}

// sameAs compares by machine id where both sides have one, by host name otherwise.
func (m machine) sameAs(o machine) bool {
	if m.ID != "" && o.ID != "" {
		return m.ID == o.ID
	}
	return m.Host == o.Host
}

func (m machine) String() string {
	if m.ID != "" {
		return fmt.Sprintf("host %q (machine id %s)", m.Host, m.ID)
	}
	return fmt.Sprintf("host %q", m.Host)
}
