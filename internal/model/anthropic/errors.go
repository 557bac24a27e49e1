package anthropic

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/gocodex/gocodex/internal/model"
)

// apiError is the `error` object of an error body or an `error` stream event.
type apiError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// classifyEvent turns a mid-stream `error` event into a model.Error: overloaded and server
// errors are stream failures (retried), rate limits are retried after the backoff, the rest
// end the turn.
func (c *Client) classifyEvent(ae apiError) *model.Error {
	msg := c.scrub(c.name + " " + ae.Type + ": " + ae.Message)
	e := &model.Error{Code: ae.Type, Message: msg}
	switch ae.Type {
	case "overloaded_error", "api_error", "timeout_error":
		e.Kind = model.KindStream
	case "rate_limit_error":
		e.Kind = model.KindRateLimited
		e.RetryAfter = model.ParseTryAgain(ae.Message)
	case "invalid_request_error", "request_too_large":
		e.Kind = model.KindInvalidRequest
		if isPromptTooLong(ae.Message) {
			e.Kind = model.KindContextWindowExceeded
		}
	case "authentication_error", "permission_error", "not_found_error", "billing_error":
		e.Kind = model.KindInvalidRequest
	default:
		e.Kind = model.KindStream
	}
	return e
}

func isPromptTooLong(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "prompt is too long")
}

// classifyStatus turns a non-success HTTP response into a model.Error named after the
// provider and the status. 429 is retried only with a retry-after header (as on the Responses
// wire), 5xx (529 overloaded included) are retried, and every other 4xx (401 included) ends
// the turn.
func (c *Client) classifyStatus(status int, header http.Header, body []byte) *model.Error {
	var env struct {
		Error apiError `json:"error"`
	}
	detail := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &env) == nil && env.Error.Message != "" {
		detail = env.Error.Type + ": " + env.Error.Message
	} else {
		detail = truncate(detail, 300)
	}
	e := &model.Error{
		Status:    status,
		Code:      env.Error.Type,
		URL:       c.url,
		RequestID: header.Get("request-id"),
		Message:   c.scrub(c.name + " HTTP " + strconv.Itoa(status) + " " + detail),
	}
	switch {
	case status == http.StatusTooManyRequests:
		e.Kind = model.KindRetryLimit
		e.RetryAfter, e.HasRetryAfter = model.RetryAfterHeader(header)
	case status == http.StatusInternalServerError:
		e.Kind = model.KindInternalServerError
	case status >= 500:
		e.Kind = model.KindUnexpectedStatus
	case isPromptTooLong(env.Error.Message):
		e.Kind = model.KindContextWindowExceeded
	default:
		e.Kind = model.KindInvalidRequest
	}
	return e
}

// scrub removes the API key from text that came from the server (a proxy may echo headers).
func (c *Client) scrub(s string) string {
	if c.opts.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.opts.APIKey, "[REDACTED]")
}
