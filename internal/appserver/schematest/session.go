package schematest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// Session follows one client connection both ways: it learns the method of every request
// from its id, so each response is checked against the result schema of that method.
type Session struct {
	v  *Validator
	tb testing.TB

	mu          sync.Mutex
	skip        []string          // extra unschematized method prefixes
	clientCalls map[string]string // request id (JSON) → method, requests the client sent
	serverCalls map[string]string // requests the server sent
	failed      error
}

// NewSession starts following a connection; failures are reported to tb (tb.Errorf, safe
// from any goroutine) — only the first, since what follows an invalid message proves little.
func (v *Validator) NewSession(tb testing.TB) *Session {
	return &Session{v: v, tb: tb, clientCalls: make(map[string]string), serverCalls: make(map[string]string)}
}

// Unschematized exempts methods with these prefixes from schema checks in this session
// (a test's own helper methods); envelopes are still checked. It returns s.
func (s *Session) Unschematized(prefixes ...string) *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skip = append(s.skip, prefixes...)
	return s
}

func (s *Session) validate(kind Kind, method string, raw json.RawMessage) error {
	s.mu.Lock()
	skip := s.skip
	s.mu.Unlock()
	for _, p := range skip {
		if strings.HasPrefix(method, p) {
			return nil
		}
	}
	return s.v.Validate(kind, method, raw)
}

// Err is the first invalid message seen, if any.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

func (s *Session) fail(err error) error {
	s.mu.Lock()
	first := s.failed == nil
	if first {
		s.failed = err
	}
	s.mu.Unlock()
	if first && s.tb != nil {
		s.tb.Errorf("schematest: %v", err)
	}
	return err
}

func idKey(id jsonrpc.ID) string {
	b, _ := id.MarshalJSON()
	return string(b)
}

// ClientSent records a frame the client sends. Client messages are not judged (tests send
// bad input on purpose), except that answers to server requests are checked too.
func (s *Session) ClientSent(frame []byte) {
	msg, err := jsonrpc.Decode(frame)
	if err != nil {
		if id := jsonrpc.RecoverID(frame); id.IsValid() {
			s.mu.Lock()
			s.clientCalls[idKey(id)] = ""
			s.mu.Unlock()
		}
		return
	}
	switch m := msg.(type) {
	case *jsonrpc.Request:
		s.mu.Lock()
		s.clientCalls[idKey(m.ID)] = m.Method
		s.mu.Unlock()
	case *jsonrpc.Response:
		s.mu.Lock()
		method, ok := s.serverCalls[idKey(m.ID)]
		s.mu.Unlock()
		if ok && m.Error == nil {
			if err := s.validate(ServerRequestResult, method, m.Result); err != nil {
				s.fail(fmt.Errorf("client answer: %w", err))
			}
		}
	}
}

// ServerSent checks a frame the server sent; it returns (and reports) the first problem.
func (s *Session) ServerSent(frame []byte) error {
	if err := s.check(frame); err != nil {
		return s.fail(err)
	}
	return nil
}

func (s *Session) check(frame []byte) error {
	if bytes.Contains(frame, []byte(`"jsonrpc"`)) {
		var probe map[string]json.RawMessage
		if json.Unmarshal(frame, &probe) == nil {
			if _, ok := probe["jsonrpc"]; ok {
				return fmt.Errorf("server message carries a \"jsonrpc\" member, which Codex omits: %s", clip(frame))
			}
		}
	}
	msg, err := jsonrpc.Decode(frame)
	if err != nil {
		return fmt.Errorf("server sent an invalid message (%v): %s", err, clip(frame))
	}
	switch m := msg.(type) {
	case *jsonrpc.Notification:
		return s.validate(ServerNotificationParams, m.Method, m.Params)
	case *jsonrpc.Request:
		s.mu.Lock()
		s.serverCalls[idKey(m.ID)] = m.Method
		s.mu.Unlock()
		return s.validate(ServerRequestParams, m.Method, m.Params)
	case *jsonrpc.Response:
		return s.checkResponse(m, frame)
	}
	return nil
}

func (s *Session) checkResponse(m *jsonrpc.Response, frame []byte) error {
	if m.Error != nil {
		raw, _ := json.Marshal(m.Error)
		if err := s.v.ValidateDefinition("JSONRPCErrorError", raw); err != nil {
			return err
		}
		// The one deliberate departure from the schema: an error about a message whose id
		// could not be read carries "id": null (JSON-RPC 2.0 §5).
		if !m.ID.IsValid() && m.Error.Code != jsonrpc.CodeParseError && m.Error.Code != jsonrpc.CodeInvalidRequest {
			return fmt.Errorf("error response without id: %s", clip(frame))
		}
		if m.ID.IsValid() {
			s.forget(m.ID)
		}
		return nil
	}
	if !m.ID.IsValid() {
		return fmt.Errorf("result without id: %s", clip(frame))
	}
	method, ok := s.forget(m.ID)
	if !ok {
		return fmt.Errorf("server answered id %s, which the client never used (or twice): %s", m.ID, clip(frame))
	}
	if method == "" {
		return fmt.Errorf("server sent a result for an unparseable request %s: %s", m.ID, clip(frame))
	}
	return s.validate(ClientRequestResult, method, m.Result)
}

func (s *Session) forget(id jsonrpc.ID) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := idKey(id)
	method, ok := s.clientCalls[k]
	delete(s.clientCalls, k)
	return method, ok
}

// WrapWriter returns a writer that records every line the client writes to the server.
func (s *Session) WrapWriter(w io.Writer) io.Writer { return &lineTap{w: w, s: s} }

type lineTap struct {
	w   io.Writer
	s   *Session
	buf []byte
}

func (t *lineTap) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		if line := bytes.TrimSpace(t.buf[:i]); len(line) > 0 {
			t.s.ClientSent(line)
		}
		t.buf = t.buf[i+1:]
	}
	if len(t.buf) > 64<<10 { // an oversized test line: only its head can hold the id
		t.buf = t.buf[:64<<10]
	}
	return t.w.Write(p)
}

// WrapReader returns a reader of the server's output that checks every line; after the
// first invalid one it returns that error, so the client stops too.
func (s *Session) WrapReader(r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() { // ends when r ends or the consumer closes the pipe
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if len(bytes.TrimSpace(line)) > 0 {
				if err := s.ServerSent(line); err != nil {
					pw.CloseWithError(err)
					return
				}
			}
			if _, err := pw.Write(append(append([]byte(nil), line...), '\n')); err != nil {
				return
			}
		}
		pw.CloseWithError(sc.Err())
	}()
	return pr
}
