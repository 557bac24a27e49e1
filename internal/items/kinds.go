package items

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// Body is the state of one item of the fold (see Fold): one of the pointer types below.
// The fold owns a body and changes it as the item lives; a face reads it while it handles
// the change and copies what it keeps.
type Body interface{ isBody() }

// AgentMessage is the agent's answer. Streamed holds the deltas so far (coalesced); Text is
// the whole message, set when it completes (the engine's text is authoritative).
type AgentMessage struct {
	Text  string
	Phase string // the engine's message phase ("commentary", "final_answer"), "" when none

	streamed strings.Builder
}

// Streamed is the text the deltas brought so far.
func (m *AgentMessage) Streamed() string { return m.streamed.String() }

// Reasoning is one run of the model's reasoning: summary parts (each a paragraph of the
// summary) and raw content parts. It completes when the agent's message or a tool call
// begins, or the turn ends.
type Reasoning struct {
	summary []strings.Builder
	content []strings.Builder
	// part is the index of the summary part being written.
	part int
}

// Summary is the reasoning summary, one string a part.
func (r *Reasoning) Summary() []string { return joinParts(r.summary) }

// Content is the raw reasoning content, one string a part.
func (r *Reasoning) Content() []string { return joinParts(r.content) }

// Part is the index of the summary part being written.
func (r *Reasoning) Part() int { return r.part }

func joinParts(parts []strings.Builder) []string {
	out := make([]string, len(parts))
	for i := range parts {
		out[i] = parts[i].String()
	}
	return out
}

func setPart(parts []strings.Builder, i int, text string) []strings.Builder {
	for len(parts) <= i {
		parts = append(parts, strings.Builder{})
	}
	parts[i].Reset()
	parts[i].WriteString(text)
	return parts
}

// Command is a command the agent runs. Begun is false while it only waits for the person's
// approval; the end fields are set when it completes.
type Command struct {
	Argv      []string
	Cwd       string
	ParsedCmd []protocol.ParsedCommand
	Source    protocol.ExecCommandSource
	ProcessID string // set for exec_command sessions, which may outlive their turn
	Begun     bool
	// Output is what the output deltas brought (the end's copy, when it has one, is in
	// AggregatedOutput, Stdout and Stderr).
	output           strings.Builder
	AggregatedOutput string
	Stdout, Stderr   string
	ExitCode         *int
	Duration         time.Duration
	Status           Status
	// RawStatus is the engine's own status word ("" when it left it to the exit code).
	RawStatus protocol.ExecCommandStatus
}

// Output is the output the deltas streamed.
func (c *Command) Output() string { return c.output.String() }

// Patch is a patch the agent applies (a file change). Changes are the files of the begin
// (or approval), replaced by the end's when it names any; Reported is the end's own list.
type Patch struct {
	Changes  map[string]protocol.FileChange
	Reported map[string]protocol.FileChange
	Begun    bool
	Status   Status
	// RawStatus is the engine's own status word; Success its success flag.
	RawStatus      protocol.PatchApplyStatus
	Success        bool
	Stdout, Stderr string
}

// McpCall is a call of an MCP server's tool.
type McpCall struct {
	Invocation protocol.McpInvocation
	Duration   time.Duration
	Result     protocol.McpToolResult // set when it completes
	Status     Status
}

// WebSearch is a hosted web search. Action is the engine's raw action (empty until it ends).
type WebSearch struct {
	Query  string
	Action json.RawMessage
}

// TodoList is the agent's plan (update_plan): one item a turn, updated by each new plan.
type TodoList struct {
	Explanation *string
	Steps       []protocol.PlanItem
}

// ProposedPlan is plan mode's proposed plan, streamed by plan deltas.
type ProposedPlan struct {
	Text string
}

// Compaction is a compaction of the context.
type Compaction struct{}

// UserMessage is the person's message as the engine recorded it.
type UserMessage struct {
	Event protocol.UserMessageEvent
}

// ImageView is an image the agent looked at.
type ImageView struct {
	Path string
}

// ReviewMode marks entering (Exited false) or leaving review mode.
type ReviewMode struct {
	Exited bool
	Hint   string                      // entering: what is reviewed
	Output *protocol.ReviewOutputEvent // leaving: the review, nil when it produced none
}

// HookRun is a lifecycle hook the engine runs (its id is "hook:" and the run's id). Run is
// the latest summary: the start's, then the end's.
type HookRun struct {
	TurnID *string
	Run    protocol.HookRunSummary
}

// Notice is a warning shown in the thread.
type Notice struct {
	Message string
}

func (*AgentMessage) isBody() {}
func (*Reasoning) isBody()    {}
func (*Command) isBody()      {}
func (*Patch) isBody()        {}
func (*McpCall) isBody()      {}
func (*WebSearch) isBody()    {}
func (*TodoList) isBody()     {}
func (*ProposedPlan) isBody() {}
func (*Compaction) isBody()   {}
func (*UserMessage) isBody()  {}
func (*ImageView) isBody()    {}
func (*ReviewMode) isBody()   {}
func (*Notice) isBody()       {}
func (*HookRun) isBody()      {}
