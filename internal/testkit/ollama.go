package testkit

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
)

// OllamaServer plays a local Ollama on 127.0.0.1: /api/tags lists its models, /api/pull
// "downloads" one with streamed progress, /v1/models lists them OpenAI-style, and
// /v1/responses is answered by the scripted model Server (which records it).
//
//	model := testkit.NewServer(t)
//	ollama := testkit.NewOllamaServer(t, model, "gpt-oss:20b")
//	// env: CODEX_OSS_BASE_URL=ollama.BaseURL()
type OllamaServer struct {
	srv   *httptest.Server
	model *Server

	mu     sync.Mutex
	models []string
	pulls  []string
	paths  []string
}

// NewOllamaServer starts the server with the given models already pulled.
func NewOllamaServer(t TB, model *Server, models ...string) *OllamaServer {
	o := &OllamaServer{model: model, models: models}
	o.srv = httptest.NewServer(http.HandlerFunc(o.serve))
	t.Cleanup(o.srv.Close)
	return o
}

// BaseURL is the OpenAI-compatible base (CODEX_OSS_BASE_URL).
func (o *OllamaServer) BaseURL() string { return o.srv.URL + "/v1" }

// Pulls are the models pulled so far.
func (o *OllamaServer) Pulls() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.pulls...)
}

// Paths are the method and path of every request.
func (o *OllamaServer) Paths() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.paths...)
}

func (o *OllamaServer) serve(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	o.paths = append(o.paths, r.Method+" "+r.URL.Path)
	models := append([]string(nil), o.models...)
	o.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/tags":
		list := []map[string]any{}
		for _, m := range models {
			list = append(list, map[string]any{"name": m, "model": m})
		}
		writeJSON(w, http.StatusOK, map[string]any{"models": list})
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		list := []map[string]any{}
		for _, m := range models {
			list = append(list, map[string]any{"id": m, "object": "model"})
		}
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": list})
	case r.Method == http.MethodPost && r.URL.Path == "/api/pull":
		var req struct {
			Model string `json:"model"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if req.Model == "" || req.Model == "no-such-model" {
			w.WriteHeader(http.StatusOK)
			fmt.Fprintln(w, `{"error":"pull model manifest: file does not exist"}`)
			return
		}
		flusher, _ := w.(http.Flusher)
		for _, line := range []string{`{"status":"pulling manifest"}`, `{"status":"downloading","total":100,"completed":40}`,
			`{"status":"downloading","total":100,"completed":100}`, `{"status":"verifying sha256 digest"}`, `{"status":"success"}`} {
			fmt.Fprintln(w, line)
			if flusher != nil {
				flusher.Flush()
			}
		}
		o.mu.Lock()
		o.models = append(o.models, req.Model)
		o.pulls = append(o.pulls, req.Model)
		o.mu.Unlock()
	case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
		target, _ := url.Parse(o.model.URL())
		proxy := httputil.NewSingleHostReverseProxy(target)
		proxy.FlushInterval = -1
		proxy.ServeHTTP(w, r)
	default:
		io.Copy(io.Discard, r.Body)
		http.NotFound(w, r)
	}
}
