package model

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
)

// ClientOptions configures a Client. Provider must be resolved (see ProviderInfo.Resolve).
type ClientOptions struct {
	Provider ProviderInfo
	// APIKey is sent as `Authorization: Bearer`; empty sends no Authorization header.
	APIKey string
	// HTTPClient defaults to a client without a total timeout (streams are long).
	HTTPClient *http.Client
	// Originator defaults to "codex_cli_rs".
	Originator string
	// UserAgent defaults to DefaultUserAgent(Originator).
	UserAgent string
	// Getenv reads env_http_headers values; nil means no environment.
	Getenv func(string) string
	// Clock supplies time and sleeps; nil means the real clock.
	Clock Clock
	// Rand supplies jitter in [0,1); nil uses math/rand/v2.
	Rand   func() float64
	Logger *slog.Logger
}

// Client sends Responses requests to one provider. It is safe for concurrent use.
type Client struct {
	opts ClientOptions
}

// NewClient returns a client for the provider.
func NewClient(opts ClientOptions) (*Client, error) {
	return &Client{opts: opts}, nil
}

// Stream is one model response being read. Its owner must call Close.
type Stream struct{}

// Stream sends the prompt and returns the response stream once the server accepted it.
func (c *Client) Stream(ctx context.Context, p Prompt, obs RetryObserver) (*Stream, error) {
	return nil, errors.New("model: not implemented yet")
}

// Next returns the next event; io.EOF after Completed.
func (s *Stream) Next(ctx context.Context) (ResponseEvent, error) {
	return nil, errors.New("model: not implemented yet")
}

// Close releases the connection.
func (s *Stream) Close() error { return nil }
