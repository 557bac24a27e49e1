package appserver

import (
	"strings"
	"sync"
	"time"

	"github.com/gocodex/gocodex/internal/skills"
)

// skillsPollInterval is how often a connection that listed skills checks their folders for
// changes (skills/changed). Polling needs no watcher per folder and sees folders that do not
// exist yet appear.
const skillsPollInterval = time.Second

// maxWatchedSkillCwds bounds the polling work a connection can ask for.
const maxWatchedSkillCwds = 32

type skillWatchKey struct{}

// skillWatch remembers the folders of every cwd a connection listed and their state.
type skillWatch struct {
	mu   sync.Mutex
	opts []skills.Options
	last string
}

func fingerprintAll(opts []skills.Options) string {
	var b strings.Builder
	for _, o := range opts {
		b.WriteString(skills.Fingerprint(o))
	}
	return b.String()
}

// watchSkills makes c hear skills/changed when the skill folders of any cwd it listed
// change; the poller lives as long as the connection.
func watchSkills(c *Conn, opts []skills.Options) {
	c.mu.Lock()
	w, running := c.values[skillWatchKey{}].(*skillWatch)
	if !running {
		w = &skillWatch{}
		c.values[skillWatchKey{}] = w
	}
	c.mu.Unlock()
	w.mu.Lock()
	for _, o := range opts {
		known := false
		for _, k := range w.opts {
			known = known || k.Cwd == o.Cwd
		}
		if !known {
			w.opts = append(w.opts, o)
		}
	}
	if n := len(w.opts); n > maxWatchedSkillCwds {
		w.opts = append([]skills.Options(nil), w.opts[n-maxWatchedSkillCwds:]...) // the most recent
	}
	w.last = fingerprintAll(w.opts)
	w.mu.Unlock()
	if running {
		return
	}
	c.Go(func() {
		tick := time.NewTicker(skillsPollInterval)
		defer tick.Stop()
		for {
			select {
			case <-c.Context().Done():
				return
			case <-tick.C:
			}
			w.mu.Lock()
			opts := w.opts
			w.mu.Unlock()
			fp := fingerprintAll(opts)
			w.mu.Lock()
			changed := fp != w.last
			w.last = fp
			w.mu.Unlock()
			if changed {
				_ = c.Notify(c.Context(), "skills/changed", struct{}{})
			}
		}
	})
}
