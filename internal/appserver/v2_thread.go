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

func (r *threads) register(s *Server) {
	s.Handle("thread/start", Typed(r.start))
	s.Handle("thread/resume", Typed(r.resume))
	s.Handle("thread/fork", Typed(r.fork))
	s.Handle("thread/read", Typed(r.read))
	s.Handle("thread/list", Typed(r.listThreads))
	s.Handle("thread/loaded/list", Typed(r.loadedList))
	s.Handle("thread/turns/list", Typed(r.turnsList))
	s.Handle("thread/items/list", Typed(r.itemsList))
	s.Handle("thread/archive", Typed(r.archive))
	s.Handle("thread/unarchive", Typed(r.unarchive))
	s.Handle("thread/delete", Typed(r.deleteThread))
	s.Handle("thread/unsubscribe", Typed(r.unsubscribeMethod))
	s.Handle("thread/name/set", Typed(r.setName))
	s.Handle("thread/compact/start", Typed(r.compact))
	s.Handle("thread/shellCommand", Typed(r.shellCommand))
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
	if cfg.FeatureEnabled("goals", true) {
		to.ExtraTools = append(to.ExtraTools, r.goalTools()...)
	}
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

func (r *threads) start(ctx context.Context, c *Conn, p threadStartParams) (threadSettings, error) {
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

func (r *threads) resume(ctx context.Context, c *Conn, p threadResumeParams) (threadResumeResponse, error) {
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

func (r *threads) fork(ctx context.Context, c *Conn, p threadForkParams) (threadSettings, error) {
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

type threadReadParams struct {
	ThreadID     string `json:"threadId"`
	IncludeTurns bool   `json:"includeTurns"`
}

type threadResponse struct {
	Thread v2Thread `json:"thread"`
}

// threadReadResponse is thread/read's answer: the thread and its read state (null until
// the thread is recorded), as Codex 0.169 sends them.
type threadReadResponse struct {
	Thread    v2Thread     `json:"thread"`
	ReadState *v2ReadState `json:"readState"`
}

func (r *threads) read(ctx context.Context, c *Conn, p threadReadParams) (threadReadResponse, error) {
	if lt, ok := r.get(p.ThreadID); ok {
		t := lt.v2(p.IncludeTurns)
		return threadReadResponse{t, r.readStateFor(t)}, nil
	}
	t, err := r.stored(p.ThreadID, p.IncludeTurns)
	if err != nil {
		return threadReadResponse{}, asNotLoaded(err, p.ThreadID)
	}
	return threadReadResponse{t, r.readStateFor(t)}, nil
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
	// SourceKinds, ExcludedThreadIDs and Originators: v2_thread_list_sources.go.
	SourceKinds        []string `json:"sourceKinds"`
	ExcludedThreadIDs  []string `json:"excludedThreadIds"`
	Originators        []string `json:"originators"`
	CurrentAccountOnly *bool    `json:"currentAccountOnly"` // every local thread is the account's
}

type threadListResponse struct {
	Data       []v2Thread `json:"data"`
	NextCursor *string    `json:"nextCursor"`
	// BackwardsCursor is set when the page holds a thread (v2_thread_cursors.go).
	BackwardsCursor *string `json:"backwardsCursor"`
	// ReadStates are the listed threads' read states (v2_thread_read_state.go).
	ReadStates map[string]v2ReadState `json:"readStates"`
}

func (r *threads) listThreads(ctx context.Context, c *Conn, p threadListParams) (threadListResponse, error) {
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
		return threadListResponse{}, err
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

type loadedListResponse struct {
	Data       []string `json:"data"`
	NextCursor *string  `json:"nextCursor"`
}

func (r *threads) loadedList(ctx context.Context, c *Conn, _ struct{}) (loadedListResponse, error) {
	out := loadedListResponse{Data: []string{}}
	for _, lt := range r.list() {
		out.Data = append(out.Data, lt.id)
	}
	return out, nil
}

type turnsListParams struct {
	ThreadID      string  `json:"threadId"`
	Cursor        *string `json:"cursor"`
	Limit         *int    `json:"limit"`
	SortDirection *string `json:"sortDirection"`
}

type turnsListResponse struct {
	Data            []wire.V2Turn `json:"data"`
	NextCursor      *string       `json:"nextCursor"`
	BackwardsCursor *string       `json:"backwardsCursor"`
}

func (r *threads) turnsList(ctx context.Context, c *Conn, p turnsListParams) (turnsListResponse, error) {
	var turns []wire.V2Turn
	if lt, ok := r.get(p.ThreadID); ok {
		turns = lt.turns()
	} else {
		t, err := r.stored(p.ThreadID, true)
		if err != nil {
			return turnsListResponse{}, asNotLoaded(err, p.ThreadID)
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
	out := turnsListResponse{Data: turns}
	if p.Limit != nil && *p.Limit > 0 && len(turns) > *p.Limit {
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

func (r *threads) archive(ctx context.Context, c *Conn, p threadIDParams) (empty, error) {
	if _, archived, err := findRollout(codexHome(r.srv), p.ThreadID); err != nil {
		return empty{}, asNoRollout(err, p.ThreadID)
	} else if archived {
		return empty{}, InvalidRequest("thread is already archived: " + p.ThreadID)
	}
	var after func(wire.V2Notification)
	if lt, ok := r.get(p.ThreadID); ok {
		after = r.unloadGone(c, lt)
	}
	if _, err := r.store().Archive(p.ThreadID); r.warnPartial(err) != nil {
		return empty{}, internalError(err.Error())
	}
	jsonrpc.AfterReply(ctx, func() {
		n := wire.V2Notification{Method: "thread/archived", Params: threadIDParams{p.ThreadID}}
		if after != nil {
			after(n)
			return
		}
		_ = c.Notify(c.Context(), n.Method, n.Params)
	})
	return empty{}, nil
}

func (r *threads) unarchive(ctx context.Context, c *Conn, p threadIDParams) (threadResponse, error) {
	if _, _, err := findRollout(codexHome(r.srv), p.ThreadID); err != nil {
		if isNoThread(err, p.ThreadID) {
			return threadResponse{}, InvalidRequest("no archived rollout found for thread id " + p.ThreadID)
		}
		return threadResponse{}, err
	}
	if _, err := r.store().Unarchive(p.ThreadID); r.warnPartial(err) != nil {
		return threadResponse{}, InvalidRequest("failed to unarchive thread " + p.ThreadID + ": " + err.Error())
	}
	t, err := r.stored(p.ThreadID, false)
	if err != nil {
		return threadResponse{}, err
	}
	jsonrpc.AfterReply(ctx, func() {
		_ = c.Notify(c.Context(), "thread/unarchived", threadIDParams{p.ThreadID})
	})
	return threadResponse{t}, nil
}

func (r *threads) deleteThread(ctx context.Context, c *Conn, p threadIDParams) (empty, error) {
	if _, _, err := findRollout(codexHome(r.srv), p.ThreadID); err != nil {
		return empty{}, asNoRollout(err, p.ThreadID)
	}
	var after func(wire.V2Notification)
	if lt, ok := r.get(p.ThreadID); ok {
		after = r.unloadGone(c, lt)
	}
	if err := r.warnPartial(r.store().Delete(p.ThreadID)); err != nil {
		return empty{}, internalError(err.Error())
	}
	r.forgetThreadState(p.ThreadID)
	jsonrpc.AfterReply(ctx, func() {
		n := wire.V2Notification{Method: "thread/deleted", Params: threadIDParams{p.ThreadID}}
		if after != nil {
			after(n)
			return
		}
		_ = c.Notify(c.Context(), n.Method, n.Params)
	})
	return empty{}, nil
}

type unsubscribeResponse struct {
	Status string `json:"status"`
}

func (r *threads) unsubscribeMethod(ctx context.Context, c *Conn, p threadIDParams) (unsubscribeResponse, error) {
	lt, ok := r.get(p.ThreadID)
	if !ok {
		return unsubscribeResponse{"notLoaded"}, nil
	}
	if !r.unsubscribe(c, lt) {
		return unsubscribeResponse{"notSubscribed"}, nil
	}
	return unsubscribeResponse{"unsubscribed"}, nil
}

func (r *threads) loadedOrErr(id string) (*loadedThread, error) {
	lt, ok := r.get(id)
	if !ok {
		return nil, errNoThread(id)
	}
	return lt, nil
}

func (r *threads) compact(ctx context.Context, c *Conn, p threadIDParams) (empty, error) {
	lt, err := r.loadedOrErr(p.ThreadID)
	if err != nil {
		return empty{}, err
	}
	id := newSubmissionID()
	lt.gate(id, ctx.Done())
	if err := lt.th.SubmitWithID(id, protocol.CompactOp{}); err != nil {
		return empty{}, internalError(err.Error())
	}
	return empty{}, nil
}

func hasUserMessage(t wire.V2Turn) bool {
	for _, it := range t.Items {
		if _, ok := it.(*wire.V2UserMessage); ok {
			return true
		}
	}
	return false
}
