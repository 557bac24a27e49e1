package anthropic

import "strings"

// modelLimits is what the Messages API allows one Claude model family.
type modelLimits struct {
	// maxTokens is the largest `max_tokens` the model accepts (its output limit).
	maxTokens int
	// thinking says whether the model takes `thinking: {type: "enabled"}`.
	thinking bool
}

// defaultLimits applies to a model the table does not know: the output limit every current
// Claude model accepts, and no extended thinking (an unknown model might reject it).
var defaultLimits = modelLimits{maxTokens: 8192}

// knownModels maps model id prefixes to their limits; the longest matching prefix wins, so
// dated ids (claude-sonnet-4-20250514) and aliases (claude-sonnet-4-5) both match.
var knownModels = []struct {
	prefix string
	limits modelLimits
}{
	{"claude-opus-4-5", modelLimits{64000, true}},
	{"claude-opus-4-1", modelLimits{32000, true}},
	{"claude-opus-4", modelLimits{32000, true}},
	{"claude-sonnet-4", modelLimits{64000, true}},
	{"claude-haiku-4", modelLimits{64000, true}},
	{"claude-3-7-sonnet", modelLimits{64000, true}},
	{"claude-3-5-sonnet", modelLimits{8192, false}},
	{"claude-3-5-haiku", modelLimits{8192, false}},
	{"claude-3-opus", modelLimits{4096, false}},
	{"claude-3-haiku", modelLimits{4096, false}},
}

// limitsFor returns the limits of model (its id, optionally behind a "provider/" prefix as
// gateways spell it).
func limitsFor(model string) modelLimits {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	best, bestLen := defaultLimits, 0
	for _, k := range knownModels {
		if strings.HasPrefix(model, k.prefix) && len(k.prefix) > bestLen {
			best, bestLen = k.limits, len(k.prefix)
		}
	}
	return best
}

// minThinkingBudget is the smallest budget_tokens the API accepts.
const minThinkingBudget = 1024

// thinkingBudgets maps a reasoning effort to `thinking.budget_tokens`. The budget must stay
// below max_tokens, so thinkingBudget clamps it. "none" (and "") turn thinking off.
var thinkingBudgets = map[string]int{
	"minimal": minThinkingBudget,
	"low":     4096,
	"medium":  10000,
	"high":    24000,
	"xhigh":   32000,
}

// thinkingBudget is the budget for effort under maxTokens; 0 means thinking stays off (no
// effort, an unknown effort, or no room for the smallest budget plus an answer).
func thinkingBudget(effort string, maxTokens int) int {
	b := thinkingBudgets[effort]
	if b == 0 {
		return 0
	}
	// Leave room for the answer itself: at least a quarter of max_tokens.
	if ceiling := maxTokens - maxTokens/4; b > ceiling {
		b = ceiling
	}
	if b < minThinkingBudget {
		return 0
	}
	return b
}
