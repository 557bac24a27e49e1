package appserver

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/host/ext"
	"github.com/gocodex/gocodex/internal/host/gitedits"
	"github.com/gocodex/gocodex/internal/host/loaded"
	"github.com/gocodex/gocodex/protocol"
)

// threads is the server's table of loaded threads. A loaded thread has one event pump that
// projects the engine's events into v2 notifications and hands them to the connections
// subscribed to it; v1 listeners get the raw events.
//
// As with Codex, a thread stays loaded while any connection is subscribed. Once the last
// one left (thread/unsubscribe, or its connection closing) and the thread has been idle for
// the unload delay (thread_unload_delay_secs, 30 minutes by default), it is shut down and
// every connection hears thread/status/changed (notLoaded) and thread/closed. A client that
// subscribes again within the delay keeps it; a running turn keeps it too.
//
// The table of loaded threads and their unloading is the host's (internal/host/loaded);
// what keeps a thread loaded here is a connection's subscription.
type threads struct {
	srv   *Server
	table *loaded.Table[*loadedThread]

	mu sync.Mutex
	// limits is the last rate-limit snapshot any thread's model responses carried.
	limits *protocol.RateLimitSnapshot

	// extSet are the host's extensions: goals, sections, attachments, read state (host_ext.go).
	extOnce sync.Once
	extSet  *ext.Set

	// children are the loaded sub-agents by thread id (subagents.go).
	children sync.Map
}

// DefaultThreadUnloadDelay is Codex's default thread_unload_delay_secs.
const DefaultThreadUnloadDelay = 30 * time.Minute

func newThreads(s *Server) *threads {
	return &threads{srv: s, table: loaded.New[*loadedThread](s.unloadDelay())}
}

// unloadDelay is Options.ThreadUnloadDelay, else the configuration's
// thread_unload_delay_secs, else DefaultThreadUnloadDelay.
func (s *Server) unloadDelay() time.Duration {
	switch d := s.opts.ThreadUnloadDelay; {
	case d < 0:
		return 0
	case d > 0:
		return d
	}
	if s.opts.Config != nil {
		var secs int64 = -1
		switch v := s.opts.Config.Effective["thread_unload_delay_secs"].(type) {
		case int64:
			secs = v
		case int:
			secs = int64(v)
		}
		if secs >= 0 && secs <= int64(math.MaxInt64/time.Second) {
			return time.Duration(secs) * time.Second
		}
	}
	return DefaultThreadUnloadDelay
}

// loadedThread is one running engine thread and what the app-server knows about it.
type loadedThread struct {
	reg  *threads
	id   string
	th   app.Thread
	app  *app.App
	cfg  *config.Config
	info threadInfo
	// warnings are the configuration warnings this thread's start has to report.
	warnings []config.Warning
	// unknownSettings is Codex's warning about the configuration's unknown keys, said at
	// every start of the thread ("" when there are none).
	unknownSettings string

	pumpDone chan struct{}
	// endedBy is set before the thread is unloaded to be archived or deleted: as from Codex
	// 0.169, the unload then ends with thread/archived or thread/deleted (to the connection
	// that asked) instead of thread/closed.
	endedBy atomic.Pointer[threadEnd]
	// beforeStarted, when set, sends what must precede thread/started (a fork's notes).
	beforeStarted func(c *Conn)
	// settingsState follows turn/start's overrides (thread/settings/updated).
	settingsState threadSettingsState
	// ready is closed once the request that loaded the thread has been answered (and
	// thread/started sent): the thread's events follow them.
	ready     chan struct{}
	readyOnce sync.Once
	// sendMu orders deliveries: the pump's and those of app-server-run work (shell commands)
	// go out one event at a time, projection and sending together.
	sendMu sync.Mutex

	mu        sync.Mutex
	proj      *wire.V2Projector
	subs      []*Conn
	queues    map[*Conn]*subscriber // each subscriber's own queue (subscriber.go)
	v1owners  map[*Conn]bool        // v1 connections that created or resumed the conversation
	listeners map[string]*Conn      // v1 addConversationListener subscriptions by id
	aborts    []chan string         // interruptConversation calls waiting for turn_aborted
	gates     map[string]chan struct{}
	lastEvent time.Time

	// gone says the thread was archived or deleted: its unloading tells no thread/closed,
	// as Codex 0.169's thread/archive and thread/delete do not.
	gone bool

	// collab is the collaboration mode a turn/start switched the thread to (nil: default).
	collab *protocol.CollaborationMode

	// questions are the open item/tool/requestUserInput requests (questions.go).
	questions openQuestions
}

// watchersLocked says whether any connection keeps the thread loaded. lt.mu is held.
func (lt *loadedThread) watchersLocked() bool {
	return len(lt.subs) > 0 || len(lt.listeners) > 0 || len(lt.v1owners) > 0
}

// watchedLocked reports whether any connection keeps the thread loaded; it stops a pending
// unload when one does. lt.mu is held.
func (lt *loadedThread) watchedLocked() bool {
	if !lt.watchersLocked() {
		return false
	}
	lt.reg.table.Watch(lt, true)
	return true
}

// ID, Watched, Idle and Shutdown are the thread as the host's table sees it.
func (lt *loadedThread) ID() string { return lt.id }

func (lt *loadedThread) Watched() bool {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt.watchersLocked()
}

func (lt *loadedThread) Idle() (time.Time, bool) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	_, running := lt.proj.TurnRunning()
	return lt.lastEvent, running
}

func (lt *loadedThread) Shutdown() { _, _ = lt.th.Submit(protocol.ShutdownOp{}) }

// threadInfo is the thread metadata the v2 Thread object shows.
type threadInfo struct {
	Path         string
	Ephemeral    bool
	ForkedFromID string
	Preview      string
	Name         string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	Source       string
	CLIVersion   string
	Git          *gitInfo
	// HistoryMode is the rollout's form (rollout.HistoryModePaginated for new threads);
	// Originator the client that started the thread.
	HistoryMode string
	Originator  string
}

type gitInfo = gitedits.Info

// get returns a loaded thread.
func (r *threads) get(id string) (*loadedThread, bool) { return r.table.Get(id) }

// list is the loaded threads in load order (thread/loaded/list).
func (r *threads) list() []*loadedThread { return r.table.List() }

// add registers a started thread, subscribes c and starts its pump.
func (r *threads) add(c *Conn, lt *loadedThread) {
	r.load(c, lt)
	go lt.pump() // owned by the thread: ends when the engine thread has shut down
}

// load makes lt a loaded thread and subscribes c; its events come from its pump (add)
// or, for a sub-agent, from the host's registry (subagents.go).
func (r *threads) load(c *Conn, lt *loadedThread) {
	lt.reg = r
	lt.pumpDone = make(chan struct{})
	lt.ready = make(chan struct{})
	lt.proj = wire.NewV2Projector(lt.id, nil)
	lt.gates = map[string]chan struct{}{}
	lt.listeners = map[string]*Conn{}
	lt.v1owners = map[*Conn]bool{}
	lt.queues = map[*Conn]*subscriber{}
	r.table.Add(lt)
	if c != nil {
		r.subscribe(c, lt)
	}
}

type subsKey struct{}

// subscribe adds c to lt's subscribers; the first subscription of a connection arranges
// for its threads to be left when it closes.
func (r *threads) subscribe(c *Conn, lt *loadedThread) {
	lt.mu.Lock()
	for _, s := range lt.subs {
		if s == c {
			lt.mu.Unlock()
			return
		}
	}
	lt.subs = append(lt.subs, c)
	lt.queues[c] = newSubscriber(c, r.srv.opts.SubscriberQueue)
	lt.watchedLocked()
	lt.mu.Unlock()
	r.hookClose(c)
}

// subscribeV1 makes c a v1 owner of lt: it keeps the conversation loaded and answers its
// approvals, and sees events only through listeners.
func (r *threads) subscribeV1(c *Conn, lt *loadedThread) {
	lt.mu.Lock()
	lt.v1owners[c] = true
	lt.watchedLocked()
	lt.mu.Unlock()
	r.hookClose(c)
}

// hookClose arranges, once per connection, for its threads to be left when it closes.
func (r *threads) hookClose(c *Conn) {
	c.mu.Lock()
	_, hooked := c.values[subsKey{}]
	c.values[subsKey{}] = true
	c.mu.Unlock()
	if !hooked {
		c.OnClose(func() { r.leaveAll(c) })
	}
	// A request that finished after its connection ended: the close hooks have run already.
	if c.Context().Err() != nil {
		r.leaveAll(c)
	}
}

// unsubscribe removes c from lt; it reports whether c was subscribed. When nobody is left
// the thread is unloaded after the unload delay (see threads).
func (r *threads) unsubscribe(c *Conn, lt *loadedThread) bool {
	lt.mu.Lock()
	found := false
	for i, s := range lt.subs {
		if s == c {
			lt.subs = append(lt.subs[:i:i], lt.subs[i+1:]...)
			found = true
			break
		}
	}
	if q := lt.queues[c]; q != nil {
		delete(lt.queues, c)
		q.stop() // what the client has not read yet of this thread is dropped
	}
	delete(lt.v1owners, c)
	for id, l := range lt.listeners {
		if l == c {
			delete(lt.listeners, id)
		}
	}
	if !lt.watchedLocked() && r.table.Watch(lt, false) {
		lt.mu.Unlock()
		r.unload(lt) // no unload delay
		return found
	}
	lt.mu.Unlock()
	return found
}

func (r *threads) leaveAll(c *Conn) {
	var wait []*loadedThread
	for _, lt := range r.list() {
		lt.mu.Lock()
		sub := lt.v1owners[c]
		for _, s := range lt.subs {
			sub = sub || s == c
		}
		for _, l := range lt.listeners {
			sub = sub || l == c
		}
		lt.mu.Unlock()
		if sub {
			r.unsubscribe(c, lt)
			wait = append(wait, lt)
		}
	}
	// Wait (bounded) for the threads this connection unloaded, so their goroutines are gone
	// when the connection is; with an unload delay they outlive it on purpose.
	if r.table.Delay() > 0 {
		return
	}
	for _, lt := range wait {
		select {
		case <-lt.pumpDone:
		case <-time.After(5 * time.Second):
		}
	}
}

// unload shuts the engine thread down and forgets it.
func (r *threads) unload(lt *loadedThread) { r.table.Unload(lt) }

// closeAll unloads every thread at once and waits for their pumps.
func (r *threads) closeAll(ctx context.Context) {
	all := r.table.UnloadAll()
	// Bounded, as when a connection leaves: a wedged engine thread must not hold the
	// process's exit.
	limit := time.NewTimer(5 * time.Second)
	defer limit.Stop()
	for _, lt := range all {
		select {
		case <-lt.pumpDone:
		case <-ctx.Done():
			return
		case <-limit.C:
			return
		}
	}
}

// gate makes the pump hold the events of turn id until ready is closed: turn/start's answer
// goes out before the turn's first notification, as with Codex.
func (lt *loadedThread) gate(id string, ready <-chan struct{}) {
	ch := make(chan struct{})
	lt.mu.Lock()
	lt.gates[id] = ch
	lt.mu.Unlock()
	go func() {
		select {
		case <-ready:
		case <-time.After(5 * time.Second):
		}
		close(ch)
	}()
}

// turnActive reports a running turn, or one submitted whose start has not been seen yet.
func (lt *loadedThread) turnActive() bool {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if _, running := lt.proj.TurnRunning(); running {
		return true
	}
	return len(lt.gates) > 0
}

func (lt *loadedThread) waitGate(id string) {
	lt.mu.Lock()
	ch, ok := lt.gates[id]
	delete(lt.gates, id)
	lt.mu.Unlock()
	if ok {
		<-ch
	}
}

// pump reads the engine's events until the thread has shut down.
func (lt *loadedThread) markReady() { lt.readyOnce.Do(func() { close(lt.ready) }) }

func (lt *loadedThread) pump() {
	defer close(lt.pumpDone)
	select {
	case <-lt.ready:
	case <-time.After(5 * time.Second):
	}
	for {
		ev, err := lt.th.NextEvent(context.Background())
		if err != nil {
			if !errors.Is(err, app.ErrThreadClosed) {
				lt.reg.srv.logger.Error("thread event stream failed", "thread", lt.id, "err", err)
			}
			lt.closed()
			return
		}
		if ts, ok := ev.Msg.(protocol.TurnStartedEvent); ok {
			lt.waitGate(ts.TurnID)
		}
		lt.deliver(ev)
	}
}

// deliver projects one event and sends the result to every subscriber (and the raw event to
// v1 listeners). Sending blocks while a subscriber's queue is full: backpressure reaches
// the engine's queue, which coalesces deltas.
func (lt *loadedThread) deliver(ev protocol.Event) {
	lt.sendMu.Lock()
	defer lt.sendMu.Unlock()
	lt.mu.Lock()
	turnID, _ := lt.proj.TurnRunning()
	lt.mu.Unlock()
	// The extensions' notices (a goal's) go out ahead of the event's; they see the event
	// again once it is out (a goal turn starts).
	exts, et := lt.reg.extensions(), extThread{lt}
	extNotes := wireNotes(exts.BeforeEvent(et, ev, turnID))
	defer exts.AfterEvent(et, ev)
	lt.mu.Lock()
	notes := append(extNotes, lt.proj.Apply(ev)...)
	subs := append([]*Conn(nil), lt.subs...)
	queues := lt.queuesLocked()
	var listeners, owners []*Conn
	for _, c := range lt.listeners {
		listeners = append(listeners, c)
	}
	for c := range lt.v1owners {
		owners = append(owners, c)
	}
	var aborts []chan string
	if ab, ok := ev.Msg.(protocol.TurnAbortedEvent); ok {
		aborts, lt.aborts = lt.aborts, nil
		for _, ch := range aborts {
			ch <- string(ab.Reason)
		}
	}
	lt.lastEvent = time.Now()
	switch m := ev.Msg.(type) {
	case protocol.UserMessageEvent:
		if lt.info.Preview == "" {
			lt.info.Preview = m.Message
		}
	case protocol.TurnCompleteEvent, protocol.TurnAbortedEvent:
		lt.info.UpdatedAt = time.Now()
	}
	lt.mu.Unlock()
	notes = turnEndNotes(notes, exts.TurnEnded(et, ev))
	if tc, ok := ev.Msg.(protocol.TokenCountEvent); ok && tc.RateLimits != nil {
		lt.reg.mu.Lock()
		lt.reg.limits = tc.RateLimits
		lt.reg.mu.Unlock()
	}

	for _, q := range queues {
		for _, n := range notes {
			q.push(n)
		}
	}
	lt.broadcastStatus(notes)
	if g, ok := ev.Msg.(protocol.ThreadGoalUpdatedEvent); ok && g.Sync != "" {
		listeners = nil // a goal tool's wait, nothing to tell
	}
	for _, c := range listeners {
		sendV1Event(c, lt.id, ev)
	}
	switch m := ev.Msg.(type) {
	case protocol.ExecApprovalRequestEvent:
		lt.askExec(subs, append(owners, listeners...), ev.ID, m)
	case protocol.ApplyPatchApprovalRequestEvent:
		lt.askPatch(subs, append(owners, listeners...), ev.ID, m)
	case protocol.RequestUserInputEvent:
		lt.askQuestions(subs, ev.ID, m)
	case protocol.TurnCompleteEvent, protocol.TurnAbortedEvent:
		lt.questions.endAll()
	}
}

// threadEnd is who is archiving or deleting a loaded thread, and the notification that says so.
type threadEnd struct {
	by     *Conn
	method string // thread/archived or thread/deleted
}

// closed tells every connection the thread is gone, subscribed or not, as Codex does: a
// subscriber after what its queue still holds.
func (lt *loadedThread) closed() {
	lt.mu.Lock()
	queues := lt.queues
	gone := lt.gone
	lt.subs, lt.queues = nil, map[*Conn]*subscriber{}
	lt.mu.Unlock()
	idParams := struct {
		ThreadID string `json:"threadId"`
	}{lt.id}
	notes := []wire.V2Notification{
		{Method: "thread/status/changed", Params: wire.V2ThreadStatusChanged{ThreadID: lt.id, Status: wire.V2ThreadStatus{Type: "notLoaded"}}},
		{Method: "thread/closed", Params: idParams},
	}
	end := lt.endedBy.Load()
	if end != nil {
		notes = notes[:1]
	}
	if gone {
		notes = notes[:1]
	}
	for _, c := range lt.reg.srv.initializedConns() {
		mine := notes
		if end != nil && c == end.by {
			mine = append(notes[:1:1], wire.V2Notification{Method: end.method, Params: idParams})
		}
		if q := queues[c]; q != nil {
			q.finish(mine...)
			continue
		}
		q := c.broadcast()
		for _, n := range mine {
			q.push(n)
		}
	}
	for c, q := range queues {
		if !c.Initialized() {
			q.stop()
		}
	}
}

// broadcastStatus sends the thread's status changes among notes to the v2 connections not
// subscribed to it: Codex tells every client (checked against its app-server with a third
// websocket client that never subscribed).
func (lt *loadedThread) broadcastStatus(notes []wire.V2Notification) {
	var status []wire.V2Notification
	for _, n := range notes {
		if n.Method == "thread/status/changed" {
			status = append(status, n)
		}
	}
	if len(status) == 0 {
		return
	}
	for _, c := range lt.reg.srv.initializedConns() {
		lt.mu.Lock()
		_, sub := lt.queues[c]
		v1 := lt.v1owners[c]
		for _, l := range lt.listeners {
			v1 = v1 || l == c
		}
		lt.mu.Unlock()
		if sub || v1 {
			continue
		}
		q := c.broadcast()
		for _, n := range status {
			q.push(n)
		}
	}
}

// queuesLocked lists the subscribers' queues in subscription order. lt.mu is held.
func (lt *loadedThread) queuesLocked() []*subscriber {
	out := make([]*subscriber, 0, len(lt.subs))
	for _, c := range lt.subs {
		if q := lt.queues[c]; q != nil {
			out = append(out, q)
		}
	}
	return out
}

// flushed is closed once everything queued for c on this thread so far has been sent: a
// server request to c goes out after the notifications that lead to it.
func (lt *loadedThread) flushed(c *Conn) <-chan struct{} {
	lt.mu.Lock()
	q := lt.queues[c]
	lt.mu.Unlock()
	if q == nil {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	return q.barrier()
}

// notifySub sends one thread notification to c through its queue (directly when c is not
// subscribed).
func (lt *loadedThread) notifySub(c *Conn, n wire.V2Notification) {
	lt.mu.Lock()
	q := lt.queues[c]
	lt.mu.Unlock()
	if q == nil {
		_ = c.Notify(c.Context(), n.Method, n.Params)
		return
	}
	q.push(n)
}

// turns copies the thread's turns (for thread/read).
func (lt *loadedThread) turns() []wire.V2Turn {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt.proj.Turns()
}

func (lt *loadedThread) status() wire.V2ThreadStatus {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt.proj.Status()
}

func (lt *loadedThread) runningTurn() (string, bool) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt.proj.TurnRunning()
}
