// Package agents keeps the sub-agents of Codex's multi_agent_v2: each root thread's tree of
// agents (`/root`, `/root/<task_name>`), their status and mailboxes, and the loop that drives
// each child thread. A child is a thread of the host (started by Options.Start, with its own
// rollout linked to its parent); this package never builds one itself. It answers the
// `collaboration` tools (internal/tools/collab) with Codex 0.169's outputs and refusals.
package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/gocodex/gocodex/internal/tools/collab"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// Thread is what the registry drives of a child thread (an *agent.Thread).
type Thread interface {
	ID() string
	Submit(op protocol.Op) (string, error)
	NextEvent(ctx context.Context) (protocol.Event, error)
	Done() <-chan struct{}
}

// Child is what the host needs to start a child thread.
type Child struct {
	ParentThreadID string
	// RootThreadID is the tree's root (the session id every agent's requests carry).
	RootThreadID string
	Path         string // canonical task name, /root/<task_name>
	Nickname     string
	Depth        int
	// The parent's turn: the child runs on its cwd, sandbox and approval policy.
	Cwd             string
	Sandbox         protocol.SandboxPolicy
	Approval        protocol.AskForApproval
	Model           string
	ReasoningEffort string
	// Role is the [agents.<role>] the child was spawned as; DeveloperInstructions its
	// developer_instructions (the child's configuration's, as Codex applies a role).
	Role                  string
	DeveloperInstructions string
	// ForkHistory asks for a copy of the parent's history (fork_turns "all").
	ForkHistory bool
	// Opening are the items that open the child's first turn (its instructions and task).
	Opening []protocol.ResponseItem
}

// Options configure a Registry.
type Options struct {
	// Start starts a child thread and its first turn (opened by c.Opening).
	Start func(ctx context.Context, c Child) (Thread, error)
	// MaxThreads bounds the live agents of a tree, the root included (Codex's
	// agents.max_threads); 0 means Codex's default.
	MaxThreads int
	// MaxDepth bounds nesting (agents.max_depth); 0 means Codex's default (1: no grandchild).
	MaxDepth int
	// Roles are the configured `[agents.<role>]` tables (RolesFromConfig).
	Roles []Role
	// RolesError, when set, is why the roles could not be read: every spawn is refused
	// with it rather than run without the role the model asked for.
	RolesError error
	// Observe, when set, sees every event of every child thread (faces show them) and says
	// whether a face saw it; a face answers the child's approval requests itself. An
	// approval request no face saw is denied (nobody could answer it).
	Observe func(child Thread, parentThreadID string, ev protocol.Event) (seen bool)
	Logger  *slog.Logger
}

// Codex 0.169's defaults: 4 concurrency slots (the instructions say so), depth 1.
const (
	DefaultMaxThreads = 4
	DefaultMaxDepth   = 1
)

// Status values, as list_agents and agentsStates spell them.
const (
	StatusPendingInit = "pendingInit"
	StatusRunning     = "running"
	StatusCompleted   = "completed"
	StatusInterrupted = "interrupted"
	StatusErrored     = "errored"
	StatusShutdown    = "shutdown"
)

// Registry holds the trees of agents of the host's threads.
type Registry struct {
	opts  Options
	roles []Role // offered in spawn_agent: the configured, then Codex's built-ins
	ctx   context.Context
	stop  context.CancelFunc
	wg    sync.WaitGroup

	mu     sync.Mutex
	nodes  map[string]*node // by thread id
	closed bool
}

// node is one agent of a tree.
type node struct {
	threadID string
	rootID   string
	parent   *node
	path     string
	nickname string
	depth    int
	thread   Thread // nil for a root
	status   string
	message  string // the last answer or error
	mailbox  []protocol.ResponseItem
	// wake is closed and replaced when the mailbox gains an item.
	wake chan struct{}
	// parentEnv is the spawn call's: the child's end is told in its parent's turn.
	parentEnv *tool.Env
	reported  bool
	// failed is the error the running turn reported (read and written only by drive).
	failed string
	// answering is set from a child's end until its answer is in its parent's mailbox, so
	// a wait in between waits for it rather than finding nothing to wait for.
	answering bool
	// usage is the child thread's token usage so far.
	usage protocol.TokenUsage
}

// New is a registry; Close ends every child it started.
func New(opts Options) *Registry {
	if opts.MaxThreads <= 0 {
		opts.MaxThreads = DefaultMaxThreads
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Registry{opts: opts, roles: roleList(opts.Roles), ctx: ctx, stop: stop, nodes: map[string]*node{}}
}

// rootOf is the caller's node, made the root of a tree on its first call.
func (r *Registry) nodeOf(threadID string) *node {
	n, ok := r.nodes[threadID]
	if !ok {
		n = &node{threadID: threadID, rootID: threadID, path: "/root", status: StatusRunning, wake: make(chan struct{})}
		r.nodes[threadID] = n
	}
	return n
}

var taskNameRE = regexp.MustCompile(`^[a-z0-9_]+$`)

// Spawn starts a child of the calling thread.
func (r *Registry) Spawn(ctx context.Context, env *tool.Env, req collab.SpawnRequest) (string, string, error) {
	if !taskNameRE.MatchString(req.TaskName) {
		return "", "", fmt.Errorf("task_name %q must use lowercase letters, digits, and underscores", req.TaskName)
	}
	if r.opts.RolesError != nil {
		return "", "", fmt.Errorf("invalid [agents] configuration: %w", r.opts.RolesError)
	}
	var role *Role
	if req.AgentType != "" {
		ro, ok := r.role(req.AgentType)
		if !ok {
			return "", "", fmt.Errorf("unknown agent_type %q: the roles are those spawn_agent lists", req.AgentType)
		}
		role = &ro
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return "", "", errors.New("the host is shutting down")
	}
	parent := r.nodeOf(env.ThreadID)
	if parent.depth+1 > r.opts.MaxDepth {
		r.mu.Unlock()
		return "", "", errors.New("agent depth limit reached")
	}
	live := 1 // the root
	for _, n := range r.nodes {
		if n.rootID == parent.rootID && n.live() {
			live++
		}
	}
	if live >= r.opts.MaxThreads {
		r.mu.Unlock()
		return "", "", errors.New("agent thread limit reached")
	}
	path := parent.path + "/" + req.TaskName
	for _, n := range r.nodes {
		if n.rootID == parent.rootID && n.path == path {
			r.mu.Unlock()
			return "", "", fmt.Errorf("an agent named %s already exists", path)
		}
	}
	child := &node{rootID: parent.rootID, parent: parent, path: path, depth: parent.depth + 1, status: StatusPendingInit,
		wake: make(chan struct{}), parentEnv: env}
	// Reserved under the lock so that concurrent spawns count it.
	r.nodes["pending:"+path+":"+parent.rootID] = child
	r.mu.Unlock()

	c := Child{ParentThreadID: parent.threadID, RootThreadID: parent.rootID, Path: path, Nickname: nickname(),
		Depth: child.depth, Cwd: env.Cwd, Sandbox: env.Sandbox, Approval: env.Approval, Model: req.Model,
		ReasoningEffort: req.ReasoningEffort, ForkHistory: req.ForkTurns != "none",
		Opening: openingItems(parent.path, path, req.Message, r.opts.MaxThreads)}
	if req.PlainTask {
		c.Opening = []protocol.ResponseItem{userMessage(req.Message)}
	}
	if role != nil {
		applyRole(&c, *role)
	}
	th, err := r.opts.Start(ctx, c)
	r.mu.Lock()
	delete(r.nodes, "pending:"+path+":"+parent.rootID)
	if err != nil {
		r.mu.Unlock()
		return "", "", err
	}
	child.threadID, child.thread, child.status, child.nickname = th.ID(), th, StatusRunning, c.Nickname
	r.nodes[th.ID()] = child
	r.wg.Add(1)
	r.mu.Unlock()
	go r.drive(child) // owned by the registry: ends with the child thread (Close stops it)
	return path, th.ID(), nil
}

// drive reads a child's events until it shuts down: its status, its final answer (posted to
// its parent's mailbox) and its approval requests.
func (r *Registry) drive(n *node) {
	defer r.wg.Done()
	for {
		ev, err := n.thread.NextEvent(r.ctx)
		if err != nil {
			r.setStatus(n, StatusShutdown, "", false)
			return
		}
		seen := r.opts.Observe != nil && r.opts.Observe(n.thread, n.parent.threadID, ev)
		switch m := ev.Msg.(type) {
		case protocol.TurnStartedEvent:
			r.setStatus(n, StatusRunning, "", false)
		case protocol.TurnCompleteEvent:
			switch {
			case m.Error != nil:
				r.setStatus(n, StatusErrored, m.Error.Message, true)
			case n.failed != "":
				r.setStatus(n, StatusErrored, n.failed, true)
			default:
				answer := ""
				if m.LastAgentMessage != nil {
					answer = *m.LastAgentMessage
				}
				r.setStatus(n, StatusCompleted, answer, true)
			}
			n.failed = ""
		case protocol.TurnAbortedEvent:
			r.setStatus(n, StatusInterrupted, "", false)
		case protocol.ErrorEvent:
			n.failed = m.Message // the turn's end reports it
		case protocol.TokenCountEvent:
			r.recordUsage(n, m)
		case protocol.ExecApprovalRequestEvent:
			if !seen {
				_, _ = n.thread.Submit(protocol.ExecApprovalOp{ID: approvalID(m.ApprovalID, m.CallID), TurnID: m.TurnID,
					Decision: protocol.ReviewDecision{Kind: protocol.DecisionDenied}})
			}
		case protocol.RequestUserInputEvent:
			if !seen { // nobody to ask: answered at once with no answers, as exec does
				_, _ = n.thread.Submit(protocol.UserInputAnswerOp{ID: m.TurnID})
			}
		case protocol.ApplyPatchApprovalRequestEvent:
			if !seen {
				_, _ = n.thread.Submit(protocol.PatchApprovalOp{ID: m.CallID, Decision: protocol.ReviewDecision{Kind: protocol.DecisionDenied}})
			}
		case protocol.ShutdownCompleteEvent:
			r.setStatus(n, StatusShutdown, "", false)
			return
		}
	}
}

func approvalID(approvalID, callID string) string {
	if approvalID != "" {
		return approvalID
	}
	return callID
}

// setStatus records a child's status; final tells the parent's turn it completed (outside
// the lock: the turn's events may wait), then posts its answer (or error) to the parent's
// mailbox, so the completion shows before the wait it ends.
func (r *Registry) setStatus(n *node, status, message string, final bool) {
	r.mu.Lock()
	n.status = status
	if message != "" {
		n.message = message
	}
	final = final && n.parent != nil
	n.answering = final
	var report *tool.Env
	if final && n.parentEnv != nil && !n.reported {
		n.reported, report = true, n.parentEnv
	}
	r.mu.Unlock()
	if !final {
		return
	}
	if report != nil {
		collab.EmitActivity(report, "subagent-completed-"+n.threadID, "completed", n.threadID, n.path, "", "")
	}
	payload := message
	if status == StatusErrored {
		payload = "The agent's turn failed: " + message
	}
	r.mu.Lock()
	n.answering = false
	r.post(n.parent, agentMessage(n.path, n.parent.path, "FINAL_ANSWER", payload, false))
	r.mu.Unlock()
}

// post puts an item in a node's mailbox and wakes its waiters; r.mu held.
func (r *Registry) post(n *node, it protocol.ResponseItem) {
	n.mailbox = append(n.mailbox, it)
	close(n.wake)
	n.wake = make(chan struct{})
}

// Wait waits for the caller's mailbox: the items it holds, or a timeout.
func (r *Registry) Wait(ctx context.Context, env *tool.Env, timeoutMS int64) (collab.WaitResult, error) {
	timer := time.NewTimer(time.Duration(timeoutMS) * time.Millisecond)
	defer timer.Stop()
	for {
		r.mu.Lock()
		n := r.nodeOf(env.ThreadID)
		if len(n.mailbox) > 0 {
			msgs := n.mailbox
			n.mailbox = nil
			r.mu.Unlock()
			return collab.WaitResult{Messages: msgs}, nil
		}
		if !r.anyLive(n) {
			r.mu.Unlock()
			return collab.WaitResult{}, errors.New("no agent is running: every agent has finished and its answer was delivered; nothing to wait for")
		}
		wake := n.wake
		r.mu.Unlock()
		select {
		case <-wake:
		case <-timer.C:
			return collab.WaitResult{TimedOut: true}, nil
		case <-ctx.Done():
			return collab.WaitResult{}, ctx.Err()
		}
	}
}

// anyLive reports whether another agent of n's tree could still send it something; r.mu held.
func (r *Registry) anyLive(n *node) bool {
	for _, o := range r.nodes {
		if o != n && o.rootID == n.rootID && (o.live() || o.answering) {
			return true
		}
	}
	return false
}

// live reports a child running or being started.
func (n *node) live() bool {
	return n.parent != nil && (n.status == StatusRunning || n.status == StatusPendingInit)
}

// resolve finds target (a canonical path or a name relative to the caller); r.mu held.
func (r *Registry) resolve(caller *node, target string) (*node, error) {
	want := target
	if !strings.HasPrefix(target, "/") {
		want = caller.path + "/" + target
	}
	for _, n := range r.nodes {
		if n.rootID == caller.rootID && n.path == want && n.threadID != "" {
			return n, nil
		}
		if n.rootID == caller.rootID && n.threadID == target {
			return n, nil
		}
	}
	return nil, fmt.Errorf("agent %s not found: list_agents shows the live agents", target)
}

// Send queues a message on target; trigger (followup_task) starts a turn on an idle target.
func (r *Registry) Send(ctx context.Context, env *tool.Env, target, message string, trigger bool) error {
	r.mu.Lock()
	caller := r.nodeOf(env.ThreadID)
	n, err := r.resolve(caller, target)
	if err != nil {
		r.mu.Unlock()
		return err
	}
	if n.thread == nil {
		if trigger {
			r.mu.Unlock()
			return errors.New("followup_task cannot target the root agent")
		}
		r.post(n, agentMessage(caller.path, n.path, "MESSAGE", message, false))
		r.mu.Unlock()
		return nil
	}
	if n.status == StatusShutdown {
		r.mu.Unlock()
		return fmt.Errorf("agent %s has shut down", n.path)
	}
	kind, th, idle := "MESSAGE", n.thread, n.status != StatusRunning
	if trigger {
		kind = "NEW_TASK"
	}
	item := agentMessage(caller.path, n.path, kind, message, true)
	if trigger && idle {
		n.status = StatusRunning
	}
	r.mu.Unlock()
	raw, err := item.(protocol.OtherItem).MarshalJSON()
	if err != nil {
		return err
	}
	if trigger && idle {
		_, err = th.Submit(protocol.GoalTurnOp{Items: []json.RawMessage{raw}})
	} else {
		_, err = th.Submit(protocol.InjectItemsOp{Items: []json.RawMessage{raw}})
	}
	return err
}

// List lists the live agents of the caller's tree.
func (r *Registry) List(env *tool.Env, prefix string) ([]collab.Agent, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	caller := r.nodeOf(env.ThreadID)
	root := caller
	for root.parent != nil {
		root = root.parent
	}
	out := []collab.Agent{{Name: root.path, Status: StatusRunning}}
	for _, n := range sortedNodes(r.nodes) {
		if n.rootID != caller.rootID || n.thread == nil || n.status == StatusShutdown {
			continue
		}
		out = append(out, collab.Agent{Name: n.path, Status: n.status})
	}
	if prefix == "" {
		return out, nil
	}
	var kept []collab.Agent
	for _, a := range out {
		if a.Name == prefix || strings.HasPrefix(a.Name, prefix+"/") {
			kept = append(kept, a)
		}
	}
	return kept, nil
}

// Nickname is the name a spawned agent was given (Codex's v1 spawn_agent answers it), "" for
// an unknown thread.
func (r *Registry) Nickname(threadID string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n, ok := r.nodes[threadID]; ok {
		return n.nickname
	}
	return ""
}

// Interrupt stops target's turn.
func (r *Registry) Interrupt(ctx context.Context, env *tool.Env, target string) (string, error) {
	r.mu.Lock()
	caller := r.nodeOf(env.ThreadID)
	n, err := r.resolve(caller, target)
	if err != nil {
		r.mu.Unlock()
		return "", err
	}
	if n.thread == nil {
		r.mu.Unlock()
		return "", errors.New("interrupt_agent cannot target the root agent")
	}
	prev, th := n.status, n.thread
	r.mu.Unlock()
	if prev == StatusRunning {
		if _, err := th.Submit(protocol.InterruptOp{}); err != nil {
			return prev, err
		}
	}
	return prev, nil
}

// InterruptChildren interrupts every running descendant of a thread (its own interrupt
// reaches them).
func (r *Registry) InterruptChildren(threadID string) {
	r.mu.Lock()
	var ths []Thread
	for _, n := range r.nodes {
		if n.thread != nil && n.status == StatusRunning && descends(n, threadID) {
			ths = append(ths, n.thread)
		}
	}
	r.mu.Unlock()
	for _, th := range ths {
		_, _ = th.Submit(protocol.InterruptOp{})
	}
}

func descends(n *node, threadID string) bool {
	for p := n.parent; p != nil; p = p.parent {
		if p.threadID == threadID {
			return true
		}
	}
	return false
}

// MaxDepth is how deep a tree may grow: a child at a lesser depth may spawn its own.
func (r *Registry) MaxDepth() int { return r.opts.MaxDepth }

// Forget drops an ended thread's node (the host calls it when a thread is done).
func (r *Registry) Forget(threadID string) {
	r.mu.Lock()
	delete(r.nodes, threadID)
	r.mu.Unlock()
}

// Close shuts every child down and waits for their loops.
func (r *Registry) Close() {
	r.mu.Lock()
	r.closed = true
	var ths []Thread
	for _, n := range r.nodes {
		if n.thread != nil {
			ths = append(ths, n.thread)
		}
	}
	r.mu.Unlock()
	for _, th := range ths {
		_, _ = th.Submit(protocol.ShutdownOp{})
	}
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		r.opts.Logger.Warn("sub-agents did not shut down in time; stopping their loops")
	}
	r.stop()
	r.wg.Wait()
}

// nicknames are the names children get, as Codex gives each a random one.
var nicknames = []string{"Ampere", "Babbage", "Curie", "Darwin", "Euler", "Faraday", "Gauss", "Hopper", "Izumi", "Joule", "Kepler", "Lovelace", "Maxwell", "Noether", "Ohm", "Pascal"}

func nickname() string { return nicknames[rand.IntN(len(nicknames))] }
