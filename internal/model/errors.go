package model

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// ErrorKind classifies a model error the way Codex does, so the engine can decide what to
// tell the user and whether the turn may go on.
type ErrorKind int

const (
	// KindStream is a retryable stream failure: a cut connection, an idle timeout, a
	// response.failed without a fatal code, a response.incomplete.
	KindStream ErrorKind = iota + 1
	// KindTransport is a network failure before any response (retryable).
	KindTransport
	// KindInternalServerError is HTTP 500 after the request retries (retryable).
	KindInternalServerError
	// KindUnexpectedStatus is any other non-success HTTP status (retryable).
	KindUnexpectedStatus
	// KindRetryLimit is HTTP 429 that is not a usage limit. Codex 0.169 retries it (as a
	// stream retry) only when the server sent Retry-After, waiting that long.
	KindRetryLimit
	// KindRateLimited is response.failed with code rate_limit_exceeded (retryable, after the
	// "try again in" delay).
	KindRateLimited
	// KindIncomplete is response.incomplete (fatal in Codex 0.169).
	KindIncomplete
	// KindContextWindowExceeded is `context_length_exceeded`.
	KindContextWindowExceeded
	// KindQuotaExceeded is `insufficient_quota`.
	KindQuotaExceeded
	// KindUsageNotIncluded is `usage_not_included` (plan without Codex).
	KindUsageNotIncluded
	// KindUsageLimitReached is a 429 `usage_limit_reached` with plan information.
	KindUsageLimitReached
	// KindInvalidRequest is HTTP 400 or `invalid_prompt`.
	KindInvalidRequest
	// KindServerOverloaded is `server_is_overloaded` / `slow_down` (or a 503 saying so).
	KindServerOverloaded
)

// Error is every failure the client returns after classification. Match kinds with
// errors.Is(err, model.ErrContextWindowExceeded) and friends, or read Kind directly.
type Error struct {
	Kind ErrorKind
	// Message is the detail: the server's message, or the stream failure reason.
	Message string
	// Status is the HTTP status when the failure was an HTTP response.
	Status int
	// Code is the server's error code (`context_length_exceeded`, `rate_limit_exceeded`, ...).
	Code string
	// URL and RequestID describe the failed request when known.
	URL, RequestID string
	// RetryAfter is the delay the server suggested ("try again in 1.5s", Retry-After).
	RetryAfter time.Duration
	// HasRetryAfter is true when the server sent a Retry-After header (a 429 carrying one is
	// retried after exactly that delay, even 0).
	HasRetryAfter bool
	// RateLimits is the snapshot that came with a usage-limit error.
	RateLimits *protocol.RateLimitSnapshot
	// ResetsAt is the unix time a usage limit resets, when the server said.
	ResetsAt *int64
	// PlanType is the plan named by a usage-limit error.
	PlanType string
	// Err is the underlying cause (transport errors).
	Err error
}

// Messages Codex shows for the fatal kinds (matched byte for byte).
const (
	msgContextWindow    = "Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying."
	msgQuota            = "Quota exceeded. Check your plan and billing details."
	msgUsageNotIncluded = "To use Codex with your ChatGPT plan, upgrade to Plus: https://chatgpt.com/explore/plus."
	msgOverloaded       = "Selected model is at capacity. Please try a different model."
	msgInternal         = "We’re currently experiencing high demand, which may cause temporary errors."
	msgStreamPrefix     = "stream disconnected before completion: "

	// The stream failure reasons (wire strings).
	ReasonIdleTimeout  = "idle timeout waiting for SSE"
	ReasonStreamClosed = "stream closed before response.completed"
)

func (e *Error) Error() string {
	switch e.Kind {
	case KindStream:
		return msgStreamPrefix + e.Message
	case KindTransport:
		if e.Err != nil {
			return msgStreamPrefix + e.Err.Error()
		}
		return msgStreamPrefix + e.Message
	case KindInternalServerError:
		return msgInternal
	case KindContextWindowExceeded:
		return msgContextWindow
	case KindQuotaExceeded:
		return msgQuota
	case KindUsageNotIncluded:
		return msgUsageNotIncluded
	case KindServerOverloaded:
		return msgOverloaded
	case KindUsageLimitReached:
		return usageLimitMessage(e)
	case KindInvalidRequest, KindIncomplete:
		return e.Message
	case KindRateLimited:
		return "rate limit exceeded: " + e.Message
	case KindRetryLimit:
		s := "exceeded retry limit, last status: " + statusText(e.Status)
		if e.RequestID != "" {
			s += ", request id: " + e.RequestID
		}
		return s
	default:
		s := "unexpected status " + statusText(e.Status) + ": " + e.Message
		if e.URL != "" {
			s += ", url: " + e.URL
		}
		if e.RequestID != "" {
			s += ", request id: " + e.RequestID
		}
		return s
	}
}

func (e *Error) Unwrap() error { return e.Err }

// Is matches the Err* sentinels by kind.
func (e *Error) Is(target error) bool {
	k, ok := target.(kindSentinel)
	return ok && ErrorKind(k) == e.Kind
}

// Retryable reports whether a stream retry may help.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case KindStream, KindTransport, KindInternalServerError, KindUnexpectedStatus, KindRateLimited:
		return true
	case KindRetryLimit:
		return e.HasRetryAfter
	}
	return false
}

type kindSentinel ErrorKind

func (k kindSentinel) Error() string { return "model error: " + ErrorKind(k).String() }

var kindNames = map[ErrorKind]string{
	KindStream: "stream", KindTransport: "transport", KindInternalServerError: "internal server error",
	KindUnexpectedStatus: "unexpected status", KindRetryLimit: "retry limit", KindRateLimited: "rate limited",
	KindIncomplete: "incomplete response", KindContextWindowExceeded: "context window exceeded",
	KindQuotaExceeded: "quota exceeded", KindUsageNotIncluded: "usage not included",
	KindUsageLimitReached: "usage limit reached", KindInvalidRequest: "invalid request",
	KindServerOverloaded: "server overloaded",
}

// String names the kind.
func (k ErrorKind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Sentinels for errors.Is.
var (
	ErrStream                error = kindSentinel(KindStream)
	ErrTransport             error = kindSentinel(KindTransport)
	ErrInternalServerError   error = kindSentinel(KindInternalServerError)
	ErrUnexpectedStatus      error = kindSentinel(KindUnexpectedStatus)
	ErrRetryLimit            error = kindSentinel(KindRetryLimit)
	ErrRateLimited           error = kindSentinel(KindRateLimited)
	ErrIncomplete            error = kindSentinel(KindIncomplete)
	ErrContextWindowExceeded error = kindSentinel(KindContextWindowExceeded)
	ErrQuotaExceeded         error = kindSentinel(KindQuotaExceeded)
	ErrUsageNotIncluded      error = kindSentinel(KindUsageNotIncluded)
	ErrUsageLimitReached     error = kindSentinel(KindUsageLimitReached)
	ErrInvalidRequest        error = kindSentinel(KindInvalidRequest)
	ErrServerOverloaded      error = kindSentinel(KindServerOverloaded)
)

// IsRetryable reports whether err is a model error that a stream retry may cure.
func IsRetryable(err error) bool {
	if e, ok := err.(*Error); ok {
		return e.Retryable()
	}
	return false
}

func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return strconv.Itoa(code) + " " + t
	}
	return strconv.Itoa(code)
}

// usageLimitMessage is Codex's text for a usage limit, which depends on the plan and on
// whether the server said when the limit resets.
func usageLimitMessage(e *Error) string {
	when := "later"
	if e.ResetsAt != nil {
		when = "at " + formatReset(time.Unix(*e.ResetsAt, 0).Local(), time.Now().Local())
	}
	const head = "You’ve hit your usage limit. "
	switch e.PlanType {
	case "plus":
		return head + "Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again " + when + "."
	case "pro":
		return head + "Visit https://chatgpt.com/settings/usage to purchase more credits or try again " + when + "."
	case "free", "go":
		return head + "Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again " + when + "."
	case "team", "business":
		return head + "To get more access now, send a request to your admin or try again " + when + "."
	}
	return head + "Try again " + when + "."
}

// formatReset writes "3:04 PM" for today and "Nov 24th, 2026 9:37 AM" otherwise.
func formatReset(t, now time.Time) string {
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("3:04 PM")
	}
	return t.Format("Jan ") + strconv.Itoa(t.Day()) + ordinal(t.Day()) + t.Format(", 2006 3:04 PM")
}

func ordinal(d int) string {
	if d%100 >= 11 && d%100 <= 13 {
		return "th"
	}
	switch d % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}

// apiError is the `error` object of a response.failed event or an HTTP error body.
type apiError struct {
	Type     string `json:"type"`
	Code     string `json:"code"`
	Message  string `json:"message"`
	PlanType string `json:"plan_type"`
	ResetsAt *int64 `json:"resets_at"`
}

// tryAgainRe is compiled on first use: only a rate-limited request needs it, and compiling it
// at init cost every start ~10 KB and 60 allocations (issue 20).
var tryAgainRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)try again in\s*(\d+(?:\.\d+)?)\s*(s|ms|seconds?)`)
})

// ParseTryAgain reads the delay out of a rate_limit_exceeded message.
func ParseTryAgain(msg string) time.Duration {
	m := tryAgainRe().FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0
	}
	if strings.EqualFold(m[2], "ms") {
		return time.Duration(v * float64(time.Millisecond))
	}
	return time.Duration(v * float64(time.Second))
}

// classifyFailed turns the `error` object of response.failed into an Error.
func classifyFailed(raw json.RawMessage) *Error {
	var ae apiError
	if len(raw) == 0 || json.Unmarshal(raw, &ae) != nil {
		return &Error{Kind: KindStream, Message: "response.failed event received"}
	}
	e := &Error{Code: ae.Code, Message: ae.Message}
	switch ae.Code {
	case "context_length_exceeded":
		e.Kind = KindContextWindowExceeded
	case "insufficient_quota":
		e.Kind = KindQuotaExceeded
	case "usage_not_included":
		e.Kind = KindUsageNotIncluded
	case "invalid_prompt":
		e.Kind = KindInvalidRequest
	case "server_is_overloaded", "slow_down":
		e.Kind = KindServerOverloaded
	case "rate_limit_exceeded":
		e.Kind = KindRateLimited
		e.RetryAfter = ParseTryAgain(ae.Message)
	default:
		e.Kind = KindStream
	}
	return e
}

// classifyHTTP turns a non-success response into an Error after the request retries.
func classifyHTTP(status int, header http.Header, body []byte, url string) *Error {
	e := &Error{Status: status, URL: url, RequestID: requestID(header)}
	var env struct {
		Error apiError `json:"error"`
	}
	parsed := json.Unmarshal(body, &env) == nil
	e.Code = env.Error.Code
	e.Message = strings.TrimSpace(string(body))
	if parsed && env.Error.Message != "" {
		e.Message = env.Error.Message
	}
	switch {
	case status == http.StatusBadRequest:
		e.Kind = KindInvalidRequest
		e.Message = string(body)
	case status == http.StatusServiceUnavailable && (env.Error.Code == "server_is_overloaded" || env.Error.Code == "slow_down"):
		e.Kind = KindServerOverloaded
	case status == http.StatusInternalServerError:
		e.Kind = KindInternalServerError
	case status == http.StatusTooManyRequests:
		e.Kind = KindRetryLimit
		switch env.Error.Type {
		case "usage_limit_reached":
			e.Kind = KindUsageLimitReached
			e.PlanType = env.Error.PlanType
			e.ResetsAt = env.Error.ResetsAt
			if snap, ok := parseRateLimits(header); ok {
				e.RateLimits = &snap
			}
		case "usage_not_included":
			e.Kind = KindUsageNotIncluded
		}
		e.RetryAfter, e.HasRetryAfter = retryAfterHeader(header)
	default:
		e.Kind = KindUnexpectedStatus
	}
	return e
}

func requestID(h http.Header) string {
	for _, k := range []string{"x-request-id", "x-oai-request-id", "cf-ray"} {
		if v := h.Get(k); v != "" {
			return v
		}
	}
	return ""
}

// retryAfterHeader reads retry-after-ms or Retry-After (seconds or an HTTP date).
func retryAfterHeader(h http.Header) (time.Duration, bool) {
	if v := h.Get("retry-after-ms"); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
			return time.Duration(f * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
		return time.Duration(f * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}
