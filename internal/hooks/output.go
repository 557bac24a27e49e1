package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

// verdict is what one hook run decided.
type verdict struct {
	status  protocol.HookRunStatus
	entries []protocol.HookOutputEntry
	block   string // the reason, when it blocked
	context []string
}

func (v *verdict) fail(format string, args ...any) {
	v.status = protocol.HookFailed
	v.entries = append(v.entries, protocol.HookOutputEntry{Kind: "error", Text: fmt.Sprintf(format, args...)})
}

func (v *verdict) blocked(reason string) {
	v.status, v.block = protocol.HookBlocked, reason
	v.entries = append(v.entries, protocol.HookOutputEntry{Kind: "feedback", Text: reason})
}

func (v *verdict) addContext(text string) {
	v.context = append(v.context, text)
	v.entries = append(v.entries, protocol.HookOutputEntry{Kind: "context", Text: text})
}

// canBlock reports whether a hook of the event may block (exit 2 or decision:block).
func canBlock(ev Event) bool { return ev != SessionStart }

// reply is the JSON a hook may print.
type reply struct {
	Decision           string  `json:"decision"`
	Reason             string  `json:"reason"`
	Continue           *bool   `json:"continue"`
	StopReason         *string `json:"stopReason"`
	SuppressOutput     *bool   `json:"suppressOutput"`
	SystemMessage      string  `json:"systemMessage"`
	HookSpecificOutput *struct {
		HookEventName            string          `json:"hookEventName"`
		AdditionalContext        string          `json:"additionalContext"`
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
	} `json:"hookSpecificOutput"`
}

// judge reads how a hook process ended the way Codex does for its event.
func judge(ev Event, res *commandResult, timeout string) verdict {
	v := verdict{status: protocol.HookCompleted}
	if res.stdout.truncated || res.stderr.truncated {
		v.entries = append(v.entries, protocol.HookOutputEntry{Kind: "warning",
			Text: fmt.Sprintf("hook output was cut at %d bytes", OutputLimit)})
	}
	stderr := strings.TrimSpace(res.stderr.buf.String())
	switch {
	case res.timedOut:
		v.fail("hook timed out after %s", timeout)
		return v
	case res.startErr != nil:
		v.fail("hook could not run: %v", res.startErr)
		return v
	case res.signaled:
		v.fail("hook was killed by a signal")
		return v
	case res.exitCode == 2 && canBlock(ev):
		if stderr == "" {
			v.fail("hook exited with code 2 but wrote no reason on stderr")
			return v
		}
		v.blocked(stderr)
		return v
	case res.exitCode != 0:
		msg := fmt.Sprintf("hook exited with code %d", res.exitCode)
		if stderr != "" {
			msg += ": " + clip(stderr, 2000)
		}
		v.fail("%s", msg)
		return v
	}
	out := bytes.TrimSpace(res.stdout.buf.Bytes())
	if len(out) == 0 {
		return v
	}
	if out[0] != '{' {
		// Plain text is context where Codex takes it so, and otherwise not for the model.
		if ev == SessionStart || ev == UserPromptSubmit {
			v.addContext(string(out))
		}
		return v
	}
	var r reply
	if err := json.Unmarshal(out, &r); err != nil || res.stdout.truncated {
		v.fail("hook returned invalid %s JSON output", ev.words())
		return v
	}
	judgeReply(ev, r, &v)
	return v
}

// judgeReply applies a hook's JSON answer; what Codex 0.169 rejects fails the run.
func judgeReply(ev Event, r reply, v *verdict) {
	if r.SystemMessage != "" {
		v.entries = append(v.entries, protocol.HookOutputEntry{Kind: "warning", Text: r.SystemMessage})
	}
	switch {
	case r.Continue != nil && !*r.Continue:
		v.fail("hook returned unsupported continue:false")
		return
	case r.StopReason != nil:
		v.fail("hook returned unsupported stopReason")
		return
	case r.SuppressOutput != nil:
		v.fail("hook returned unsupported suppressOutput")
		return
	}
	switch r.Decision {
	case "":
	case "block":
		if !canBlock(ev) {
			v.fail("%s hooks cannot block", ev)
			return
		}
		if strings.TrimSpace(r.Reason) == "" {
			v.fail("hook returned decision:block without a reason")
			return
		}
		v.blocked(strings.TrimSpace(r.Reason))
	default:
		v.fail("hook returned unsupported decision:%s", r.Decision)
		return
	}
	if s := r.HookSpecificOutput; s != nil {
		if len(s.UpdatedInput) > 0 {
			v.fail("hook returned unsupported updatedInput")
			return
		}
		switch s.PermissionDecision {
		case "":
		case "deny":
			if ev != PreToolUse {
				v.fail("permissionDecision is for PreToolUse hooks only")
				return
			}
			if strings.TrimSpace(s.PermissionDecisionReason) == "" {
				v.fail("hook returned permissionDecision:deny without a permissionDecisionReason")
				return
			}
			v.blocked(strings.TrimSpace(s.PermissionDecisionReason))
		default:
			v.fail("hook returned unsupported permissionDecision:%s", s.PermissionDecision)
			return
		}
		if c := strings.TrimSpace(s.AdditionalContext); c != "" {
			v.addContext(c)
		}
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
