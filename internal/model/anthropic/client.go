package anthropic

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/modelstream"
)

const (
	// DefaultBaseURL is the Anthropic API root used when the provider has no base_url (the
	// built-in anthropic provider's).
	DefaultBaseURL = model.AnthropicBaseURL
	// APIVersion is the `anthropic-version` header the client speaks.
	APIVersion = "2023-06-01"
	// WireAPI is the provider's `wire_api` value for this client.
	WireAPI = model.WireAnthropic
)

// Client sends streaming Messages requests to one provider. It is safe for concurrent use.
type Client struct {
	opts      model.ClientOptions
	log       *slog.Logger
	userAgent string
	url       string
	name      string // the provider's name, in error messages
	maxTokens int    // 0: the model's limit from the table
	warned    sync.Map
	streams   model.StreamConfig
}

// Option adjusts a Client beyond model.ClientOptions.
type Option func(*Client)

// WithMaxTokens sends n as `max_tokens` instead of the model's limit from the table.
func WithMaxTokens(n int) Option { return func(c *Client) { c.maxTokens = n } }

// New returns a client for a provider with `wire_api = "anthropic"` (or unset). opts.APIKey
// is sent as `x-api-key`.
func New(opts model.ClientOptions, options ...Option) (*Client, error) {
	if w := opts.Provider.WireAPI; w != "" && w != WireAPI {
		return nil, fmt.Errorf("model provider %q has wire_api %q; the Anthropic client needs %q", opts.Provider.Name, w, WireAPI)
	}
	c := &Client{opts: opts, log: opts.Log()}
	c.userAgent = opts.UserAgent
	if c.userAgent == "" {
		orig := opts.Originator
		if orig == "" {
			orig = model.DefaultOriginator
		}
		c.userAgent = model.DefaultUserAgent(orig)
	}
	c.name = opts.Provider.Name
	if c.name == "" {
		c.name = "Anthropic"
	}
	c.url = messagesURL(opts.Provider)
	for _, o := range options {
		o(c)
	}
	c.streams = c.streamConfig()
	return c, nil
}

// messagesURL is `{base_url}/messages` with the provider's query_params (sorted by key).
func messagesURL(p model.ProviderInfo) string {
	base := strings.TrimRight(p.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	u := base + "/messages"
	if len(p.QueryParams) == 0 {
		return u
	}
	q := url.Values{}
	for k, v := range p.QueryParams {
		q.Set(k, v)
	}
	return u + "?" + q.Encode() // Encode sorts by key
}

// warnOnce logs msg at warn level the first time key is seen by this client.
func (c *Client) warnOnce(key, msg string, args ...any) {
	if _, seen := c.warned.LoadOrStore(key, true); !seen {
		c.log.Warn("anthropic: "+msg, args...)
	}
}

// setHeaders puts the Messages headers on req. The key goes only into x-api-key.
func (c *Client) setHeaders(req *http.Request) {
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	h.Set("User-Agent", c.userAgent)
	authorize(h, c.opts.APIKey)
	p := c.opts.Provider
	for _, k := range sortedKeys(p.HTTPHeaders) {
		h.Set(k, p.HTTPHeaders[k])
	}
	if c.opts.Getenv != nil {
		for _, k := range sortedKeys(p.EnvHTTPHeaders) {
			if v := c.opts.Getenv(p.EnvHTTPHeaders[k]); v != "" {
				h.Set(k, v)
			}
		}
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Streamer adapts c to the modelstream.Streamer a thread reads responses from.
func (c *Client) Streamer() modelstream.Streamer { return streamer{c} }

type streamer struct{ c *Client }

func (s streamer) Stream(ctx context.Context, p modelstream.Prompt, obs modelstream.RetryObserver) (modelstream.Stream, error) {
	st, err := s.c.Stream(ctx, p, obs)
	if err != nil {
		return nil, err
	}
	return st, nil
}
