package appserver

import threadsvc "github.com/gocodex/gocodex/internal/host/threads"

// A thread object's model and reasoningEffort, as Codex 0.169 fills them: a loaded thread's
// are the settings now in force (turn/start overrides included); a thread on disk's are the
// latest persisted, its rollout's last turn_context. Null when unknown.

// modelAndEffort are the model and effort a loaded thread's next turn would run with.
func (lt *loadedThread) modelAndEffort() (*string, *string) {
	lt.settingsState.mu.Lock()
	defer lt.settingsState.mu.Unlock()
	if cur := lt.settingsState.current; cur != nil {
		return strPtr(cur.Model), cur.Effort
	}
	return strPtr(lt.cfg.Model), strPtr(lt.cfg.ReasoningEffort)
}

// withPersistedSettings fills a thread on disk's model and effort from its rollout's tail,
// or, when the tail holds no turn_context, from the first turn's (s, read with the head).
func withPersistedSettings(t *v2Thread, s threadsvc.Summary) {
	ts := threadsvc.TurnSettings{Model: s.Model, Effort: s.ReasoningEffort}
	if s.Path != "" {
		if latest, ok := threadsvc.LatestTurnSettings(s.Path); ok {
			ts = latest
		}
	}
	t.Model, t.ReasoningEffort = strPtr(ts.Model), strPtr(ts.Effort)
}
