package model

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ListServedModels asks the provider's model list route (its wire's ModelsPath, GET
// {base}/models on every wire today) which models it serves.
func ListServedModels(ctx context.Context, p ProviderInfo, getenv func(string) string, hc *http.Client) ([]string, error) {
	key, err := ResolveAPIKey(p, AuthOptions{Getenv: getenv})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := NewModelsRequest(ctx, p, key)
	if err != nil {
		return nil, err
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

// NewModelsRequest is the GET of the provider's model list route, authorized as its wire
// authorizes every request (key may be empty) and carrying the provider's http_headers.
// `gocodex models` and doctor's reachability probe send it.
func NewModelsRequest(ctx context.Context, p ProviderInfo, key string) (*http.Request, error) {
	d, err := p.WireDescriptor()
	if err != nil {
		return nil, err
	}
	if d.Capabilities.ModelsPath == "" {
		return nil, fmt.Errorf("the %s wire of model provider %q has no model list", d.Name, p.Name)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.EndpointURL(d.Capabilities.ModelsPath), nil)
	if err != nil {
		return nil, err
	}
	d.Authorize(req.Header, key)
	for k, v := range p.HTTPHeaders {
		req.Header.Set(k, v)
	}
	return req, nil
}
