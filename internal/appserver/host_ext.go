package appserver

import (
	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/host/builtin"
	"github.com/gocodex/gocodex/internal/host/ext"
	"github.com/gocodex/gocodex/internal/host/gitedits"
	"github.com/gocodex/gocodex/protocol"
)

// The host's extensions (internal/host/ext) keep what Codex keeps about threads outside
// their rollouts — sections, attachments, git edits, goals (and their pursuit), read
// state — and the app-server's methods for them parse, call the extension, encode.

// extensions are the host's built-in extensions, started on first use (CODEX_HOME is
// known by then).
func (r *threads) extensions() *ext.Set {
	r.extOnce.Do(func() {
		set, err := builtin.Start(ext.Options{CodexHome: codexHome(r.srv), Logger: r.srv.logger})
		if err != nil {
			panic("the host's extensions: " + err.Error()) // none of them fails to start
		}
		r.extSet = set
	})
	return r.extSet
}

// extThread is a loaded thread as the extensions see it.
type extThread struct{ lt *loadedThread }

func (t extThread) ID() string { return t.lt.id }

func (t extThread) FeatureEnabled(name string, def bool) bool {
	return t.lt.cfg.FeatureEnabled(name, def)
}

func (t extThread) Ephemeral() bool {
	t.lt.mu.Lock()
	defer t.lt.mu.Unlock()
	return t.lt.info.Ephemeral
}

func (t extThread) Submit(op protocol.Op) (string, error) { return t.lt.th.Submit(op) }

// wireNotes are the extensions' notices as v2 notifications.
func wireNotes(ns []ext.Notice) []wire.V2Notification {
	if len(ns) == 0 {
		return nil
	}
	out := make([]wire.V2Notification, len(ns))
	for i, n := range ns {
		out[i] = wire.V2Notification{Method: n.Method, Params: n.Params}
	}
	return out
}

// gitEdits is the host's git edits extension.
func (r *threads) gitEdits() *gitedits.Extension {
	e, _ := ext.Find[*gitedits.Extension](r.extensions())
	return e
}
