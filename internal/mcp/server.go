package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"slices"
	"sort"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gocodex/gocodex/internal/config"
)

// server is one configured server and its connection.
type server struct {
	name           string
	cfg            config.McpServerConfig
	startupTimeout time.Duration
	toolTimeout    time.Duration
	// settledCh closes at the first outcome: ready, failed (or timed out), cancelled.
	settledCh chan struct{}
	// killCtx ends a stdio server's process group when cancelled (kill).
	killCtx context.Context
	kill    context.CancelFunc

	mu      sync.Mutex
	state   State
	err     error
	sess    *sdk.ClientSession
	cmd     *exec.Cmd
	tools   []*sdk.Tool
	closing bool
}

func newServer(name string, c config.McpServerConfig) *server {
	killCtx, kill := context.WithCancel(context.Background())
	return &server{
		killCtx:        killCtx,
		kill:           kill,
		name:           name,
		cfg:            c,
		startupTimeout: seconds(c.StartupTimeoutSec, DefaultStartupTimeout),
		toolTimeout:    seconds(c.ToolTimeoutSec, DefaultToolTimeout),
		settledCh:      make(chan struct{}),
		state:          StateStarting,
	}
}

func seconds(v *float64, def time.Duration) time.Duration {
	if v == nil || *v <= 0 {
		return def
	}
	return time.Duration(*v * float64(time.Second))
}

// settle records the first outcome; it reports whether this call settled the server.
func (s *server) settle(st State, err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateStarting {
		return false
	}
	s.state, s.err = st, err
	close(s.settledCh)
	return true
}

// ready stores a connected session; false means the manager is closing and the caller must
// shut the session itself.
func (s *server) ready(sess *sdk.ClientSession, tools []*sdk.Tool, cmd *exec.Cmd) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.sess, s.tools, s.cmd = sess, tools, cmd
	return true
}

// settleReady marks the server ready; it reports whether that was its first outcome (false
// when it had timed out and now joins late).
func (s *server) settleReady() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := s.state == StateStarting
	s.state, s.err = StateReady, nil
	if first {
		close(s.settledCh)
	}
	return first
}

// lost marks a ready server failed after its session ended; false when sess is no longer
// the server's (it is being closed).
func (s *server) lost(sess *sdk.ClientSession, err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess != sess || s.closing {
		return false
	}
	s.state, s.err, s.sess, s.tools = StateFailed, err, nil, nil
	return true
}

// shut takes the session away for closing.
func (s *server) shut() (*sdk.ClientSession, *exec.Cmd) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
	sess, cmd := s.sess, s.cmd
	s.sess = nil
	return sess, cmd
}

func (s *server) status() (State, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state, s.err
}

// wait blocks until the server has settled and returns its startup error, if any.
func (s *server) wait(ctx context.Context) error {
	select {
	case <-s.settledCh:
	case <-ctx.Done():
		return ctx.Err()
	}
	st, err := s.status()
	switch {
	case st == StateReady:
		return nil
	case err != nil:
		return err
	}
	return errors.New("MCP server startup was cancelled")
}

func (s *server) setTools(tools []*sdk.Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tools = tools
}

func (s *server) toolList() []*sdk.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateReady {
		return nil
	}
	return s.tools
}

func (s *server) readySession() (*sdk.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateReady || s.sess == nil {
		if s.err != nil {
			return nil, s.err
		}
		return nil, errors.New("MCP server '" + s.name + "' is not ready")
	}
	return s.sess, nil
}

// filter applies enabled_tools (an allow list, when set) and disabled_tools, and sorts by
// name as Codex lists them.
func (s *server) filter(tools []*sdk.Tool) []*sdk.Tool {
	var out []*sdk.Tool
	for _, t := range tools {
		if s.cfg.EnabledTools != nil && !slices.Contains(s.cfg.EnabledTools, t.Name) {
			continue
		}
		if slices.Contains(s.cfg.DisabledTools, t.Name) {
			continue
		}
		out = append(out, t)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// statusJSON is the `status` of mcp_startup_update.
func statusJSON(st State, errMsg string) json.RawMessage {
	v := struct {
		State State   `json:"state"`
		Error *string `json:"error,omitempty"`
	}{State: st}
	if st == StateFailed {
		v.Error = &errMsg
	}
	b, _ := json.Marshal(v)
	return b
}
