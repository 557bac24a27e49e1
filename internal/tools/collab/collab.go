// Package collab is the `collaboration` namespace tool of Codex 0.169's multi_agent_v2:
// spawn_agent, send_message, followup_task, wait_agent, list_agents and interrupt_agent, as
// Codex offers them (collaboration.json is the namespace Codex sends, recorded from its
// request; spawn_agent's description lists the model overrides of the catalog). The agents
// themselves are the host's (internal/host/agents): this package parses a call, asks Agents
// and words the output the model reads.
package collab

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// Namespace is the name of the namespace tool.
const Namespace = "collaboration"

//go:embed collaboration.json
var namespaceSpec []byte

// modelsMarker stands for the model overrides in spawn_agent's description.
const modelsMarker = "{{MODELS}}"

// maxListedOverrides is how many catalog models Codex 0.169 names in spawn_agent.
const maxListedOverrides = 5

// Spec is the namespace tool as Codex 0.169 sends it with no role configured.
func Spec() tool.Spec { return SpecWithRoles(nil) }

// Role is an agent role as spawn_agent's agent_type lists it.
type Role struct {
	Name        string
	Description string
	// Model and ReasoningEffort, when set, are fixed for the role's children (the
	// description says so, as Codex's does).
	Model, ReasoningEffort string
}

// fixedSettings is Codex 0.169's line telling the model a role's model or effort is fixed.
func (r Role) fixedSettings() string {
	switch {
	case r.Model != "" && r.ReasoningEffort != "":
		return fmt.Sprintf("\n- This role's model is set to `%s` and its reasoning effort is set to `%s`. These settings cannot be changed.", r.Model, r.ReasoningEffort)
	case r.Model != "":
		return fmt.Sprintf("\n- This role's model is set to `%s` and cannot be changed.", r.Model)
	case r.ReasoningEffort != "":
		return fmt.Sprintf("\n- This role's reasoning effort is set to `%s` and cannot be changed.", r.ReasoningEffort)
	}
	return ""
}

// RoleLister is an Agents that knows roles (`[agents.<role>]`): spawn_agent then offers
// agent_type, as Codex 0.169 does when a role is configured.
type RoleLister interface {
	Roles() []Role
}

// agentTypeIntro opens agent_type's description (Codex 0.169's words).
const agentTypeIntro = "Agent type override for the new agent. Omit unless explicitly asked. The selected role applies regardless of how much parent history is inherited.\nAvailable roles:\n"

// spawnProperties is where spawn_agent's parameters open; agent_type goes first, as the
// parameters are in name order.
var spawnProperties = []byte(`"name": "spawn_agent",`)

// agentTypeProperty is spawn_agent's agent_type parameter listing roles.
func agentTypeProperty(roles []Role) []byte {
	var desc strings.Builder
	desc.WriteString(agentTypeIntro)
	for i, r := range roles {
		if i > 0 {
			desc.WriteString("\n")
		}
		fmt.Fprintf(&desc, "%s: {\n%s%s\n}", r.Name, r.Description, r.fixedSettings())
	}
	b, _ := json.MarshalIndent(map[string]string{"type": "string", "description": desc.String()}, "     ", " ")
	return b
}

// SpecWithRoles is the namespace tool as Codex 0.169 sends it; roles, when any, are listed
// in spawn_agent's agent_type.
func SpecWithRoles(roles []Role) tool.Spec {
	spec := withModelOverrides(namespaceSpec)
	if len(roles) > 0 {
		at := bytes.Index(spec, spawnProperties)
		props := bytes.Index(spec[at:], []byte(`"properties": {`)) + at + len(`"properties": {`)
		insert := append([]byte("\n      \"agent_type\": "), agentTypeProperty(roles)...)
		insert = append(insert, ',')
		spec = append(spec[:props:props], append(insert, spec[props:]...)...)
	}
	return spec
}

// withModelOverrides puts the catalog's model overrides, as spawn_agent's description lists
// them, in place of the spec's marker.
func withModelOverrides(spec []byte) tool.Spec {
	var models strings.Builder
	models.WriteString("\n        Available model overrides (optional; inherited parent model is preferred):\n")
	n := 0
	for _, m := range model.ListedModels() {
		l := model.ListingOf(m.Slug)
		if l.MultiAgentVersion != "v2" || n == maxListedOverrides {
			continue
		}
		n++
		var efforts []string
		for _, e := range m.SupportedReasoningLevels {
			if e == m.DefaultReasoningLevel {
				e += " (default)"
			}
			efforts = append(efforts, e)
		}
		fmt.Fprintf(&models, "- `%s`: %s Reasoning efforts: %s.", m.Slug, l.Description, strings.Join(efforts, ", "))
		if len(l.ServiceTiers) > 0 {
			var tiers []string
			for _, t := range l.ServiceTiers {
				tiers = append(tiers, t.ID)
			}
			fmt.Fprintf(&models, " Service tiers: %s.", strings.Join(tiers, ", "))
		}
		models.WriteString("\n")
	}
	text, _ := json.Marshal(models.String())
	text = text[1 : len(text)-1] // the JSON string's contents
	return tool.Spec(bytes.Replace(spec, []byte(modelsMarker), text, 1))
}

// Agent is one agent of a tree as list_agents shows it.
type Agent struct {
	Name   string `json:"agent_name"`
	Status string `json:"agent_status"`
}

// SpawnRequest is a spawn_agent call.
type SpawnRequest struct {
	TaskName        string
	Message         string
	ForkTurns       string
	Model           string
	ReasoningEffort string
	// AgentType names a role (`[agents.<role>]`) whose settings the child runs with.
	AgentType string
	// PlainTask opens the child's first turn with the task as a plain user message and no
	// team instructions, as Codex 0.169's v1 tools (multi_agent) do.
	PlainTask bool
}

// WaitResult is what wait_agent saw.
type WaitResult struct {
	TimedOut bool
	// Messages are the mailbox items delivered to the caller (the children's final answers
	// and messages), put in its history after the call's output.
	Messages []protocol.ResponseItem
}

// Agents is the host's side of the tools: the tree of agents the calling thread is in. An
// error's text is the output the model reads.
type Agents interface {
	// Spawn starts a child; the child's completion is told through env.Emit (a
	// SubAgentActivity item) once it ends.
	Spawn(ctx context.Context, env *tool.Env, req SpawnRequest) (taskPath, threadID string, err error)
	// Send queues a message on target; trigger starts a turn when it is idle (followup_task).
	Send(ctx context.Context, env *tool.Env, target, message string, trigger bool) error
	Wait(ctx context.Context, env *tool.Env, timeoutMS int64) (WaitResult, error)
	List(env *tool.Env, pathPrefix string) ([]Agent, error)
	// Interrupt stops target's turn and returns the status it had.
	Interrupt(ctx context.Context, env *tool.Env, target string) (string, error)
}

// Handler is the namespace's handler.
type Handler struct {
	agents Agents
}

// New is the handler for a root thread.
func New(a Agents) *Handler { return &Handler{agents: a} }

func (h *Handler) Spec() tool.Spec {
	if rl, ok := h.agents.(RoleLister); ok {
		return SpecWithRoles(rl.Roles())
	}
	return Spec()
}

// Wait bounds, as spawn_agent's description says (milliseconds).
const (
	defaultWaitMS = 30000
	minWaitMS     = 10000
	maxWaitMS     = 3600000
)

// Handle runs one function of the namespace.
func (h *Handler) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	var args struct {
		TaskName        string   `json:"task_name"`
		Message         string   `json:"message"`
		ForkTurns       string   `json:"fork_turns"`
		Model           string   `json:"model"`
		ReasoningEffort string   `json:"reasoning_effort"`
		AgentType       string   `json:"agent_type"`
		Target          string   `json:"target"`
		TimeoutMS       *float64 `json:"timeout_ms"`
		PathPrefix      string   `json:"path_prefix"`
	}
	if strings.TrimSpace(call.Arguments) != "" {
		if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
			return fail("failed to parse function arguments: " + err.Error()), nil
		}
	}
	switch call.Name {
	case "spawn_agent":
		if args.TaskName == "" || args.Message == "" {
			return fail("spawn_agent needs task_name and message"), nil
		}
		if args.ForkTurns != "" && args.ForkTurns != "all" && args.ForkTurns != "none" {
			return fail(fmt.Sprintf("fork_turns must be `all` or `none`, not %q", args.ForkTurns)), nil
		}
		path, threadID, err := h.agents.Spawn(ctx, env, SpawnRequest{TaskName: args.TaskName, Message: args.Message,
			ForkTurns: args.ForkTurns, Model: args.Model, ReasoningEffort: args.ReasoningEffort, AgentType: args.AgentType})
		if err != nil {
			return fail("collab spawn failed: " + err.Error()), nil
		}
		EmitActivity(env, call.CallID, "started", threadID, path, args.Model, args.ReasoningEffort)
		return ok(map[string]string{"task_name": path}), nil
	case "send_message", "followup_task":
		if args.Target == "" || args.Message == "" {
			return fail(call.Name + " needs target and message"), nil
		}
		if err := h.agents.Send(ctx, env, args.Target, args.Message, call.Name == "followup_task"); err != nil {
			return fail(err.Error()), nil
		}
		return ok(map[string]string{"message": "Message delivered."}), nil
	case "wait_agent":
		ms := int64(defaultWaitMS)
		if args.TimeoutMS != nil {
			ms = min(max(int64(*args.TimeoutMS), minWaitMS), maxWaitMS)
		}
		item := items.CollabCallCore{Type: items.CoreCollabCall, ID: call.CallID, Tool: "wait", Status: "inProgress",
			SenderThreadID: env.ThreadID, ReceiverThreadIDs: []string{}, ReceiverAgents: []string{}, AgentsStates: map[string]items.AgentState{}}
		emitItem(env, item, false)
		res, err := h.agents.Wait(ctx, env, ms)
		item.Status = "completed"
		if err != nil {
			item.Status = "failed"
		}
		emitItem(env, item, true)
		if err != nil {
			return fail(err.Error()), nil
		}
		msg := "Wait completed."
		if res.TimedOut {
			msg = "Wait timed out."
		}
		out := ok(map[string]any{"message": msg, "timed_out": res.TimedOut})
		out.FollowUp = res.Messages
		return out, nil
	case "list_agents":
		list, err := h.agents.List(env, strings.TrimRight(args.PathPrefix, "/"))
		if err != nil {
			return fail(err.Error()), nil
		}
		return ok(map[string]any{"agents": list}), nil
	case "interrupt_agent":
		if args.Target == "" {
			return fail("interrupt_agent needs target"), nil
		}
		prev, err := h.agents.Interrupt(ctx, env, args.Target)
		if err != nil {
			return fail(err.Error()), nil
		}
		return ok(map[string]string{"previous_status": prev}), nil
	}
	return fail("unsupported call: " + call.Namespace + call.Name), nil
}

// emitItem tells the turn a collab item started or completed.
func emitItem(env *tool.Env, item any, completed bool) {
	if env.Emit == nil {
		return
	}
	raw, err := json.Marshal(item)
	if err != nil {
		return
	}
	if completed {
		env.Emit(protocol.ItemCompletedEvent{ThreadID: env.ThreadID, TurnID: env.TurnID, Item: raw})
		return
	}
	env.Emit(protocol.ItemStartedEvent{ThreadID: env.ThreadID, TurnID: env.TurnID, Item: raw})
}

// EmitActivity tells the parent's turn that a sub-agent started or completed (a
// SubAgentActivity item, as Codex records it).
func EmitActivity(env *tool.Env, id, kind, threadID, path, model, effort string) {
	a := items.SubAgentActivityCore{Type: items.CoreSubAgentActivity, ID: id, Kind: kind, AgentThreadID: threadID, AgentPath: path}
	if model != "" {
		a.Model = &model
	}
	if effort != "" {
		a.ReasoningEffort = &effort
	}
	// Started and completed at once, as Codex's app-server tells it.
	emitItem(env, a, false)
	emitItem(env, a, true)
}

func ok(v any) tool.Result {
	b, _ := json.Marshal(v)
	return tool.Result{Output: string(b), Success: true}
}

func fail(msg string) tool.Result { return tool.Result{Output: msg} }
