package appserver

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// WSOptions configure the websocket listener.
type WSOptions struct {
	// Addr is IP:PORT (port 0 picks one; Listening reports it).
	Addr string
	// TokenSHA256 is the SHA-256 of the capability token clients must present as
	// "Authorization: Bearer <token>". Empty means no authentication, which is allowed only on
	// a loopback address.
	TokenSHA256 []byte
	// JWT, when set, requires signed bearer tokens instead (--ws-auth signed-bearer-token).
	JWT *JWTAuth
	// Listening is called with the bound address once the listener is up.
	Listening func(addr net.Addr)
}

// ErrNoAuthOffLoopback is why a websocket listener beyond loopback will not start without a
// token; the text is Codex's.
type ErrNoAuthOffLoopback struct{ Addr string }

func (e ErrNoAuthOffLoopback) Error() string {
	return fmt.Sprintf("refusing to start non-loopback websocket listener %s without auth; configure `--ws-auth capability-token` or `--ws-auth signed-bearer-token`", e.Addr)
}

// HashToken is the digest WSOptions.TokenSHA256 holds.
func HashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// ParseTokenSHA256 decodes --ws-token-sha256.
func ParseTokenSHA256(h string) ([]byte, error) {
	b, err := hex.DecodeString(strings.TrimSpace(h))
	if err != nil || len(b) != sha256.Size {
		return nil, fmt.Errorf("invalid --ws-token-sha256: expected %d hex characters", 2*sha256.Size)
	}
	return b, nil
}

// ServeWebsocket listens on opts.Addr and serves every websocket client as its own
// connection, one JSON-RPC message per text frame, until ctx ends. /readyz and /healthz
// answer 200 for probes.
func (s *Server) ServeWebsocket(ctx context.Context, opts WSOptions) error {
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return fmt.Errorf("invalid websocket address %q: %w", opts.Addr, err)
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return fmt.Errorf("invalid websocket address %q: host must be an IP address", opts.Addr)
	}
	if !ip.IsLoopback() && len(opts.TokenSHA256) == 0 && opts.JWT == nil {
		return ErrNoAuthOffLoopback{Addr: opts.Addr}
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", opts.Addr)
	if err != nil {
		return err
	}
	if opts.Listening != nil {
		opts.Listening(ln.Addr())
	}
	var conns sync.WaitGroup
	hs := &http.Server{
		Handler:           s.wsHandler(ctx, opts, &conns),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
		conns.Wait()
		<-errc
		return nil
	case err := <-errc:
		conns.Wait()
		return err
	}
}

func (s *Server) wsHandler(ctx context.Context, opts WSOptions, conns *sync.WaitGroup) http.Handler {
	mux := http.NewServeMux()
	probe := func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.WriteHeader(http.StatusOK)
	}
	mux.HandleFunc("/readyz", probe)
	mux.HandleFunc("/healthz", probe)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if !opts.authorize(w, r) {
			return
		}
		// No Origin check is needed: browsers were turned away above, and other clients
		// send none.
		ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
		if err != nil {
			return // Accept has answered the client
		}
		conns.Add(1)
		defer conns.Done()
		// The server's ctx, not the request's: a hijacked request's ctx says nothing useful.
		if err := s.serveConn(ctx, newWSFramer(ws, cmp.Or(s.opts.MaxFrame, WebsocketMaxMessage)), true); err != nil {
			s.logger.Debug("websocket connection ended", "err", err)
		}
	})
	return rejectBrowsers(mux)
}

// unauthorized answers 401 with Codex's plain-text reason (no trailing newline).
func unauthorized(w http.ResponseWriter, reason string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusUnauthorized)
	io.WriteString(w, reason)
}

// rejectBrowsers answers 403 to any request carrying an Origin header, as Codex does: only a
// browser sends one, and a web page must not drive a local agent (or probe for it).
func rejectBrowsers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Header["Origin"]; ok {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// wsFramer is one message per websocket text frame. Oversized messages are read through
// (discarded) so the connection survives them, as with stdio lines.
type wsFramer struct {
	ws   *websocket.Conn
	max  int
	buf  []byte
	once sync.Once
}

// WebsocketMaxMessage is the largest websocket message read, Codex 0.169's limit (its
// websocket library's 16 MiB frame size: a 10 MiB request is taken, a 17 MiB one is not).
// Codex drops the connection over it; a larger message is answered with -32600 here and the
// connection lives.
const WebsocketMaxMessage = 16 << 20

// WebsocketFramer frames JSON-RPC over a websocket connection, one message per text frame,
// for servers and clients alike. maxFrame <= 0 means WebsocketMaxMessage.
func WebsocketFramer(ws *websocket.Conn, maxFrame int) jsonrpc.Framer {
	if maxFrame <= 0 {
		maxFrame = WebsocketMaxMessage
	}
	return newWSFramer(ws, maxFrame)
}

func newWSFramer(ws *websocket.Conn, max int) *wsFramer {
	ws.SetReadLimit(-1) // we bound it ourselves, without closing the connection
	return &wsFramer{ws: ws, max: max}
}

func (f *wsFramer) ReadFrame(ctx context.Context) ([]byte, error) {
	for {
		typ, r, err := f.ws.Reader(ctx)
		if err != nil {
			if websocket.CloseStatus(err) != -1 {
				return nil, io.EOF
			}
			return nil, err
		}
		if typ != websocket.MessageText {
			io.Copy(io.Discard, r)
			continue
		}
		if cap(f.buf) > 1<<20 { // one large message must not pin its size
			f.buf = nil
		}
		f.buf = f.buf[:0]
		lr := &io.LimitedReader{R: r, N: int64(f.max) + 1}
		for {
			if len(f.buf) == cap(f.buf) {
				f.buf = append(f.buf, 0)[:len(f.buf)]
			}
			n, err := lr.Read(f.buf[len(f.buf):cap(f.buf)])
			f.buf = f.buf[:len(f.buf)+n]
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
		}
		if len(f.buf) > f.max {
			rest, err := io.Copy(io.Discard, r)
			if err != nil {
				return nil, err
			}
			prefix := append([]byte(nil), f.buf[:min(len(f.buf), 4<<10)]...)
			f.buf = nil // do not keep a large buffer around
			return nil, &jsonrpc.FrameTooLargeError{Size: int64(f.max) + 1 + rest, Limit: f.max, Prefix: prefix}
		}
		return f.buf, nil
	}
}

func (f *wsFramer) WriteFrame(ctx context.Context, frame []byte) error {
	return f.ws.Write(ctx, websocket.MessageText, frame)
}

func (f *wsFramer) Close() error {
	var err error
	f.once.Do(func() { err = f.ws.Close(websocket.StatusNormalClosure, "") })
	return err
}

// Abort drops the connection without the closing handshake, which a client that stopped
// reading would never answer.
func (f *wsFramer) Abort() error {
	var err error
	f.once.Do(func() { err = f.ws.CloseNow() })
	return err
}
