package collab

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// V1Namespace is the namespace of Codex 0.169's multi_agent (v1) tools, found through
// tool_search (they are deferred: not offered upfront).
const V1Namespace = "multi_agent_v1"

// multi_agent_v1.json is the namespace as Codex 0.169's tool_search_output carries it
// (recorded in e2e/testdata/codex_subagents_v1).
//
//go:embed multi_agent_v1.json
var v1Spec []byte

// V1Spec is the multi_agent_v1 namespace as Codex 0.169 returns it from tool_search.
func V1Spec() tool.Spec { return withModelOverrides(v1Spec) }

// V1 is the handler of the v1 tools (spawn_agent, send_input, wait_agent, close_agent,
// resume_agent) on the same host agents as the v2 namespace: v1 names an agent by its
// thread id (agent_id) where v2 names it by its task path.
type V1 struct {
	agents Agents

	mu      sync.Mutex
	spawned int
	paths   map[string]string // task path -> thread id, of this thread's spawns
	answers map[string]string // thread id -> final answer seen by a wait
	done    map[string]bool   // thread id -> finished (answer or error delivered)
}

// NewV1 is the v1 handler for a root thread.
func NewV1(a Agents) *V1 {
	return &V1{agents: a, paths: map[string]string{}, answers: map[string]string{}, done: map[string]bool{}}
}

func (h *V1) Spec() tool.Spec { return V1Spec() }

// Deferred keeps the namespace out of the upfront tools: tool_search finds it.
func (h *V1) Deferred() bool { return true }

// Handle runs one v1 function.
func (h *V1) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	var args struct {
		Message         string   `json:"message"`
		Model           string   `json:"model"`
		ReasoningEffort string   `json:"reasoning_effort"`
		ForkContext     bool     `json:"fork_context"`
		Target          string   `json:"target"`
		Targets         []string `json:"targets"`
		TimeoutMS       *float64 `json:"timeout_ms"`
		Interrupt       bool     `json:"interrupt"`
	}
	if strings.TrimSpace(call.Arguments) != "" {
		if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
			return fail("failed to parse function arguments: " + err.Error()), nil
		}
	}
	switch call.Name {
	case "spawn_agent":
		if strings.TrimSpace(args.Message) == "" {
			return fail("spawn_agent needs message"), nil
		}
		h.mu.Lock()
		h.spawned++
		name := fmt.Sprintf("agent_%d", h.spawned)
		h.mu.Unlock()
		forkTurns := "none"
		if args.ForkContext {
			forkTurns = "all"
		}
		item := v1Item(env, call.CallID, "spawn_agent", nil, &args.Message)
		emitItem(env, item, false)
		path, threadID, err := h.agents.Spawn(ctx, env, SpawnRequest{TaskName: name, Message: args.Message,
			ForkTurns: forkTurns, Model: args.Model, ReasoningEffort: args.ReasoningEffort, PlainTask: true})
		if err != nil {
			item.Status = "failed"
			emitItem(env, item, true)
			return fail("collab spawn failed: " + err.Error()), nil
		}
		h.mu.Lock()
		h.paths[path] = threadID
		h.mu.Unlock()
		item.Status, item.ReceiverThreadIDs = "completed", []string{threadID}
		item.AgentsStates[threadID] = items.AgentState{Status: "pending_init"}
		emitItem(env, item, true)
		out := map[string]string{"agent_id": threadID}
		if named, ok := h.agents.(interface{ Nickname(string) string }); ok {
			out["nickname"] = named.Nickname(threadID)
		}
		return ok(out), nil
	case "send_input":
		if args.Target == "" || strings.TrimSpace(args.Message) == "" {
			return fail("send_input needs target and message"), nil
		}
		if args.Interrupt {
			if _, err := h.agents.Interrupt(ctx, env, args.Target); err != nil {
				return fail(err.Error()), nil
			}
		}
		if err := h.agents.Send(ctx, env, args.Target, args.Message, true); err != nil {
			return fail(err.Error()), nil
		}
		return ok(map[string]string{"message": "Message delivered."}), nil
	case "wait_agent":
		if len(args.Targets) == 0 {
			return fail("wait_agent needs targets"), nil
		}
		if unknown := h.unknown(args.Targets); unknown != "" {
			return fail("agent " + unknown + " not found: wait_agent takes the agent_id spawn_agent returned"), nil
		}
		item := v1Item(env, call.CallID, "wait", args.Targets, nil)
		emitItem(env, item, false)
		res, status := h.wait(ctx, env, args.Targets, args.TimeoutMS)
		item.Status = "completed"
		if !res.Success {
			item.Status = "failed"
		}
		for id, st := range status {
			answer := st["completed"]
			item.AgentsStates[id] = items.AgentState{Status: "completed", Message: &answer}
		}
		emitItem(env, item, true)
		return res, nil
	case "close_agent":
		if args.Target == "" {
			return fail("close_agent needs target"), nil
		}
		item := v1Item(env, call.CallID, "close_agent", []string{args.Target}, nil)
		emitItem(env, item, false)
		item.Status = "completed"
		defer func() { emitItem(env, item, true) }()
		if answer, done := h.finished(args.Target); done {
			item.AgentsStates[args.Target] = items.AgentState{Status: "completed", Message: &answer}
			return ok(map[string]any{"previous_status": map[string]string{"completed": answer}}), nil
		}
		prev, err := h.agents.Interrupt(ctx, env, args.Target)
		if err != nil {
			item.Status = "failed"
			return fail(err.Error()), nil
		}
		item.AgentsStates[args.Target] = items.AgentState{Status: prev}
		return ok(map[string]any{"previous_status": prev}), nil
	case "resume_agent":
		return fail("resume_agent is not supported by gocodex yet: spawn a new agent instead"), nil
	}
	return fail("unsupported call: " + call.Namespace + call.Name), nil
}

// wait waits until one of targets has finished (or the timeout) and reports the finished
// ones' answers, as Codex's v1 wait does: {"status":{<id>:{"completed":<answer>}},"timed_out":…}.
func (h *V1) wait(ctx context.Context, env *tool.Env, targets []string, timeoutMS *float64) (tool.Result, map[string]map[string]string) {
	ms := int64(defaultWaitMS)
	if timeoutMS != nil {
		ms = min(max(int64(*timeoutMS), minWaitMS), maxWaitMS)
	}
	status := h.statusOf(targets)
	timedOut := false
	for len(status) == 0 {
		res, err := h.agents.Wait(ctx, env, ms)
		if err != nil {
			return fail(err.Error()), nil
		}
		h.absorb(res.Messages)
		status = h.statusOf(targets)
		if res.TimedOut {
			timedOut = len(status) == 0
			break
		}
	}
	res := ok(map[string]any{"status": status, "timed_out": timedOut})
	res.FollowUp = notifications(status)
	return res, status
}

// notifications are the user messages Codex 0.169 puts after a wait's output, one per
// finished agent: <subagent_notification>{"agent_path":<id>,"status":{"completed":…}}.
func notifications(status map[string]map[string]string) []protocol.ResponseItem {
	ids := make([]string, 0, len(status))
	for id := range status {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []protocol.ResponseItem
	for _, id := range ids {
		b, _ := json.Marshal(struct {
			AgentPath string            `json:"agent_path"`
			Status    map[string]string `json:"status"`
		}{id, status[id]})
		out = append(out, protocol.MessageItem{Role: "user", Content: []protocol.ContentItem{{Type: protocol.ContentInputText,
			Text: "<subagent_notification>\n" + string(b) + "\n</subagent_notification>"}}})
	}
	return out
}

// v1Item is the collab item of a v1 call as Codex 0.169's exec prints it (tool spawn_agent,
// wait, close_agent), in progress.
func v1Item(env *tool.Env, callID, name string, receivers []string, prompt *string) items.CollabCallCore {
	if receivers == nil {
		receivers = []string{}
	}
	return items.CollabCallCore{Type: items.CoreCollabCall, ID: callID, Tool: name, Status: "inProgress",
		SenderThreadID: env.ThreadID, ReceiverThreadIDs: receivers, ReceiverAgents: []string{}, Prompt: prompt,
		AgentsStates: map[string]items.AgentState{}}
}

// absorb records the final answers among the mailbox items a wait received.
func (h *V1) absorb(msgs []protocol.ResponseItem) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range msgs {
		author, kind, payload, ok := agentMessageOf(m)
		if !ok || kind != "FINAL_ANSWER" {
			continue
		}
		if id, known := h.paths[author]; known {
			h.answers[id], h.done[id] = payload, true
		}
	}
}

// statusOf is the finished targets' answers.
func (h *V1) statusOf(targets []string) map[string]map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]map[string]string{}
	for _, t := range targets {
		if h.done[t] {
			out[t] = map[string]string{"completed": h.answers[t]}
		}
	}
	return out
}

// unknown is the first of targets this thread did not spawn, "" when it spawned them all.
func (h *V1) unknown(targets []string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range targets {
		known := false
		for _, id := range h.paths {
			known = known || id == t
		}
		if !known {
			return t
		}
	}
	return ""
}

// finished is target's answer once a wait saw it finish.
func (h *V1) finished(target string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.answers[target], h.done[target]
}

// agentMessageOf reads an agent_message item the host posts to a mailbox: its author, message
// type and payload ("Message Type: <kind>\n…Payload:\n<payload>").
func agentMessageOf(it protocol.ResponseItem) (author, kind, payload string, ok bool) {
	o, isOther := it.(protocol.OtherItem)
	if !isOther {
		return "", "", "", false
	}
	var m struct {
		Type    string `json:"type"`
		Author  string `json:"author"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(o.Raw, &m) != nil || m.Type != "agent_message" || len(m.Content) == 0 {
		return "", "", "", false
	}
	text := m.Content[0].Text
	head, body, found := strings.Cut(text, "Payload:\n")
	if !found {
		return "", "", "", false
	}
	first, _, _ := strings.Cut(head, "\n")
	return m.Author, strings.TrimPrefix(first, "Message Type: "), body, true
}
