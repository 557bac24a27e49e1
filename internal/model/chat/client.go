// Package chat speaks the Chat Completions API (`wire_api = "chat"`): it turns a Prompt into
// a streaming POST {base_url}/chat/completions and the streamed chunks back into the
// ResponseEvents the engine reads from the Responses client, with the same headers, retries,
// idle timeout and error classification (internal/model).
//
//	c, err := chat.New(model.ClientOptions{Provider: p, APIKey: key})
//	streamer := c.Streamer() // what a thread reads responses from
//
// History goes out as chat messages (tool calls on the assistant message, results as `tool`
// messages with the call's id); freeform tools are offered as a function taking `input`, and
// calls of them come back as custom tool calls so the engine's freeform handler runs.
package chat

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/modelstream"
)

// Client sends Chat Completions requests to one provider. It is safe for concurrent use.
type Client struct {
	opts model.ClientOptions
	log  *slog.Logger
	url  string

	streams model.StreamConfig

	mu      sync.Mutex
	dropped map[string]bool // tool types already reported as not sendable
}

// New returns a client for a provider whose wire_api is "chat".
func New(opts model.ClientOptions) (*Client, error) {
	if opts.Provider.WireAPI != WireAPI {
		return nil, fmt.Errorf("model provider %q has wire_api %q: the chat client needs wire_api = %q", opts.Provider.Name, opts.Provider.WireAPI, WireAPI)
	}
	if opts.Auth != nil || opts.CompressZstd {
		// ChatGPT sign-in and zstd bodies belong to the ChatGPT backend, a Responses endpoint.
		return nil, fmt.Errorf("model provider %q: ChatGPT sign-in is only for the Responses API; a chat provider takes an API key (env_key or experimental_bearer_token)", opts.Provider.Name)
	}
	if opts.SSEFixture != "" {
		return nil, fmt.Errorf("model provider %q: SSE fixtures are only read by the Responses client", opts.Provider.Name)
	}
	c := &Client{opts: opts, log: opts.Log(), dropped: map[string]bool{}}
	c.url = opts.Provider.EndpointURL("chat/completions")
	c.streams = c.streamConfig()
	return c, nil
}

// URL is the endpoint requests go to.
func (c *Client) URL() string { return c.url }

// providerName names the provider in errors.
func (c *Client) providerName() string {
	if c.opts.Provider.Name != "" {
		return c.opts.Provider.Name
	}
	return c.url
}

// reportDropped warns once per client about tool types the chat wire cannot offer.
func (c *Client) reportDropped(types []string) {
	c.mu.Lock()
	var fresh []string
	for _, t := range types {
		if !c.dropped[t] {
			c.dropped[t] = true
			fresh = append(fresh, t)
		}
	}
	c.mu.Unlock()
	if len(fresh) > 0 {
		c.log.Warn("chat wire: tools of these types have no Chat Completions form and are not offered to the model",
			"provider", c.providerName(), "types", strings.Join(fresh, ", "))
	}
}

// Stream sends the prompt and returns once the server accepted it (after request retries and
// any stream retries spent on failed connects). ctx governs the whole response.
func (c *Client) Stream(ctx context.Context, p modelstream.Prompt, obs modelstream.RetryObserver) (*Stream, error) {
	ts, err := translateTools(p.Tools)
	if err != nil {
		return nil, fmt.Errorf("chat wire: %w", err)
	}
	c.reportDropped(ts.dropped)
	body, err := buildRequest(p, ts)
	if err != nil {
		return nil, err
	}
	s := &Stream{c: c, prompt: p, tools: ts, body: body}
	if err := s.conn.Open(ctx, &c.streams, chatWire{s}, body, obs); err != nil {
		return nil, err
	}
	return s, nil
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
