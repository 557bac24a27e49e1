// Package testkit is the scripted model server and the helpers tests share.
//
// A Server listens on 127.0.0.1 and answers each POST .../responses with the next scripted
// Response from its queue (then with its default, if set). Responses are SSE streams built from
// events (Created, TextDelta, AssistantMessage, Reasoning, FunctionCall, CustomToolCall,
// LocalShellCall, Completed, Failed, Incomplete) or faults (Status, Status429, Cut, Stall).
// Every request is recorded. The same server runs as a process for benchmarks and for the
// reference-binary comparisons: see cmd/mockmodel.
package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Response is one scripted answer. The zero Status means 200 with an SSE body.
type Response struct {
	// Status is the HTTP status; 0 means 200.
	Status int `json:"status,omitempty"`
	// Header is added to the response (Retry-After, x-codex-* rate limits, openai-model).
	Header map[string]string `json:"header,omitempty"`
	// Body is sent as is for a non-200 status (an error JSON).
	Body string `json:"body,omitempty"`
	// Events is the SSE stream of a 200 response.
	Events []Event `json:"events,omitempty"`
	// CutAfter >= 0 ends the stream cleanly after that many events (no response.completed);
	// nil sends every event.
	CutAfter *int `json:"cut_after,omitempty"`
	// StallAfter >= 0 sends that many events, then sends nothing until the client goes away
	// or the server closes (a stall past the client's idle timeout).
	StallAfter *int `json:"stall_after,omitempty"`
	// Abort closes the connection abruptly after a cut or stall instead of ending the body
	// cleanly (the client sees a transport error rather than EOF).
	Abort bool `json:"abort,omitempty"`
	// EventDelay paces the events (simulating a slow model); 0 sends as fast as possible.
	EventDelay Duration `json:"event_delay,omitempty"`
	// Reply, when set, makes the response from the request it answers (a call that needs
	// what an earlier tool output said, such as a session id); the rest is then ignored.
	Reply func(Request) Response `json:"-"`
}

// Replying is a response made from the request it answers.
func Replying(f func(Request) Response) Response { return Response{Reply: f} }

// Duration is a time.Duration that reads and writes as a Go duration string in scripts.
type Duration time.Duration

// MarshalJSON writes "1.5s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads "1.5s" or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		*d = Duration(v)
		return err
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("duration: want a string like \"1.5s\" or nanoseconds: %w", err)
	}
	*d = Duration(n)
	return nil
}

// SSE is a 200 response streaming the events in order.
func SSE(parts ...Part) Response {
	var evs []Event
	for _, p := range parts {
		evs = append(evs, p.events()...)
	}
	return Response{Events: evs}
}

// Status is an error response with an OpenAI-style error body.
func Status(code int) Response {
	return Response{Status: code, Body: fmt.Sprintf(`{"error":{"type":"server_error","code":null,"message":"scripted status %d"}}`, code)}
}

// Status429 is a rate-limit response with a Retry-After header and a "try again in" message.
func Status429(retryAfter time.Duration) Response {
	secs := retryAfter.Seconds()
	return Response{
		Status: http.StatusTooManyRequests,
		Header: map[string]string{"Retry-After": fmt.Sprintf("%g", secs)},
		Body: fmt.Sprintf(`{"error":{"type":"rate_limit_exceeded","code":"rate_limit_exceeded","message":"Rate limit reached. Please try again in %gs."}}`,
			secs),
	}
}

// Cut is a stream of the events that ends (cleanly, without response.completed) after n of
// them.
func Cut(n int, parts ...Part) Response {
	r := SSE(parts...)
	r.CutAfter = &n
	return r
}

// Stall sends n of the events and then nothing until the client disconnects or the server
// closes (at the end of the test).
func Stall(n int, parts ...Part) Response {
	r := SSE(parts...)
	r.StallAfter = &n
	return r
}

// Request is one recorded request.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
	// At is when the request arrived.
	At time.Time
	// JSON is the body parsed with numbers kept as json.Number; nil if it is not JSON.
	JSON map[string]any
}

// TB is the part of testing.TB the server needs.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Cleanup(func())
}

// Server is the scripted Responses server.
type Server struct {
	t    TB
	srv  *httptest.Server
	done chan struct{}

	mu       sync.Mutex
	queue    []Response
	fallback *Response
	loop     []Response // replayed when the queue is empty (standalone benchmarks)
	loopPos  int
	requests []Request
	arrived  chan struct{} // closed and replaced whenever a request is recorded
	closed   bool
	models   []string // ids GET …/models lists; nil answers 404
}

// NewServer starts a server on 127.0.0.1 that closes when the test ends. A request that finds
// nothing scripted fails the test and gets a 500.
func NewServer(t TB) *Server {
	t.Helper()
	s := newServer(t)
	t.Cleanup(s.Close)
	return s
}

// NewStandaloneServer starts a server not tied to a test (cmd/mockmodel). addr is host:port;
// it must be a loopback address.
func NewStandaloneServer(addr string) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("listen address %q: only loopback addresses are allowed", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{done: make(chan struct{}), arrived: make(chan struct{})}
	s.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: s}}
	s.srv.Start()
	return s, nil
}

func newServer(t TB) *Server {
	s := &Server{t: t, done: make(chan struct{}), arrived: make(chan struct{})}
	s.srv = httptest.NewServer(s)
	return s
}

// URL is the server root, e.g. http://127.0.0.1:PORT.
func (s *Server) URL() string { return s.srv.URL }

// BaseURL is the provider base_url, URL()+"/v1".
func (s *Server) BaseURL() string { return s.srv.URL + "/v1" }

// Enqueue adds responses; each request to .../responses takes the next one.
func (s *Server) Enqueue(rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, rs...)
}

// SetDefault answers every request that finds the queue empty with r (e.g. a persistent 500).
func (s *Server) SetDefault(r Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = &r
}

// Loop makes the server replay rs in a cycle once the queue is empty.
func (s *Server) Loop(rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loop, s.loopPos = rs, 0
}

// Pending is the number of queued responses not yet served.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns the recorded POST .../responses requests, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return filterRequests(s.requests, isResponses)
}

// AwaitRequests waits until at least n POST .../responses requests arrived (or ctx ends) and
// returns them all.
func (s *Server) AwaitRequests(ctx context.Context, n int) ([]Request, error) {
	return awaitRequests(ctx, n, &s.mu, &s.arrived, s.Requests)
}

// SetModels makes GET …/models answer an OpenAI-style list of ids (a provider's model list).
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	s.models = ids
	s.mu.Unlock()
}

// AllRequests returns every recorded request, including ones to other paths (/v1/models).
func (s *Server) AllRequests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Close unblocks stalled streams and stops the server. It is safe to call twice.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.done)
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

func isResponses(method, path string) bool {
	return method == http.MethodPost && strings.HasSuffix(path, "/responses")
}

// ServeHTTP records the request and plays the next scripted response.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := Request{At: time.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) == nil {
		rec.JSON = m
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	close(s.arrived)
	s.arrived = make(chan struct{})
	if !isResponses(r.Method, r.URL.Path) {
		models := s.models
		s.mu.Unlock()
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") && models != nil {
			data := make([]map[string]any, 0, len(models))
			for _, id := range models {
				data = append(data, map[string]any{"id": id, "object": "model"})
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
			return
		}
		http.NotFound(w, r)
		return
	}
	resp, ok := s.next()
	s.mu.Unlock()
	if ok && resp.Reply != nil {
		resp = resp.Reply(rec)
	}
	if !ok {
		if s.t != nil {
			s.t.Errorf("testkit: request %d to %s found no scripted response", len(s.Requests()), r.URL.Path)
		}
		http.Error(w, `{"error":{"message":"testkit: no scripted response left"}}`, http.StatusInternalServerError)
		return
	}
	s.play(w, r, resp)
}

// next pops the response for a request; s.mu is held.
func (s *Server) next() (Response, bool) {
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		return r, true
	}
	if len(s.loop) > 0 {
		r := s.loop[s.loopPos%len(s.loop)]
		s.loopPos++
		return r, true
	}
	if s.fallback != nil {
		return *s.fallback, true
	}
	return Response{}, false
}

func (s *Server) play(w http.ResponseWriter, r *http.Request, resp Response) {
	for k, v := range resp.Header {
		w.Header().Set(k, v)
	}
	if resp.Status != 0 && resp.Status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.Status)
		io.WriteString(w, resp.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	limit, stall := -1, false
	if resp.CutAfter != nil {
		limit = *resp.CutAfter
	}
	if resp.StallAfter != nil {
		limit, stall = *resp.StallAfter, true
	}
	bw := newEventWriter(w)
	sent := 0
	for _, e := range resp.Events {
		n := max(e.Repeat, 1)
		for i := 0; i < n; i++ {
			if limit >= 0 && sent >= limit {
				goto end
			}
			if resp.EventDelay > 0 {
				bw.flush(flusher)
				select {
				case <-time.After(time.Duration(resp.EventDelay)):
				case <-r.Context().Done():
					return
				case <-s.done:
					return
				}
			}
			bw.write(e)
			sent++
		}
	}
end:
	bw.flush(flusher)
	if stall {
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
	}
	if resp.Abort {
		panic(http.ErrAbortHandler) // net/http closes the connection without a final chunk
	}
}

// eventWriter batches events into large writes; flushing per event would dominate load
// tests.
type eventWriter struct {
	w   io.Writer
	buf []byte
}

func newEventWriter(w io.Writer) *eventWriter {
	return &eventWriter{w: w, buf: make([]byte, 0, 64<<10)}
}

func (b *eventWriter) write(e Event) {
	b.buf = append(b.buf, "event: "...)
	b.buf = append(b.buf, e.Type...)
	data := e.Data
	// Pretty-printed script data spans lines; each line becomes its own data: field, which
	// the SSE standard joins back with "\n".
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		b.buf = append(b.buf, "\ndata: "...)
		b.buf = append(b.buf, bytes.TrimSuffix(data[:i], []byte("\r"))...)
		data = data[i+1:]
	}
	b.buf = append(b.buf, "\ndata: "...)
	b.buf = append(b.buf, data...)
	b.buf = append(b.buf, "\n\n"...)
	if len(b.buf) >= 32<<10 {
		b.w.Write(b.buf)
		b.buf = b.buf[:0]
	}
}

func (b *eventWriter) flush(f http.Flusher) {
	if len(b.buf) > 0 {
		b.w.Write(b.buf)
		b.buf = b.buf[:0]
	}
	if f != nil {
		f.Flush()
	}
}
