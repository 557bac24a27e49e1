package appserver

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/config"
	threadsvc "github.com/gocodex/gocodex/internal/host/threads"
	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/protocol"
)

type threadIDParams struct {
	ThreadID string `json:"threadId"`
}

type threadStartParams struct {
	threadOverrides
	Ephemeral bool `json:"ephemeral"`
}

type threadResumeParams struct {
	threadOverrides
	ThreadID     string `json:"threadId"`
	Path         string `json:"path"`
	ExcludeTurns bool   `json:"excludeTurns"`
}

type threadForkParams struct {
	threadOverrides
	ThreadID string `json:"threadId"`
	// LastTurnID, when set, is the last turn the fork keeps.
	LastTurnID   *string `json:"lastTurnId"`
	Ephemeral    bool    `json:"ephemeral"`
	ExcludeTurns bool    `json:"excludeTurns"`
}

// startThread starts the engine thread on the process's app with the thread's own
// configuration, registers it and subscribes c.
func (r *threads) startThread(ctx context.Context, c *Conn, o threadOverrides, to app.ThreadOptions, info threadInfo) (*loadedThread, error) {
	cfg, warnings, err := r.srv.loadThreadConfigWarn(o)
	if err != nil {
		return nil, err
	}
	a, err := r.srv.App(ctx)
	if err != nil {
		return nil, internalError(err.Error())
	}
	if to.Source == "" {
		to.Source = "vscode"
	}
	to.Config = cfg
	if c != nil {
		to.Originator = c.ClientInfo().Name
	}
	if to.Resume == nil {
		info.HistoryMode = threadsvc.HistoryModePaginated // what the recorder writes for a new thread
	}
	if info.Originator == "" {
		info.Originator = to.Originator
	}
	// The tools the host's extensions offer (the goal tools, with the goals feature).
	to.ExtraTools = append(to.ExtraTools, r.extensions().Tools(cfg.FeatureEnabled)...)
	th, err := a.StartThread(context.WithoutCancel(ctx), to)
	if err != nil {
		return nil, internalError(err.Error())
	}
	now := time.Now()
	if info.CreatedAt.IsZero() {
		info.CreatedAt = now
	}
	info.UpdatedAt = now
	info.Ephemeral = to.Ephemeral
	if info.Path == "" && !to.Ephemeral {
		info.Path = threadsvc.New(cfg.CodexHome).NewPath(now, th.ID())
	}
	if to.Resume != nil {
		info.Path = to.Resume.Path
	}
	if info.Git == nil {
		info.Git = gitFromRollout(threadsvc.CollectGitInfo(cfg.Cwd))
	}
	unknown, warnings := UnknownSettingsMessage(warnings, cfg.CodexHome)
	lt := &loadedThread{id: th.ID(), th: th, app: a, cfg: cfg, info: info, warnings: freshWarnings(c, warnings), unknownSettings: unknown}
	r.add(c, lt)
	return lt, nil
}

// announce sends the configuration's warnings and thread/started once the request's answer
// is out. Every other connection hears thread/started too, as from Codex (thread/start
// and thread/fork; checked against its app-server with three websocket clients).
func (r *threads) announce(ctx context.Context, c *Conn, lt *loadedThread, before ...wire.V2Notification) {
	jsonrpc.AfterReply(ctx, func() {
		started := struct {
			Thread v2Thread `json:"thread"`
		}{lt.v2(false)}
		sendWarnings(c, lt.warnings)
		for _, n := range before {
			_ = c.Notify(c.Context(), n.Method, n.Params)
		}
		_ = c.Notify(c.Context(), "thread/started", started)
		sendUnknownSettings(c, lt)
		sendDeprecations(c, lt.cfg)
		lt.markReady()
		for _, o := range r.srv.initializedConns() {
			if o != c {
				o.broadcast().push(wire.V2Notification{Method: "thread/started", Params: started})
			}
		}
	})
}

// ThreadStart answers thread/start.
func (a *api) ThreadStart(ctx context.Context, c *Conn, p threadStartParams) (threadSettings, error) {
	r := a.r
	lt, err := r.startThread(ctx, c, p.threadOverrides, app.ThreadOptions{Ephemeral: p.Ephemeral}, threadInfo{})
	if err != nil {
		return threadSettings{}, err
	}
	if w := r.trustStartedProject(p, lt.cfg); w != "" { // v2_thread_trust.go
		lt.warnings = append(lt.warnings, config.Warning{Message: w})
	}
	r.announce(ctx, c, lt)
	return lt.settings(false), nil
}

// ThreadResume answers thread/resume.
func (a *api) ThreadResume(ctx context.Context, c *Conn, p threadResumeParams) (threadResumeResponse, error) {
	r := a.r
	if lt, ok := r.get(p.ThreadID); ok {
		r.subscribe(c, lt)
		notifyAfter(ctx, c, historyNotes(r.resumeNotes(lt, nil), p.ExcludeTurns))
		return resumed(lt, p), nil
	}
	path := p.Path
	if path == "" {
		found, archived, err := findRollout(codexHome(r.srv), p.ThreadID)
		if err != nil {
			return threadResumeResponse{}, asNoRollout(err, p.ThreadID)
		}
		if archived {
			return threadResumeResponse{}, InvalidRequest("thread is archived: " + p.ThreadID)
		}
		path = found
	}
	ro, err := r.store().Read(path)
	if err != nil {
		return threadResumeResponse{}, InvalidRequest("failed to load rollout `" + path + "`: " + err.Error())
	}
	o := p.threadOverrides
	if o.Cwd == nil && ro.Meta.Cwd != "" {
		o.Cwd = &ro.Meta.Cwd
	}
	rp := replayStored(ro)
	info := threadInfo{Path: path, ForkedFromID: ro.Meta.ForkedFromID, Preview: rp.preview, Git: gitFromRollout(ro.Meta.Git),
		HistoryMode: ro.Meta.HistoryMode, Originator: ro.Meta.Originator}
	if t, err := time.Parse(threadsvc.TimestampFormat, ro.Meta.Timestamp); err == nil {
		info.CreatedAt = t
	}
	lt, err := r.startThread(ctx, c, o, app.ThreadOptions{Resume: ro}, info)
	if err != nil {
		return threadResumeResponse{}, err
	}
	lt.mu.Lock()
	lt.proj.Seed(rp.turns)
	if rp.hasUsage {
		lt.proj.SetLastUsage(rp.usage)
	}
	lt.mu.Unlock()
	notes := historyNotes(r.resumeNotes(lt, ro), p.ExcludeTurns)
	jsonrpc.AfterReply(ctx, func() {
		sendWarnings(c, lt.warnings)
		sendUnknownSettings(c, lt)
		for _, n := range notes {
			_ = c.Notify(c.Context(), n.Method, n.Params)
		}
		lt.markReady()
		// As Codex 0.169: a resumed thread goes on pursuing its active goal.
		r.pursueGoalIfIdle(lt, true)
	})
	return resumed(lt, p), nil
}

// resumed is thread/resume's answer for a loaded thread.
func resumed(lt *loadedThread, p threadResumeParams) threadResumeResponse {
	out := threadResumeResponse{threadSettings: lt.settings(!p.ExcludeTurns), CollaborationMode: lt.collaborationMode()}
	out.TurnsBackwardsCursor, out.ItemsBackwardsCursor = resumeCursors(lt.turns())
	return out
}

// ThreadFork answers thread/fork.
func (a *api) ThreadFork(ctx context.Context, c *Conn, p threadForkParams) (threadSettings, error) {
	r := a.r
	store := r.store()
	path, _, err := findRollout(store.CodexHome(), p.ThreadID)
	if err != nil {
		return threadSettings{}, asNoRollout(err, p.ThreadID)
	}
	// The full load: a fork of a fork (Codex's point at their base) keeps the whole history.
	src, err := store.Read(path)
	if err != nil {
		return threadSettings{}, internalError(err.Error())
	}
	o := p.threadOverrides
	if o.Cwd == nil && src.Meta.Cwd != "" {
		o.Cwd = &src.Meta.Cwd
	}
	newID := newSubmissionID()
	var to app.ThreadOptions
	info := threadInfo{ForkedFromID: src.Meta.ID, Git: gitFromRollout(src.Meta.Git)}
	rp := replayStored(src)
	turns := rp.turns
	info.Preview = rp.preview
	drop := 0
	if p.LastTurnID != nil && *p.LastTurnID != "" {
		k := -1
		for i, t := range turns {
			if t.ID == *p.LastTurnID {
				k = i
			}
		}
		if k < 0 {
			return threadSettings{}, InvalidRequest("turn not found: " + *p.LastTurnID)
		}
		// The rollout counts the turns the user started.
		for _, t := range turns[k+1:] {
			if hasUserMessage(t) {
				drop++
			}
		}
		turns = turns[:k+1]
	}
	if p.Ephemeral {
		res := src.Reconstruct()
		to = app.ThreadOptions{Ephemeral: true, ThreadID: newID, InitialHistory: threadsvc.DropLastTurns(res.History, drop)}
	} else {
		_, ro, err := store.Fork(path, threadsvc.ForkOptions{NewID: newID, DropTurns: drop})
		if err != nil {
			return threadSettings{}, internalError(err.Error())
		}
		to = app.ThreadOptions{Resume: ro}
		info.HistoryMode = ro.Meta.HistoryMode // the copy keeps its source's form
	}
	// As Codex 0.169: the fork carries its source's name.
	info.Name = r.nameOf(src.Meta.ID)
	lt, err := r.startThread(ctx, c, o, to, info)
	if err != nil {
		return threadSettings{}, err
	}
	if info.Name != "" && !p.Ephemeral {
		if err := store.Rename(lt.id, info.Name); err != nil {
			r.srv.logger.Warn("fork name not recorded", "thread", lt.id, "err", err)
		}
	}
	lt.mu.Lock()
	lt.proj.Seed(turns)
	if rp.hasUsage {
		lt.proj.SetLastUsage(rp.usage)
	}
	lt.mu.Unlock()
	r.copyAttachments(src.Meta.ID, lt.id)
	// As Codex 0.169: the fork's token usage comes before thread/started.
	r.announce(ctx, c, lt, historyNotes(usageNotes(lt.id, turns, src.Reconstruct().TokenUsage), p.ExcludeTurns)...)
	return lt.settings(!p.ExcludeTurns), nil
}

type threadResponse struct {
	Thread v2Thread `json:"thread"`
}

// ThreadRead answers thread/read.
func (a *api) ThreadRead(ctx context.Context, c *Conn, p ThreadReadParams) (ThreadReadResponse, error) {
	r := a.r
	includeTurns := p.IncludeTurns != nil && *p.IncludeTurns
	if lt, ok := r.get(p.ThreadID); ok {
		t := lt.v2(includeTurns)
		return ThreadReadResponse{t, r.readStateFor(t)}, nil
	}
	t, err := r.stored(p.ThreadID, includeTurns)
	if err != nil {
		return ThreadReadResponse{}, asNotLoaded(err, p.ThreadID)
	}
	return ThreadReadResponse{t, r.readStateFor(t)}, nil
}

// stored describes a thread that is not loaded from its rollout.
func (r *threads) stored(id string, withTurns bool) (v2Thread, error) {
	path, archived, err := findRollout(codexHome(r.srv), id)
	if err != nil {
		return v2Thread{}, err
	}
	ro, err := r.store().Read(path)
	if err != nil {
		return v2Thread{}, internalError(err.Error())
	}
	turns, preview := replayTurns(ro)
	sum := threadsvc.Summary{ID: ro.Meta.ID, Path: path, ForkedFromID: ro.Meta.ForkedFromID, Preview: preview, Cwd: ro.Meta.Cwd,
		ModelProvider: ro.Meta.ModelProvider, CLIVersion: ro.Meta.CLIVersion, Git: ro.Meta.Git, HistoryMode: ro.Meta.HistoryMode,
		Originator: ro.Meta.Originator, Archived: archived}
	if len(ro.Meta.Source) > 0 {
		sum.Source = string(ro.Meta.Source[1 : len(ro.Meta.Source)-1])
	}
	if t, err := time.Parse(threadsvc.TimestampFormat, ro.Meta.Timestamp); err == nil {
		sum.CreatedAt = t
	}
	if st, err := os.Stat(path); err == nil {
		sum.UpdatedAt = st.ModTime()
	}
	t := v2ThreadFromSummary(sum, wire.V2ThreadStatus{Type: "notLoaded"})
	withPersistedSettings(&t, sum)
	// Codex 0.169 shows session_meta's thread_source here, though not in its listings.
	t.ThreadSource = strPtr(ro.Meta.ThreadSource)
	r.decorate(&t)
	if withTurns {
		t.Turns = turns
	}
	return t, nil
}

type threadListParams struct {
	Archived       *bool    `json:"archived"`
	Cursor         *string  `json:"cursor"`
	Cwd            any      `json:"cwd"`
	Limit          *uint32  `json:"limit"`
	ModelProviders []string `json:"modelProviders"`
	// SearchTerm keeps threads whose first message or name contains it.
	SearchTerm *string `json:"searchTerm"`
	// SectionID is kept raw: absent, null and an id filter differently (sectionFilter).
	SectionID json.RawMessage `json:"sectionId"`
	// SortKey "updated_at" orders by last update; SortDirection "asc" puts the oldest first.
	SortKey       *string `json:"sortKey"`
	SortDirection *string `json:"sortDirection"`
	// SourceKinds, ExcludedThreadIDs, IncludedThreadIDs and Originators:
	// v2_thread_list_sources.go.
	SourceKinds       []string `json:"sourceKinds"`
	ExcludedThreadIDs []string `json:"excludedThreadIds"`
	// IncludedThreadIDs (Codex 0.171), when present, keeps only the threads it names.
	IncludedThreadIDs  []string `json:"includedThreadIds"`
	Originators        []string `json:"originators"`
	CurrentAccountOnly *bool    `json:"currentAccountOnly"` // every local thread is the account's
}

// ThreadList answers thread/list.
func (a *api) ThreadList(ctx context.Context, c *Conn, p threadListParams) (ThreadListResponse, error) {
	r := a.r
	opts := threadsvc.ListOptions{Providers: p.ModelProviders}
	if p.Limit != nil {
		opts.PageSize = int(*p.Limit)
	}
	if p.Cursor != nil {
		opts.Cursor = *p.Cursor
	}
	if cwd, ok := p.Cwd.(string); ok {
		opts.Cwd = cwd
	}
	if p.Archived != nil {
		opts.Archived = *p.Archived
	}
	keepSource, err := applyListFilters(p, &opts)
	if err != nil {
		return ThreadListResponse{}, err
	}
	if p.SortKey != nil && *p.SortKey == "section_position" {
		return r.listBySectionPosition(p, opts)
	}
	opts.ByUpdated = p.SortKey != nil && *p.SortKey == "updated_at"
	opts.Ascending = p.SortDirection != nil && *p.SortDirection == "asc"
	inSection := sectionFilter(p.SectionID)
	keep := func(s threadsvc.Summary, t *v2Thread) bool {
		// Case-sensitive, in the first message or the name, as Codex 0.169 searches.
		if q := p.SearchTerm; q != nil && *q != "" && !strings.Contains(s.Preview, *q) && (t.Name == nil || !strings.Contains(*t.Name, *q)) {
			return false
		}
		if keepSource != nil && !keepSource(t) {
			return false
		}
		return inSection(t)
	}
	filtered := len(p.SectionID) > 0 || (p.SearchTerm != nil && *p.SearchTerm != "") || keepSource != nil
	return r.filteredPage(opts, keep, filtered)
}

// ThreadLoadedList answers thread/loaded/list.
func (a *api) ThreadLoadedList(ctx context.Context, c *Conn, _ ThreadLoadedListParams) (ThreadLoadedListResponse, error) {
	out := ThreadLoadedListResponse{Data: []string{}}
	for _, lt := range a.r.list() {
		out.Data = append(out.Data, lt.id)
	}
	return out, nil
}

// ThreadTurnsList answers thread/turns/list.
func (a *api) ThreadTurnsList(ctx context.Context, c *Conn, p ThreadTurnsListParams) (ThreadTurnsListResponse, error) {
	r := a.r
	var turns []wire.V2Turn
	if lt, ok := r.get(p.ThreadID); ok {
		turns = lt.turns()
	} else {
		t, err := r.stored(p.ThreadID, true)
		if err != nil {
			return ThreadTurnsListResponse{}, asNotLoaded(err, p.ThreadID)
		}
		turns = t.Turns
	}
	// Newest first unless asked otherwise; the cursor is the index to continue from.
	if p.SortDirection == nil || *p.SortDirection != "asc" {
		for i, j := 0, len(turns)-1; i < j; i, j = i+1, j-1 {
			turns[i], turns[j] = turns[j], turns[i]
		}
	}
	start := 0
	if p.Cursor != nil {
		for i, t := range turns {
			if t.ID == *p.Cursor {
				start = i
			}
		}
	}
	turns = turns[start:]
	out := ThreadTurnsListResponse{Data: turns}
	if p.Limit != nil && *p.Limit > 0 && len(turns) > int(*p.Limit) {
		next := turns[*p.Limit].ID
		out.Data, out.NextCursor = turns[:*p.Limit], &next
	}
	if out.Data == nil {
		out.Data = []wire.V2Turn{}
	}
	out.BackwardsCursor = turnsBackwardsCursor(out.Data)
	return out, nil
}

type empty struct{}

// ThreadArchive answers thread/archive.
func (a *api) ThreadArchive(ctx context.Context, c *Conn, p ThreadArchiveParams) (ThreadArchiveResponse, error) {
	r := a.r
	if _, archived, err := findRollout(codexHome(r.srv), p.ThreadID); err != nil {
		return ThreadArchiveResponse{}, asNoRollout(err, p.ThreadID)
	} else if archived {
		return ThreadArchiveResponse{}, InvalidRequest("thread is already archived: " + p.ThreadID)
	}
	var after func(wire.V2Notification)
	if lt, ok := r.get(p.ThreadID); ok {
		after = r.unloadGone(c, lt)
	}
	if _, err := r.store().Archive(p.ThreadID); r.warnPartial(err) != nil {
		return ThreadArchiveResponse{}, internalError(err.Error())
	}
	jsonrpc.AfterReply(ctx, func() {
		n := wire.V2Notification{Method: "thread/archived", Params: ThreadArchivedNotification{p.ThreadID}}
		if after != nil {
			after(n)
			return
		}
		_ = c.Notify(c.Context(), n.Method, n.Params)
	})
	return ThreadArchiveResponse{}, nil
}

// ThreadUnarchive answers thread/unarchive.
func (a *api) ThreadUnarchive(ctx context.Context, c *Conn, p ThreadUnarchiveParams) (ThreadUnarchiveResponse, error) {
	r := a.r
	if _, _, err := findRollout(codexHome(r.srv), p.ThreadID); err != nil {
		if isNoThread(err, p.ThreadID) {
			return ThreadUnarchiveResponse{}, InvalidRequest("no archived rollout found for thread id " + p.ThreadID)
		}
		return ThreadUnarchiveResponse{}, err
	}
	if _, err := r.store().Unarchive(p.ThreadID); r.warnPartial(err) != nil {
		return ThreadUnarchiveResponse{}, InvalidRequest("failed to unarchive thread " + p.ThreadID + ": " + err.Error())
	}
	t, err := r.stored(p.ThreadID, false)
	if err != nil {
		return ThreadUnarchiveResponse{}, err
	}
	jsonrpc.AfterReply(ctx, func() {
		_ = c.Notify(c.Context(), "thread/unarchived", ThreadUnarchivedNotification{p.ThreadID})
	})
	return ThreadUnarchiveResponse{t}, nil
}

// ThreadDelete answers thread/delete.
func (a *api) ThreadDelete(ctx context.Context, c *Conn, p ThreadDeleteParams) (ThreadDeleteResponse, error) {
	r := a.r
	if _, _, err := findRollout(codexHome(r.srv), p.ThreadID); err != nil {
		return ThreadDeleteResponse{}, asNoRollout(err, p.ThreadID)
	}
	var after func(wire.V2Notification)
	if lt, ok := r.get(p.ThreadID); ok {
		after = r.unloadGone(c, lt)
	}
	if err := r.warnPartial(r.store().Delete(p.ThreadID)); err != nil {
		return ThreadDeleteResponse{}, internalError(err.Error())
	}
	r.forgetThreadState(p.ThreadID)
	jsonrpc.AfterReply(ctx, func() {
		n := wire.V2Notification{Method: "thread/deleted", Params: ThreadDeletedNotification{p.ThreadID}}
		if after != nil {
			after(n)
			return
		}
		_ = c.Notify(c.Context(), n.Method, n.Params)
	})
	return ThreadDeleteResponse{}, nil
}

// ThreadUnsubscribe answers thread/unsubscribe.
func (a *api) ThreadUnsubscribe(ctx context.Context, c *Conn, p ThreadUnsubscribeParams) (ThreadUnsubscribeResponse, error) {
	r := a.r
	lt, ok := r.get(p.ThreadID)
	if !ok {
		return ThreadUnsubscribeResponse{"notLoaded"}, nil
	}
	if !r.unsubscribe(c, lt) {
		return ThreadUnsubscribeResponse{"notSubscribed"}, nil
	}
	return ThreadUnsubscribeResponse{"unsubscribed"}, nil
}

func (r *threads) loadedOrErr(id string) (*loadedThread, error) {
	lt, ok := r.get(id)
	if !ok {
		return nil, errNoThread(id)
	}
	return lt, nil
}

// ThreadCompactStart answers thread/compact/start.
func (a *api) ThreadCompactStart(ctx context.Context, c *Conn, p ThreadCompactStartParams) (ThreadCompactStartResponse, error) {
	r := a.r
	lt, err := r.loadedOrErr(p.ThreadID)
	if err != nil {
		return ThreadCompactStartResponse{}, err
	}
	id := newSubmissionID()
	lt.gate(id, ctx.Done())
	if err := lt.th.SubmitWithID(id, protocol.CompactOp{}); err != nil {
		return ThreadCompactStartResponse{}, internalError(err.Error())
	}
	return ThreadCompactStartResponse{}, nil
}

func hasUserMessage(t wire.V2Turn) bool {
	for _, it := range t.Items {
		if _, ok := it.(*wire.V2UserMessage); ok {
			return true
		}
	}
	return false
}
