package protocol

import "encoding/json"

// BaselineTokens is the part of the context window Codex assumes is always taken by the
// system prompt and tools; the percentage left is computed over the rest.
const BaselineTokens int64 = 12000

// TokenUsage counts the tokens of one response, or of a whole thread.
type TokenUsage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
	TotalTokens           int64 `json:"total_tokens"`
}

// IsZero reports whether nothing was counted.
func (u TokenUsage) IsZero() bool { return u.TotalTokens == 0 }

// NonCachedInput is the input that was billed at the full rate.
func (u TokenUsage) NonCachedInput() int64 { return max(u.InputTokens-u.CachedInputTokens, 0) }

// BlendedTotal is non-cached input plus output, the figure Codex shows as "total".
func (u TokenUsage) BlendedTotal() int64 { return u.NonCachedInput() + u.OutputTokens }

// TokensInContextWindow is what the conversation occupies: reasoning tokens of past turns are
// dropped from the context, so they do not count.
func (u TokenUsage) TokensInContextWindow() int64 {
	return max(u.TotalTokens-u.ReasoningOutputTokens, 0)
}

// PercentOfContextWindowRemaining estimates how much of window is left, ignoring the fixed
// BaselineTokens on both sides so a fresh thread shows 100%.
func (u TokenUsage) PercentOfContextWindowRemaining(window int64) int64 {
	if window <= BaselineTokens {
		return 0
	}
	effective := window - BaselineTokens
	used := max(u.TokensInContextWindow()-BaselineTokens, 0)
	remaining := max(effective-used, 0)
	pct := float64(remaining) / float64(effective) * 100
	return int64(min(max(pct, 0), 100))
}

// Add returns the element-wise sum.
func (u TokenUsage) Add(o TokenUsage) TokenUsage {
	return TokenUsage{
		InputTokens:           u.InputTokens + o.InputTokens,
		CachedInputTokens:     u.CachedInputTokens + o.CachedInputTokens,
		CacheWriteInputTokens: u.CacheWriteInputTokens + o.CacheWriteInputTokens,
		OutputTokens:          u.OutputTokens + o.OutputTokens,
		ReasoningOutputTokens: u.ReasoningOutputTokens + o.ReasoningOutputTokens,
		TotalTokens:           u.TotalTokens + o.TotalTokens,
	}
}

// TokenUsageInfo is the token_count payload: the thread's totals, the last response's usage
// and the model's context window when known.
type TokenUsageInfo struct {
	TotalTokenUsage TokenUsage `json:"total_token_usage"`
	LastTokenUsage  TokenUsage `json:"last_token_usage"`
	// LastUsageIncludesReasoning is set when the provider counts reasoning inside output.
	LastUsageIncludesReasoning bool   `json:"last_usage_includes_reasoning"`
	ModelContextWindow         *int64 `json:"model_context_window"`
}

// RateLimitWindow is one rate-limit window as the server reports it.
type RateLimitWindow struct {
	UsedPercent   float64 `json:"used_percent"`
	WindowMinutes *int64  `json:"window_minutes"`
	ResetsAt      *int64  `json:"resets_at"`
}

// CreditsSnapshot is the account's credit state, when the server reports it.
type CreditsSnapshot struct {
	HasCredits bool    `json:"has_credits"`
	Unlimited  bool    `json:"unlimited"`
	Balance    *string `json:"balance"`
}

// RateLimitSnapshot is the rate-limit state attached to token_count events.
// Fields this package does not interpret are kept raw (null when absent, as Codex writes).
type RateLimitSnapshot struct {
	LimitID              *string          `json:"limit_id"`
	LimitName            *string          `json:"limit_name"`
	Primary              *RateLimitWindow `json:"primary"`
	Secondary            *RateLimitWindow `json:"secondary"`
	Credits              *CreditsSnapshot `json:"credits"`
	IndividualLimit      json.RawMessage  `json:"individual_limit"`
	SpendControlReached  *bool            `json:"spend_control_reached"`
	PlanType             *string          `json:"plan_type"`
	RateLimitReachedType *string          `json:"rate_limit_reached_type"`
}
