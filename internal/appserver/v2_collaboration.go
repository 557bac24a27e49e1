package appserver

import (
	"context"

	"github.com/gocodex/gocodex/protocol"
)

// collaborationModeMask is a collaboration mode preset, as collaborationMode/list lists it.
type collaborationModeMask struct {
	Name            string  `json:"name"`
	Mode            *string `json:"mode"`
	Model           *string `json:"model"`
	ReasoningEffort *string `json:"reasoning_effort"`
}

type collaborationModeListResponse struct {
	Data []collaborationModeMask `json:"data"`
}

func (r *threads) registerCollaboration(s *Server) {
	s.Handle("collaborationMode/list", Typed(r.collaborationModeList))
}

// collaborationModeList answers the presets Codex 0.169 has: Plan (at medium effort) and
// Default. Like every experimental method it needs the experimentalApi capability.
func (r *threads) collaborationModeList(ctx context.Context, c *Conn, _ struct{}) (collaborationModeListResponse, error) {
	if err := requireExperimental(c, "collaborationMode/list"); err != nil {
		return collaborationModeListResponse{}, err
	}
	plan, dflt, medium := protocol.ModePlan, protocol.ModeDefault, "medium"
	return collaborationModeListResponse{Data: []collaborationModeMask{
		{Mode: &plan, Name: "Plan", ReasoningEffort: &medium},
		{Mode: &dflt, Name: "Default"},
	}}, nil
}

// requireExperimental refuses an experimental method or field to a client that did not ask
// for the experimental API at initialize, with Codex's message.
func requireExperimental(c *Conn, what string) error {
	if c.Capabilities().ExperimentalAPI {
		return nil
	}
	return InvalidRequest(what + " requires experimentalApi capability")
}

// checkCollaborationMode refuses a mode Codex does not know.
func checkCollaborationMode(cm *protocol.CollaborationMode) error {
	switch cm.Mode {
	case protocol.ModePlan, protocol.ModeDefault:
		return nil
	}
	return InvalidRequest("Invalid request: unknown variant `" + cm.Mode + "`, expected `plan` or `default`")
}
