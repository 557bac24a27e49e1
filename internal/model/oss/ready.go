// Package oss gets a local model server ready before an --oss session, as Codex does: it
// checks the server answers (at once: a refused connection is not retried), lists its
// models, and has Ollama pull a missing one, showing progress.
package oss

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/model"
)

// Codex 0.169's messages for a server that does not answer.
const (
	ollamaDown   = "No running Ollama server detected. Start it with: `ollama serve` (after installing). Install instructions: https://github.com/ollama/ollama?tab=readme-ov-file#ollama"
	lmstudioDown = "LM Studio is not responding. Install from https://lmstudio.ai/download and run 'lms server start'."
)

// probeTimeout bounds each readiness request; a pull may take as long as it needs.
const probeTimeout = 5 * time.Second

// EnsureReady checks the local provider providerID (ollama or lmstudio) serves slug, pulling
// it into Ollama when it is missing; progress lines go to progress. Other providers pass.
func EnsureReady(ctx context.Context, providerID string, p model.ProviderInfo, slug string, progress io.Writer, hc *http.Client) error {
	if hc == nil {
		hc = http.DefaultClient
	}
	switch providerID {
	case model.ProviderOllama:
		have, err := ollamaModels(ctx, p, hc)
		if err != nil {
			return fmt.Errorf("OSS setup failed: %s (%v)", ollamaDown, err)
		}
		if hasModel(have, slug) {
			return nil
		}
		return ollamaPull(ctx, p, slug, progress, hc)
	case model.ProviderLMStudio:
		have, err := ListModels(ctx, p, providerID, hc)
		if err != nil {
			return fmt.Errorf("OSS setup failed: %s (%v)", lmstudioDown, err)
		}
		if !hasModel(have, slug) {
			return fmt.Errorf("OSS setup failed: LM Studio does not have model %q; download it with `lms get %s`", slug, slug)
		}
	}
	return nil
}

// ListModels lists what a local server serves: Ollama's /api/tags, else its wire's model
// list (model.ListServedModels), each within the readiness probe's deadline.
func ListModels(ctx context.Context, p model.ProviderInfo, providerID string, hc *http.Client) ([]string, error) {
	if providerID == model.ProviderOllama {
		return ollamaModels(ctx, p, hc)
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	return model.ListServedModels(ctx, p, nil, hc)
}

// root is the server's address without the OpenAI-compatible /v1.
func root(p model.ProviderInfo) string {
	return strings.TrimSuffix(strings.TrimRight(p.BaseURL, "/"), "/v1")
}

func ollamaModels(ctx context.Context, p model.ProviderInfo, hc *http.Client) ([]string, error) {
	var tags struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := getJSON(ctx, hc, root(p)+"/api/tags", &tags); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(tags.Models))
	for _, m := range tags.Models {
		if m.Name != "" {
			out = append(out, m.Name)
		} else if m.Model != "" {
			out = append(out, m.Model)
		}
	}
	return out, nil
}

// hasModel matches Ollama's names, where "name" and "name:latest" are the same model.
func hasModel(have []string, slug string) bool {
	for _, h := range have {
		if h == slug || h == slug+":latest" || strings.TrimSuffix(h, ":latest") == slug {
			return true
		}
	}
	return false
}

// ollamaPull has Ollama download slug, reporting its streamed progress.
func ollamaPull(ctx context.Context, p model.ProviderInfo, slug string, progress io.Writer, hc *http.Client) error {
	body, _ := json.Marshal(map[string]any{"model": slug, "stream": true})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, root(p)+"/api/pull", strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("OSS setup failed: pulling %s: %v", slug, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("OSS setup failed: pulling %s: Ollama answered %d: %s", slug, resp.StatusCode, strings.TrimSpace(string(data)))
	}
	fmt.Fprintf(progress, "Pulling model %s...\n", slug)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	last := ""
	success := false
	for sc.Scan() {
		var ev struct {
			Status    string `json:"status"`
			Total     int64  `json:"total"`
			Completed int64  `json:"completed"`
			Error     string `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if ev.Error != "" {
			return fmt.Errorf("OSS setup failed: pulling %s: %s", slug, ev.Error)
		}
		line := ev.Status
		if ev.Total > 0 {
			line = fmt.Sprintf("%s %d%%", ev.Status, ev.Completed*100/ev.Total)
		}
		if line != last {
			fmt.Fprintf(progress, "  %s\n", line)
			last = line
		}
		success = success || ev.Status == "success"
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("OSS setup failed: pulling %s: %v", slug, err)
	}
	if !success {
		return errors.New("OSS setup failed: pulling " + slug + ": Ollama ended the download without success")
	}
	return nil
}

func getJSON(ctx context.Context, hc *http.Client, url string, out any) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s answered %d", req.URL.Path, resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(out)
}
