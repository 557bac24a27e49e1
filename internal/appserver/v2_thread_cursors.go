package appserver

import (
	"context"
	"strconv"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	threadsvc "github.com/gocodex/gocodex/internal/host/threads"
	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/protocol"
)

// Backwards cursors, as Codex 0.169 sends them with every non-empty page of thread/list,
// thread/turns/list and thread/items/list (and with thread/resume and thread/revert): a
// cursor for the opposite sortDirection whose first page starts again at this page's first
// entry. Codex's are opaque strings; so are ours, each in the form its list method takes.

// threadListBackwardsCursor anchors at the page's first thread.
func threadListBackwardsCursor(first threadsvc.Summary, opts threadsvc.ListOptions) *string {
	c := threadsvc.BackwardsCursor(first, opts)
	if c == "" {
		return nil
	}
	return &c
}

// turnsBackwardsCursor: thread/turns/list's cursor is the id of the first turn to return.
func turnsBackwardsCursor(page []wire.V2Turn) *string {
	if len(page) == 0 {
		return nil
	}
	id := page[0].ID
	return &id
}

// itemsBackwardsCursor: thread/items/list's cursor is a position in the list as sorted; the
// page's first entry, at start of n, is at n-1-start the other way round.
func itemsBackwardsCursor(start, pageLen, n int) *string {
	if pageLen == 0 {
		return nil
	}
	c := strconv.Itoa(n - 1 - start)
	return &c
}

// threadResumeResponse is thread/resume's answer: the settings and the cursors to hydrate
// the newest turns and items with (sortDirection "desc").
type threadResumeResponse struct {
	threadSettings
	CollaborationMode    protocol.CollaborationMode `json:"collaborationMode"`
	TurnsBackwardsCursor *string                    `json:"turnsBackwardsCursor"`
	ItemsBackwardsCursor *string                    `json:"itemsBackwardsCursor"`
	// InitialTurnsPage is null: the turns come in thread.turns (or by the cursors), as when
	// Codex 0.169 is not asked for a first page.
	InitialTurnsPage any `json:"initialTurnsPage"`
}

// resumeCursors anchors at the newest turn and the newest item of turns.
func resumeCursors(turns []wire.V2Turn) (turnsCursor, itemsCursor *string) {
	if len(turns) == 0 {
		return nil, nil
	}
	last := turns[len(turns)-1].ID
	n := 0
	for _, t := range turns {
		n += len(t.Items)
	}
	if n > 0 {
		zero := "0" // the newest item comes first when sorted newest first
		itemsCursor = &zero
	}
	return &last, itemsCursor
}

// tokenUsageUpdated is thread/tokenUsage/updated's params.
type tokenUsageUpdated struct {
	ThreadID   string            `json:"threadId"`
	TurnID     string            `json:"turnId"`
	TokenUsage wire.V2TokenUsage `json:"tokenUsage"`
}

func tokenBreakdown(u protocol.TokenUsage) wire.V2TokenBreakdown {
	return wire.V2TokenBreakdown{TotalTokens: u.TotalTokens, InputTokens: u.InputTokens, CachedInputTokens: u.CachedInputTokens,
		CacheWriteInputTokens: u.CacheWriteInputTokens, OutputTokens: u.OutputTokens, ReasoningOutputTokens: u.ReasoningOutputTokens}
}

// usageNotes is thread/tokenUsage/updated for a thread's recorded usage, against its last
// turn; none when nothing was recorded.
func usageNotes(threadID string, turns []wire.V2Turn, u *protocol.TokenUsageInfo) []wire.V2Notification {
	if u == nil || len(turns) == 0 {
		return nil
	}
	return []wire.V2Notification{{Method: "thread/tokenUsage/updated", Params: tokenUsageUpdated{
		ThreadID: threadID, TurnID: turns[len(turns)-1].ID,
		TokenUsage: wire.V2TokenUsage{Total: tokenBreakdown(u.TotalTokenUsage), Last: tokenBreakdown(u.LastTokenUsage), ModelContextWindow: u.ModelContextWindow}}}}
}

// resumeNotes is what Codex 0.169 tells a client that resumes a thread, after its answer:
// the status of a thread it loaded (idle), the thread's token usage as of its last turn
// (read back from the rollout) and its goal (thread/goal/updated, or thread/goal/cleared
// when it has none). loadedFrom is the rollout a thread loaded now was loaded from (nil
// for a thread that was loaded already, whose rollout is read again).
func (r *threads) resumeNotes(lt *loadedThread, loadedFrom *threadsvc.Rollout) []wire.V2Notification {
	var notes []wire.V2Notification
	if loadedFrom != nil {
		notes = append(notes, wire.V2Notification{Method: "thread/status/changed", Params: threadStatusChanged{lt.id, lt.status()}})
	}
	lt.mu.Lock()
	path, ephemeral := lt.info.Path, lt.info.Ephemeral
	lt.mu.Unlock()
	ro := loadedFrom
	if ro == nil && !ephemeral && path != "" {
		ro, _ = r.store().Read(path)
	}
	if ro != nil {
		notes = append(notes, usageNotes(lt.id, lt.turns(), ro.Reconstruct().TokenUsage)...)
	}
	if !lt.cfg.FeatureEnabled("goals", true) {
		return notes
	}
	goal, _ := r.goals().Of(lt.id)
	if goal != nil {
		notes = append(notes, wire.V2Notification{Method: "thread/goal/updated", Params: goalUpdated{ThreadID: lt.id, Goal: *goal}})
	} else {
		notes = append(notes, wire.V2Notification{Method: "thread/goal/cleared", Params: ThreadGoalClearedNotification{lt.id}})
	}
	return notes
}

// notifyAfter sends notes to c, in order, once the request's answer is out.
func notifyAfter(ctx context.Context, c *Conn, notes []wire.V2Notification) {
	jsonrpc.AfterReply(ctx, func() {
		for _, n := range notes {
			_ = c.Notify(c.Context(), n.Method, n.Params)
		}
	})
}

func (lt *loadedThread) setCollaborationMode(cm *protocol.CollaborationMode) {
	c := *cm
	lt.mu.Lock()
	lt.collab = &c
	lt.mu.Unlock()
}

// collaborationMode is the thread's effective mode: the one a turn switched it to, else
// Codex's default with the thread's model and effort.
func (lt *loadedThread) collaborationMode() protocol.CollaborationMode {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if lt.collab != nil {
		return *lt.collab
	}
	return protocol.CollaborationMode{Mode: "default", Settings: protocol.CollaborationModeSettings{Model: lt.cfg.Model, ReasoningEffort: strPtr(lt.cfg.ReasoningEffort)}}
}

// filteredPage is a thread/list page of the threads keep passes: pages of rollouts are
// read until the page is full or they run out, so a filter that rejects many threads
// (a section, a search term) still answers full pages; the next cursor continues right
// after the last thread answered.
//
// Unfiltered, a full page only looks one thread further (a page of one) to know whether a
// next page exists.
func (r *threads) filteredPage(opts threadsvc.ListOptions, keep func(threadsvc.Summary, *v2Thread) bool, filtered bool) (ThreadListResponse, error) {
	size := opts.PageSize
	if size <= 0 {
		size = 25
	}
	out := ThreadListResponse{Data: []v2Thread{}}
	var first, last threadsvc.Summary
	for {
		page, err := threadsvc.New(codexHome(r.srv)).List(opts)
		if err != nil {
			return ThreadListResponse{}, internalError(err.Error())
		}
		ts := make([]v2Thread, len(page.Threads))
		ptrs := make([]*v2Thread, len(page.Threads))
		loaded := make([]bool, len(page.Threads))
		for i, s := range page.Threads {
			if lt, ok := r.get(s.ID); ok {
				loaded[i] = true
				ts[i] = v2ThreadFromSummary(s, lt.status())
				ts[i].Environments = localEnvironment(s.Cwd)
				ts[i].Model, ts[i].ReasoningEffort = lt.modelAndEffort()
			} else {
				ts[i] = v2ThreadFromSummary(s, wire.V2ThreadStatus{Type: "notLoaded"})
			}
			ptrs[i] = &ts[i]
		}
		r.decorate(ptrs...)
		for i, s := range page.Threads {
			if !keep(s, &ts[i]) {
				continue
			}
			if len(out.Data) == size {
				// One more passes: the next page starts after the last one answered.
				next := threadsvc.CursorAfter(last, opts)
				out.NextCursor = &next
				break
			}
			if len(out.Data) == 0 {
				first = s
			}
			last = s
			if !loaded[i] { // only the answered threads' tails are read
				withPersistedSettings(&ts[i], s)
			}
			out.Data = append(out.Data, ts[i])
		}
		if out.NextCursor != nil || page.NextCursor == "" {
			break
		}
		opts.Cursor = page.NextCursor
		if !filtered && len(out.Data) == size {
			opts.PageSize = 1
		}
	}
	if len(out.Data) > 0 {
		out.BackwardsCursor = threadListBackwardsCursor(first, opts)
	}
	out.ReadStates = r.readStates(out.Data)
	return out, nil
}
