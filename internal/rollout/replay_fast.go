package rollout

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/gocodex/gocodex/protocol"
)

// One-pass decoding of what a long thread's replay is made of (the messages of the
// paginated form's item_completed events, token_count events), in the way protocol decodes
// response items: one validating scan picks out the fields, and anything unusual (a key
// that matches a field only case-insensitively, a repeated key, a number that is not a
// plain integer, a value of another kind) returns ok=false, so the caller decodes with
// encoding/json, whose results and errors stay the rule. FuzzReplayDecoders checks the
// two against each other.

// members walks the members of the JSON object obj (validating it), calling fn with the
// index in known of each known key. An unknown key is skipped, unless encoding/json would
// match it to a known one case-insensitively; a repeated known key stops the walk (false).
func members(obj []byte, known []string, fn func(k int, v []byte) bool) bool {
	var seen uint64
	return protocol.ValidObjectMembers(obj, func(key, v []byte) bool {
		k := slices.IndexFunc(known, func(e string) bool { return string(key) == e })
		if k < 0 {
			return !slices.ContainsFunc(known, func(e string) bool { return bytes.EqualFold([]byte(e), key) })
		}
		if seen&(1<<k) != 0 {
			return false
		}
		seen |= 1 << k
		return fn(k, v)
	})
}

// decodeOr decodes data with fast, or with encoding/json where fast declines.
func decodeOr[T any](data []byte, fast func([]byte) (T, bool)) (T, error) {
	if v, ok := fast(data); ok {
		return v, nil
	}
	var v T
	err := json.Unmarshal(data, &v)
	return v, err
}

func isNull(v []byte) bool { return string(v) == "null" }

// jsonString decodes a string into dst; null leaves dst as it is, as encoding/json does.
func jsonString(v []byte, dst *string) bool {
	if isNull(v) {
		return true
	}
	s, ok := protocol.UnquoteString(v)
	*dst = s
	return ok
}

func jsonOptString(v []byte, dst **string) bool {
	if isNull(v) {
		*dst = nil
		return true
	}
	s, ok := protocol.UnquoteString(v)
	*dst = &s
	return ok
}

func jsonInt(v []byte, dst *int64) bool {
	if isNull(v) {
		return true
	}
	n, ok := parseInt(v)
	*dst = n
	return ok
}

func jsonOptInt(v []byte, dst **int64) bool {
	if isNull(v) {
		*dst = nil
		return true
	}
	n, ok := parseInt(v)
	*dst = &n
	return ok
}

// parseInt reads a JSON number as encoding/json reads it into an int64: short runs of digits
// by hand (no string is made of them), the rest through strconv.
func parseInt(v []byte) (int64, bool) {
	if len(v) > 0 && v[0] == '-' {
		if n, ok := plainCount(v[1:]); ok {
			return -n, true
		}
	} else if n, ok := plainCount(v); ok {
		return n, true
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

func jsonBool(v []byte, dst *bool) bool {
	switch string(v) {
	case "null":
	case "true", "false":
		*dst = string(v) == "true"
	default:
		return false
	}
	return true
}

func jsonOptBool(v []byte, dst **bool) bool {
	if isNull(v) {
		*dst = nil
		return true
	}
	var b bool
	*dst = &b
	return (string(v) == "true" || string(v) == "false") && jsonBool(v, &b)
}

// jsonOptObject decodes null as nil and an object with decode.
func jsonOptObject[T any](v []byte, dst **T, decode func(obj []byte, t *T) bool) bool {
	if isNull(v) {
		*dst = nil
		return true
	}
	if v[0] != '{' {
		return false
	}
	t := new(T)
	*dst = t
	return decode(v, t)
}

var userMessageKeys = []string{"type", "id", "content"}

func decodeUserMessageItem(item []byte) (it userMessageItem, ok bool) {
	ok = members(item, userMessageKeys, func(k int, v []byte) bool {
		switch k {
		case 0:
			return jsonString(v, &it.Type)
		case 1:
			return jsonString(v, &it.ID)
		}
		if isNull(v) {
			it.Content = nil
			return true
		}
		it.Content = []userInput{}
		return protocol.ValidArrayElems(v, func(elem []byte) bool {
			var in userInput
			if elem[0] != '{' || !decodeUserInput(elem, &in) {
				return false
			}
			it.Content = append(it.Content, in)
			return true
		})
	})
	return it, ok
}

var userInputKeys = []string{"type", "text", "text_elements", "image_url", "path"}

func decodeUserInput(obj []byte, in *userInput) bool {
	return members(obj, userInputKeys, func(k int, v []byte) bool {
		switch k {
		case 0:
			return jsonString(v, &in.Type)
		case 1:
			return jsonOptString(v, &in.Text)
		case 2:
			if isNull(v) {
				in.TextElements = nil
				return true
			}
			in.TextElements = []json.RawMessage{}
			return protocol.ValidArrayElems(v, func(elem []byte) bool {
				in.TextElements = append(in.TextElements, bytes.Clone(elem))
				return true
			})
		case 3:
			return jsonString(v, &in.ImageURL)
		}
		return jsonString(v, &in.Path)
	})
}

var agentMessageKeys = []string{"type", "id", "content", "phase"}

func decodeAgentMessageItem(item []byte) (it agentMessageItem, ok bool) {
	ok = members(item, agentMessageKeys, func(k int, v []byte) bool {
		switch k {
		case 0:
			return jsonString(v, &it.Type)
		case 1:
			return jsonString(v, &it.ID)
		case 3:
			return jsonString(v, &it.Phase)
		}
		if isNull(v) {
			it.Content = nil
			return true
		}
		it.Content = []agentMessagePart{}
		return protocol.ValidArrayElems(v, func(elem []byte) bool {
			var p agentMessagePart
			if elem[0] != '{' || !members(elem, typeTextKeys, func(k int, v []byte) bool {
				if k == 0 {
					return jsonString(v, &p.Type)
				}
				return jsonString(v, &p.Text)
			}) {
				return false
			}
			it.Content = append(it.Content, p)
			return true
		})
	})
	return it, ok
}

var typeTextKeys = []string{"type", "text"}

var tokenCountKeys = []string{"info", "rate_limits"}

// decodeTokenCount decodes a token_count event's payload.
func decodeTokenCount(payload []byte) (ev protocol.TokenCountEvent, ok bool) {
	ok = members(payload, tokenCountKeys, func(k int, v []byte) bool {
		if k == 0 {
			return jsonOptObject(v, &ev.Info, decodeTokenUsageInfo)
		}
		return jsonOptObject(v, &ev.RateLimits, decodeRateLimits)
	})
	return ev, ok
}

var tokenUsageInfoKeys = []string{"total_token_usage", "last_token_usage", "last_usage_includes_reasoning", "model_context_window"}

func decodeTokenUsageInfo(obj []byte, info *protocol.TokenUsageInfo) bool {
	return members(obj, tokenUsageInfoKeys, func(k int, v []byte) bool {
		switch k {
		case 0:
			return isNull(v) || (v[0] == '{' && decodeTokenUsage(v, &info.TotalTokenUsage))
		case 1:
			return isNull(v) || (v[0] == '{' && decodeTokenUsage(v, &info.LastTokenUsage))
		case 2:
			return jsonBool(v, &info.LastUsageIncludesReasoning)
		}
		return jsonOptInt(v, &info.ModelContextWindow)
	})
}

var tokenUsageKeys = []string{"input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens"}

func decodeTokenUsage(obj []byte, u *protocol.TokenUsage) bool {
	fields := [...]*int64{&u.InputTokens, &u.CachedInputTokens, &u.CacheWriteInputTokens, &u.OutputTokens, &u.ReasoningOutputTokens, &u.TotalTokens}
	return members(obj, tokenUsageKeys, func(k int, v []byte) bool { return jsonInt(v, fields[k]) })
}

var rateLimitKeys = []string{"limit_id", "limit_name", "primary", "secondary", "credits", "individual_limit", "spend_control_reached", "plan_type", "rate_limit_reached_type"}

func decodeRateLimits(obj []byte, r *protocol.RateLimitSnapshot) bool {
	return members(obj, rateLimitKeys, func(k int, v []byte) bool {
		switch k {
		case 0:
			return jsonOptString(v, &r.LimitID)
		case 1:
			return jsonOptString(v, &r.LimitName)
		case 2:
			return jsonOptObject(v, &r.Primary, decodeRateLimitWindow)
		case 3:
			return jsonOptObject(v, &r.Secondary, decodeRateLimitWindow)
		case 4:
			return jsonOptObject(v, &r.Credits, decodeCredits)
		case 5:
			r.IndividualLimit = bytes.Clone(v)
			return true
		case 6:
			return jsonOptBool(v, &r.SpendControlReached)
		case 7:
			return jsonOptString(v, &r.PlanType)
		}
		return jsonOptString(v, &r.RateLimitReachedType)
	})
}

var rateLimitWindowKeys = []string{"used_percent", "window_minutes", "resets_at"}

func decodeRateLimitWindow(obj []byte, w *protocol.RateLimitWindow) bool {
	return members(obj, rateLimitWindowKeys, func(k int, v []byte) bool {
		switch k {
		case 0:
			if isNull(v) {
				return true
			}
			f, err := strconv.ParseFloat(string(v), 64)
			w.UsedPercent = f
			return err == nil
		case 1:
			return jsonOptInt(v, &w.WindowMinutes)
		}
		return jsonOptInt(v, &w.ResetsAt)
	})
}

var creditsKeys = []string{"has_credits", "unlimited", "balance"}

func decodeCredits(obj []byte, c *protocol.CreditsSnapshot) bool {
	return members(obj, creditsKeys, func(k int, v []byte) bool {
		switch k {
		case 0:
			return jsonBool(v, &c.HasCredits)
		case 1:
			return jsonBool(v, &c.Unlimited)
		}
		return jsonOptString(v, &c.Balance)
	})
}

var turnStartedKeys = []string{"turn_attribution", "turn_id", "root_turn_id", "started_at", "model_context_window", "collaboration_mode_kind"}

// decodeTurnStarted decodes a task_started event's payload.
func decodeTurnStarted(payload []byte) (ev protocol.TurnStartedEvent, ok bool) {
	ok = members(payload, turnStartedKeys, func(k int, v []byte) bool {
		switch k {
		case 0:
			return jsonOptObject(v, &ev.TurnAttribution, decodeTurnAttribution)
		case 1:
			return jsonString(v, &ev.TurnID)
		case 2:
			return jsonString(v, &ev.RootTurnID)
		case 3:
			return jsonOptInt(v, &ev.StartedAt)
		case 4:
			return jsonOptInt(v, &ev.ModelContextWindow)
		}
		return jsonString(v, &ev.CollaborationModeKind)
	})
	return ev, ok
}

var turnAttributionKeys = []string{"turn_id", "turn_trigger", "parent_turn_id", "initiating_agent_path", "root_turn_id"}

func decodeTurnAttribution(obj []byte, a *protocol.TurnAttribution) bool {
	return members(obj, turnAttributionKeys, func(k int, v []byte) bool {
		switch k {
		case 0:
			return jsonString(v, &a.TurnID)
		case 1:
			return jsonString(v, &a.TurnTrigger)
		case 2:
			return jsonOptString(v, &a.ParentTurnID)
		case 3:
			return jsonOptString(v, &a.InitiatingAgentPath)
		}
		return jsonString(v, &a.RootTurnID)
	})
}

var turnCompleteKeys = []string{"root_turn_id", "turn_id", "last_agent_message", "error", "started_at", "completed_at", "duration_ms", "time_to_first_token_ms"}

// decodeTurnComplete decodes a task_complete event's payload.
func decodeTurnComplete(payload []byte) (ev protocol.TurnCompleteEvent, ok bool) {
	ok = members(payload, turnCompleteKeys, func(k int, v []byte) bool {
		switch k {
		case 0:
			return jsonString(v, &ev.RootTurnID)
		case 1:
			return jsonString(v, &ev.TurnID)
		case 2:
			return jsonOptString(v, &ev.LastAgentMessage)
		case 3:
			return jsonOptObject(v, &ev.Error, decodeTurnError)
		case 4:
			return jsonOptInt(v, &ev.StartedAt)
		case 5:
			return jsonOptInt(v, &ev.CompletedAt)
		case 6:
			return jsonOptInt(v, &ev.DurationMs)
		}
		return jsonOptInt(v, &ev.TimeToFirstTokenMs)
	})
	return ev, ok
}

var turnErrorKeys = []string{"message", "codex_error_info"}

func decodeTurnError(obj []byte, e *protocol.TurnError) bool {
	return members(obj, turnErrorKeys, func(k int, v []byte) bool {
		if k == 0 {
			return jsonString(v, &e.Message)
		}
		e.CodexErrorInfo = bytes.Clone(v)
		return true
	})
}

// decodeEvent is the one-pass decoding of the events a long thread is mostly made of
// (besides item_completed): ok is false for other kinds and where it declines.
func decodeEvent(tag string, payload []byte) (protocol.EventMsg, bool) {
	switch tag {
	case "token_count":
		return asEvent(decodeTokenCount(payload))
	case "task_started", "turn_started":
		return asEvent(decodeTurnStarted(payload))
	case "task_complete", "turn_complete":
		return asEvent(decodeTurnComplete(payload))
	}
	return nil, false
}

func asEvent[T protocol.EventMsg](ev T, ok bool) (protocol.EventMsg, bool) { return ev, ok }
