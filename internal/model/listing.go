package model

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ListServedModels asks the provider's OpenAI-compatible (or Anthropic) GET {base}/models
// which models it serves.
func ListServedModels(ctx context.Context, p ProviderInfo, getenv func(string) string, hc *http.Client) ([]string, error) {
	key, err := ResolveAPIKey(p, AuthOptions{Getenv: getenv})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.EndpointURL("models"), nil)
	if err != nil {
		return nil, err
	}
	if key != "" {
		if p.Wire() == WireAnthropic {
			req.Header.Set("x-api-key", key)
			req.Header.Set("anthropic-version", "2023-06-01")
		} else {
			req.Header.Set("Authorization", "Bearer "+key)
		}
	}
	for k, v := range p.HTTPHeaders {
		req.Header.Set(k, v)
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s answered %d %s", req.URL.Path, resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("GET %s did not answer a model list", req.URL.Path)
	}
	out := []string{}
	for _, m := range list.Data {
		if m.ID != "" {
			out = append(out, m.ID)
		}
	}
	return out, nil
}
