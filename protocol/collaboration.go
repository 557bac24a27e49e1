package protocol

// Collaboration mode kinds (Codex's ModeKind).
const (
	ModeDefault = "default"
	ModePlan    = "plan"
)

// CollaborationMode is how the agent works with the person: "default" (it does the work) or
// "plan" (it explores without changing anything and proposes a plan). Settings carry the
// model and reasoning effort the mode runs with and, when set, instructions replacing the
// mode's own.
type CollaborationMode struct {
	Mode     string                    `json:"mode"`
	Settings CollaborationModeSettings `json:"settings"`
}

// CollaborationModeSettings are a collaboration mode's model, effort and instructions.
type CollaborationModeSettings struct {
	Model                 string  `json:"model"`
	ReasoningEffort       *string `json:"reasoning_effort"`
	DeveloperInstructions *string `json:"developer_instructions"`
}

// PlanDeltaEvent streams the text of a proposed plan (a Plan item) as the model writes it.
type PlanDeltaEvent struct {
	ThreadID string `json:"thread_id"`
	TurnID   string `json:"turn_id"`
	ItemID   string `json:"item_id"`
	Delta    string `json:"delta"`
}

func (PlanDeltaEvent) EventType() string { return "plan_delta" }
func (PlanDeltaEvent) isEventMsg()       {}

func (e PlanDeltaEvent) MarshalJSON() ([]byte, error) {
	type plain PlanDeltaEvent
	return marshalTagged("type", e.EventType(), plain(e))
}
