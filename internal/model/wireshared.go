package model

import (
	"encoding/json"
	"github.com/gocodex/gocodex/modelstream"
	"net/http"
	"time"
)

// The exports of this file let the other wires (internal/model/chat) send requests and read
// failures exactly as the Responses client does, without copying its code.

// EndpointURL is `{base_url}/{path}` with query_params appended, as ResponsesURL builds it.
func (p ProviderInfo) EndpointURL(path string) string { return p.endpointURL(path) }

// SetRequestHeaders puts on req the headers the Responses client sends: content type, SSE
// accept, bearer key, originator, User-Agent, thread ids, the provider's http_headers and
// env_http_headers, and the prompt's extra headers.
func SetRequestHeaders(req *http.Request, opts ClientOptions, p modelstream.Prompt) {
	c := Client{opts: opts, originator: opts.Originator, userAgent: opts.UserAgent}
	if c.originator == "" {
		c.originator = DefaultOriginator
	}
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent(c.originator)
	}
	c.setHeaders(req, p)
}

// ClassifyHTTPError turns a non-success response (status, headers, at most 1 MiB of body)
// into an *Error the way the Responses client does after its request retries.
func ClassifyHTTPError(status int, header http.Header, body []byte, url string) *Error {
	return classifyHTTP(status, header, body, url)
}

// RetryAfterHeader reads retry-after-ms or Retry-After (seconds or an HTTP date), as the
// Responses client does for a 429.
func RetryAfterHeader(h http.Header) (time.Duration, bool) { return retryAfterHeader(h) }

// ClassifyStreamError turns an `error` object received inside a stream (response.failed, or
// a chat chunk carrying "error") into an *Error by its code.
func ClassifyStreamError(raw json.RawMessage) *Error { return classifyFailed(raw) }
