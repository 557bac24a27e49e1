package wire

import (
	"encoding/json"

	"github.com/gocodex/gocodex/protocol"
)

// The params of the v2 notifications the projection produces, field names and order as
// Codex 0.169 writes them.

// V2Notification is one app-server v2 notification the projection produces: its method and
// params (a struct that encodes to the params object).
type V2Notification struct {
	Method string
	Params any
}

// V2TurnError is the error a turn failed with.
type V2TurnError struct {
	Message           string          `json:"message"`
	CodexErrorInfo    json.RawMessage `json:"codexErrorInfo"`
	AdditionalDetails *string         `json:"additionalDetails"`
	Misalignment      json.RawMessage `json:"misalignment"`
}

// V2RateLimitsUpdated is account/rateLimits/updated.
type V2RateLimitsUpdated struct {
	RateLimits V2RateLimits `json:"rateLimits"`
}

// V2RateLimits is the account's rate-limit snapshot.
type V2RateLimits struct {
	LimitID              *string         `json:"limitId"`
	LimitName            *string         `json:"limitName"`
	NormalModelSlug      *string         `json:"normalModelSlug"`
	Primary              *V2RateLimitWin `json:"primary"`
	Secondary            *V2RateLimitWin `json:"secondary"`
	Credits              *V2Credits      `json:"credits"`
	IndividualLimit      json.RawMessage `json:"individualLimit"`
	SpendControlReached  *bool           `json:"spendControlReached"`
	PlanType             *string         `json:"planType"`
	RateLimitReachedType *string         `json:"rateLimitReachedType"`
}

// V2RateLimitWin is one rate-limit window.
type V2RateLimitWin struct {
	UsedPercent        int64  `json:"usedPercent"`
	WindowDurationMins *int64 `json:"windowDurationMins"`
	ResetsAt           *int64 `json:"resetsAt"`
}

// V2Credits is the account's credit balance.
type V2Credits struct {
	HasCredits bool    `json:"hasCredits"`
	Unlimited  bool    `json:"unlimited"`
	Balance    *string `json:"balance"`
}

// V2RateLimitsOf converts the engine's rate-limit snapshot (nil: nothing known, every
// field null).
func V2RateLimitsOf(s *protocol.RateLimitSnapshot) V2RateLimits { return rateLimits(s) }

func rateLimits(s *protocol.RateLimitSnapshot) V2RateLimits {
	codex := "codex"
	out := V2RateLimits{LimitID: &codex, IndividualLimit: json.RawMessage("null")}
	if s == nil {
		return out
	}
	if s.LimitID != nil {
		out.LimitID = s.LimitID
	}
	out.LimitName, out.SpendControlReached, out.PlanType, out.RateLimitReachedType = s.LimitName, s.SpendControlReached, s.PlanType, s.RateLimitReachedType
	win := func(w *protocol.RateLimitWindow) *V2RateLimitWin {
		if w == nil {
			return nil
		}
		return &V2RateLimitWin{UsedPercent: int64(w.UsedPercent), WindowDurationMins: w.WindowMinutes, ResetsAt: w.ResetsAt}
	}
	out.Primary, out.Secondary = win(s.Primary), win(s.Secondary)
	if s.Credits != nil {
		out.Credits = &V2Credits{HasCredits: s.Credits.HasCredits, Unlimited: s.Credits.Unlimited, Balance: s.Credits.Balance}
	}
	if len(s.IndividualLimit) > 0 {
		out.IndividualLimit = s.IndividualLimit
	}
	return out
}

// V2Turn is one turn of a thread. ItemsView says how much of Items is there: "full",
// "summary" (turn/completed carries only the agent's messages) or "notLoaded".
type V2Turn struct {
	ID          string       `json:"id"`
	RootTurnID  *string      `json:"rootTurnId"` // null for a turn not yet started (review/start)
	Items       []V2Item     `json:"items"`
	ItemsView   string       `json:"itemsView"`
	Status      string       `json:"status"`
	Error       *V2TurnError `json:"error"`
	StartedAt   *int64       `json:"startedAt"`
	CompletedAt *int64       `json:"completedAt"`
	DurationMs  *int64       `json:"durationMs"`
}

// V2ThreadStatus is a thread's status: idle, active (with flags such as
// waitingOnApproval), notLoaded or systemError.
type V2ThreadStatus struct {
	Type        string    `json:"type"`
	ActiveFlags *[]string `json:"activeFlags,omitempty"`
}

// The v2 notification params the projection writes.
type (
	// V2ThreadStatusChanged is thread/status/changed.
	V2ThreadStatusChanged struct {
		ThreadID string         `json:"threadId"`
		Status   V2ThreadStatus `json:"status"`
	}
	// V2TurnNotification is turn/started and turn/completed.
	V2TurnNotification struct {
		ThreadID string `json:"threadId"`
		Turn     V2Turn `json:"turn"`
	}
	// V2ItemStarted is item/started.
	V2ItemStarted struct {
		Item        V2Item `json:"item"`
		ThreadID    string `json:"threadId"`
		TurnID      string `json:"turnId"`
		StartedAtMs int64  `json:"startedAtMs"`
	}
	// V2ItemCompleted is item/completed.
	V2ItemCompleted struct {
		Item     V2Item `json:"item"`
		ThreadID string `json:"threadId"`
		TurnID   string `json:"turnId"`
		// ContentTokenCount is null, as from Codex 0.169 in every case seen.
		ContentTokenCount *int64 `json:"contentTokenCount"`
		CompletedAtMs     int64  `json:"completedAtMs"`
	}
	// V2Delta is item/agentMessage/delta, item/commandExecution/outputDelta and
	// item/fileChange/outputDelta.
	V2Delta struct {
		ThreadID string `json:"threadId"`
		TurnID   string `json:"turnId"`
		ItemID   string `json:"itemId"`
		Delta    string `json:"delta"`
	}
	// V2SummaryDelta is item/reasoning/summaryTextDelta.
	V2SummaryDelta struct {
		ThreadID     string `json:"threadId"`
		TurnID       string `json:"turnId"`
		ItemID       string `json:"itemId"`
		Delta        string `json:"delta"`
		SummaryIndex int    `json:"summaryIndex"`
	}
	// V2SummaryPartAdded is item/reasoning/summaryPartAdded.
	V2SummaryPartAdded struct {
		ThreadID     string `json:"threadId"`
		TurnID       string `json:"turnId"`
		ItemID       string `json:"itemId"`
		SummaryIndex int    `json:"summaryIndex"`
	}
	// V2ReasoningTextDelta is item/reasoning/textDelta.
	V2ReasoningTextDelta struct {
		ThreadID     string `json:"threadId"`
		TurnID       string `json:"turnId"`
		ItemID       string `json:"itemId"`
		Delta        string `json:"delta"`
		ContentIndex int    `json:"contentIndex"`
	}
	// V2TokenUsageUpdated is thread/tokenUsage/updated.
	V2TokenUsageUpdated struct {
		ThreadID   string       `json:"threadId"`
		TurnID     string       `json:"turnId"`
		TokenUsage V2TokenUsage `json:"tokenUsage"`
	}
	// V2TurnDiffUpdated is turn/diff/updated.
	V2TurnDiffUpdated struct {
		ThreadID string `json:"threadId"`
		TurnID   string `json:"turnId"`
		Diff     string `json:"diff"`
	}
	// V2TurnPlanUpdated is turn/plan/updated.
	V2TurnPlanUpdated struct {
		ThreadID    string       `json:"threadId"`
		TurnID      string       `json:"turnId"`
		Explanation *string      `json:"explanation"`
		Plan        []V2PlanStep `json:"plan"`
	}
	// V2PlanStep is one step of turn/plan/updated.
	V2PlanStep struct {
		Step   string `json:"step"`
		Status string `json:"status"`
	}
	// V2Error is the error notification.
	V2Error struct {
		Error     V2TurnError `json:"error"`
		WillRetry bool        `json:"willRetry"`
		ThreadID  string      `json:"threadId"`
		TurnID    string      `json:"turnId"`
	}
	// V2Warning is the warning notification.
	V2Warning struct {
		ThreadID *string `json:"threadId"`
		Message  string  `json:"message"`
	}
	// V2TerminalInteraction is item/commandExecution/terminalInteraction: the model wrote to
	// a running command's terminal (write_stdin).
	V2TerminalInteraction struct {
		ThreadID  string `json:"threadId"`
		TurnID    string `json:"turnId"`
		ItemID    string `json:"itemId"`
		ProcessID string `json:"processId"`
		Stdin     string `json:"stdin"`
	}
	// V2ModelRerouted is model/rerouted: the server answered the turn with another model.
	V2ModelRerouted struct {
		ThreadID  string `json:"threadId"`
		TurnID    string `json:"turnId"`
		FromModel string `json:"fromModel"`
		ToModel   string `json:"toModel"`
		Reason    string `json:"reason"`
	}
)

// v2RerouteReason is a reroute reason in the v2 spelling (camelCase).
func v2RerouteReason(r string) string {
	if r == protocol.ModelRerouteHighRiskCyberActivity {
		return "highRiskCyberActivity"
	}
	return r
}

// V2TokenUsage is a thread's token usage: totals, the last response's, and the window.
type V2TokenUsage struct {
	Total              V2TokenBreakdown `json:"total"`
	Last               V2TokenBreakdown `json:"last"`
	ModelContextWindow *int64           `json:"modelContextWindow"`
}

// V2TokenBreakdown is one usage count.
type V2TokenBreakdown struct {
	TotalTokens           int64 `json:"totalTokens"`
	InputTokens           int64 `json:"inputTokens"`
	CachedInputTokens     int64 `json:"cachedInputTokens"`
	CacheWriteInputTokens int64 `json:"cacheWriteInputTokens"`
	OutputTokens          int64 `json:"outputTokens"`
	ReasoningOutputTokens int64 `json:"reasoningOutputTokens"`
}

func breakdown(u protocol.TokenUsage) V2TokenBreakdown {
	return V2TokenBreakdown{TotalTokens: u.TotalTokens, InputTokens: u.InputTokens, CachedInputTokens: u.CachedInputTokens,
		CacheWriteInputTokens: u.CacheWriteInputTokens, OutputTokens: u.OutputTokens, ReasoningOutputTokens: u.ReasoningOutputTokens}
}
