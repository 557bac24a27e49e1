package appserver

import (
	"github.com/gocodex/gocodex/internal/appserver/wire"
)

// What Codex 0.169 tells a client that resumes or forks a thread with its whole history (not
// with excludeTurns): that this is deprecated, then the thread's latest token usage.

const fullHistoryDeprecated = "Full-history hydration is deprecated for paginated threads; use `excludeTurns: true`, then page with `thread/turns/list` and `thread/items/list`."

// historyNotes adjusts what a resume or fork tells its client (after the answer, or before
// the fork's thread/started) to the history asked for, as Codex 0.169 does: with the whole
// history, that full-history hydration is deprecated, said before the token usage; with
// excludeTurns, neither the notice nor the usage.
func historyNotes(notes []wire.V2Notification, excludeTurns bool) []wire.V2Notification {
	out := make([]wire.V2Notification, 0, len(notes)+1)
	told := false
	for _, n := range notes {
		if n.Method == "thread/tokenUsage/updated" {
			if excludeTurns {
				continue
			}
			if !told {
				out = append(out, wire.V2Notification{Method: "deprecationNotice", Params: deprecationNotice{Summary: fullHistoryDeprecated}})
				told = true
			}
		}
		out = append(out, n)
	}
	if !told && !excludeTurns {
		// No usage yet: the notice goes before the goal notes (after a status change).
		i := 0
		for i < len(out) && out[i].Method == "thread/status/changed" {
			i++
		}
		out = append(out[:i], append([]wire.V2Notification{{Method: "deprecationNotice", Params: deprecationNotice{Summary: fullHistoryDeprecated}}}, out[i:]...)...)
	}
	return out
}
