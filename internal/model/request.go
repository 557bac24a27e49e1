package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"

	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

// requestBody writes the Responses request body with its fields in the order Codex 0.169
// sends them (observed on the wire: model, stream, input, tools, tool_choice,
// parallel_tool_calls, reasoning, store, include, service_tier, prompt_cache_key, text,
// client_metadata; instructions, when set, follows model). Order matters for byte-for-byte
// comparisons, so the object is written by hand instead of from a struct.
func requestBody(p modelstream.Prompt) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(4096)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	put := func(key string, v any, first bool) error {
		if !first {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(key)
		b.WriteString(`":`)
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("encode %s: %w", key, err)
		}
		b.Truncate(b.Len() - 1) // Encoder appends a newline
		return nil
	}
	b.WriteByte('{')
	if err := put("model", p.Model, true); err != nil {
		return nil, err
	}
	if p.Instructions != "" {
		if err := put("instructions", p.Instructions, false); err != nil {
			return nil, err
		}
	}
	if err := put("stream", true, false); err != nil {
		return nil, err
	}
	// The history is most of the body and is sent again on every request: protocol writes it
	// straight into the buffer.
	b.WriteString(`,"input":`)
	inputJSON, err := protocol.MarshalItems(b.AvailableBuffer(), responsesInput(p.Input))
	if err != nil {
		return nil, fmt.Errorf("encode input: %w", err)
	}
	b.Write(inputJSON)
	if err := putArray(&b, put, "tools", len(p.Tools), func(i int) any { return p.Tools[i] }); err != nil {
		return nil, err
	}
	var reasoning *modelstream.Reasoning
	if p.Reasoning != nil {
		r := *p.Reasoning
		if r.Summary == "none" {
			r.Summary = ""
		}
		reasoning = &r
	}
	include := []string{}
	if reasoning != nil {
		include = []string{"reasoning.encrypted_content"}
	}
	var metadata any
	switch {
	case len(p.ClientMetadata) > 0:
		metadata = p.ClientMetadata
	case p.InstallationID != "":
		metadata = map[string]string{"x-codex-installation-id": p.InstallationID}
	}
	fields := []struct {
		key  string
		v    any
		skip bool
	}{
		{"tool_choice", "auto", false},
		{"parallel_tool_calls", p.ParallelToolCalls, false},
		{"reasoning", reasoning, false},
		{"store", p.Store, false},
		{"include", include, false},
		{"service_tier", serviceTier(p.ServiceTier), p.ServiceTier == ""},
		{"prompt_cache_key", p.PromptCacheKey, p.PromptCacheKey == ""},
		{"text", textControls(p), p.Verbosity == "" && len(p.OutputSchema) == 0},
		{"client_metadata", metadata, metadata == nil},
	}
	for _, f := range fields {
		if f.skip {
			continue
		}
		if err := put(f.key, f.v, false); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// putArray writes `"key":[...]`, always an array (never null), element by element so a
// sealed-interface slice marshals through each item's MarshalJSON.
func putArray(b *bytes.Buffer, put func(string, any, bool) error, key string, n int, at func(int) any) error {
	if n == 0 {
		return put(key, []struct{}{}, false)
	}
	b.WriteString(`,"` + key + `":[`)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(at(i)); err != nil {
			return fmt.Errorf("encode %s[%d]: %w", key, i, err)
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte(']')
	return nil
}

func serviceTier(t string) string {
	if t == "fast" {
		return "priority"
	}
	return t
}

type textFormat struct {
	Type   string          `json:"type"`
	Strict bool            `json:"strict"`
	Schema json.RawMessage `json:"schema"`
	Name   string          `json:"name"`
}

type textControlsWire struct {
	Verbosity string      `json:"verbosity,omitempty"`
	Format    *textFormat `json:"format,omitempty"`
}

func textControls(p modelstream.Prompt) textControlsWire {
	t := textControlsWire{Verbosity: p.Verbosity}
	if len(p.OutputSchema) > 0 {
		t.Format = &textFormat{Type: "json_schema", Strict: true, Schema: p.OutputSchema, Name: "codex_output_schema"}
	}
	return t
}

// DefaultUserAgent is `<originator>/<version> (<os>; <arch>) gocodex`, the shape Codex uses.
func DefaultUserAgent(originator string) string {
	arch := runtime.GOARCH
	switch arch {
	case "amd64":
		arch = "x86_64"
	case "arm64":
		arch = "aarch64"
	}
	return fmt.Sprintf("%s/%s (%s; %s) gocodex", originator, CodexVersion, osName(), arch)
}

func osName() string {
	switch runtime.GOOS {
	case "linux":
		return "Linux"
	case "darwin":
		return "Mac OS"
	case "windows":
		return "Windows"
	}
	return runtime.GOOS
}

// setHeaders puts Codex's request headers on req.
func (c *Client) setHeaders(req *http.Request, p modelstream.Prompt) {
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	if c.opts.Auth == nil {
		BearerAuth(h, c.opts.APIKey)
	}
	// Codex sends these lowercase; setting the map directly keeps Go from canonicalising them.
	h["originator"] = []string{c.originator}
	h.Set("User-Agent", c.userAgent)
	thread := p.ThreadID
	if thread == "" {
		thread = p.PromptCacheKey
	}
	if thread != "" {
		// Codex 0.169 sends session-id and thread-id (hyphenated) plus x-client-request-id.
		h["session-id"] = []string{thread}
		h["thread-id"] = []string{thread}
		h["x-client-request-id"] = []string{thread}
	}
	for _, k := range sortedKeys(c.opts.Provider.HTTPHeaders) {
		h.Set(k, c.opts.Provider.HTTPHeaders[k])
	}
	if c.opts.Getenv != nil {
		for _, k := range sortedKeys(c.opts.Provider.EnvHTTPHeaders) {
			if v := c.opts.Getenv(c.opts.Provider.EnvHTTPHeaders[k]); v != "" {
				h.Set(k, v)
			}
		}
	}
	for _, k := range sortedKeys(p.ExtraHeaders) {
		h[k] = []string{p.ExtraHeaders[k]}
	}
}

// responsesInput drops what the Responses API cannot take back: reasoning another wire
// produced (the Anthropic wire marks its thinking "anthropic.…" in encrypted_content; OpenAI
// would reject it) after a thread switched provider. The history is returned as is when there
// is none, which is every thread that stayed on this wire.
func responsesInput(items []protocol.ResponseItem) []protocol.ResponseItem {
	foreign := func(it protocol.ResponseItem) bool {
		r, ok := it.(protocol.ReasoningItem)
		return ok && r.EncryptedContent != nil && strings.HasPrefix(*r.EncryptedContent, "anthropic.")
	}
	for i, it := range items {
		if foreign(it) {
			out := append([]protocol.ResponseItem(nil), items[:i]...)
			for _, it := range items[i+1:] {
				if !foreign(it) {
					out = append(out, it)
				}
			}
			return out
		}
	}
	return items
}
