package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

// appServer is a spawned `<bin> app-server` spoken to with JSON-RPC lines over its stdin and
// stdout, as editors do.
type appServer struct {
	cmd    *exec.Cmd
	report string
	stdin  io.WriteCloser
	// onNote sees every notification as it is read, with the time it was read.
	onNote func(method string, params json.RawMessage, at time.Time)

	mu      sync.Mutex
	nextID  int
	pending map[int]chan rpcReply
	readErr error
	stderr  *limitedBuffer
	done    chan struct{} // closed when stdout ends
}

type rpcReply struct {
	Result json.RawMessage
	Err    *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	At time.Time
}

// spawnAppServer starts bin app-server in the sandbox. onNote may be nil.
func spawnAppServer(sb Sandbox, bin string, onNote func(string, json.RawMessage, time.Time)) (*appServer, error) {
	cmd, report := launch(sb, nil, bin, "app-server")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	a := &appServer{cmd: cmd, report: report, stdin: stdin, onNote: onNote, pending: map[int]chan rpcReply{}, stderr: &limitedBuffer{max: 8 << 10}, done: make(chan struct{})}
	cmd.Stderr = a.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go a.read(stdout)
	return a, nil
}

func (a *appServer) read(r io.Reader) {
	defer close(a.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		at := time.Now()
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			rpcReply
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Method != "" && m.ID != nil:
			// A server request (an approval): the workloads run with approvals off, so refuse.
			fmt.Fprintf(a.stdin, `{"id":%s,"error":{"code":-32601,"message":"bench answers no server requests"}}`+"\n", m.ID)
		case m.Method != "":
			if a.onNote != nil {
				a.onNote(m.Method, m.Params, at)
			}
		default:
			id, err := strconv.Atoi(string(m.ID))
			if err != nil {
				continue
			}
			rep := rpcReply{Result: m.Result, At: at}
			if len(m.Error) > 0 && string(m.Error) != "null" {
				_ = json.Unmarshal(m.Error, &rep.Err)
				if rep.Err == nil {
					rep.Err = &struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					}{Message: string(m.Error)}
				}
			}
			a.mu.Lock()
			ch := a.pending[id]
			delete(a.pending, id)
			a.mu.Unlock()
			if ch != nil {
				ch <- rep
			}
		}
	}
	a.mu.Lock()
	a.readErr = sc.Err()
	a.mu.Unlock()
}

// call sends a request and waits for its reply (or the process's end, or the timeout); it
// returns the result and when the reply was read.
func (a *appServer) call(method string, params any, timeout time.Duration) (json.RawMessage, time.Time, error) {
	ch := make(chan rpcReply, 1)
	a.mu.Lock()
	a.nextID++
	id := a.nextID
	a.pending[id] = ch
	a.mu.Unlock()
	p, err := json.Marshal(params)
	if err != nil {
		return nil, time.Time{}, err
	}
	if _, err := fmt.Fprintf(a.stdin, `{"id":%d,"method":%q,"params":%s}`+"\n", id, method, p); err != nil {
		return nil, time.Time{}, fmt.Errorf("%s: %w", method, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	select {
	case rep := <-ch:
		if rep.Err != nil {
			return nil, rep.At, fmt.Errorf("%s: error %d: %s", method, rep.Err.Code, rep.Err.Message)
		}
		return rep.Result, rep.At, nil
	case <-a.done:
		return nil, time.Time{}, fmt.Errorf("%s: app-server output ended: %s", method, a.stderr.String())
	case <-ctx.Done():
		return nil, time.Time{}, fmt.Errorf("%s: no reply within %s", method, timeout)
	}
}

func (a *appServer) notify(method string) {
	fmt.Fprintf(a.stdin, `{"method":%q}`+"\n", method)
}

// initialize runs the handshake and returns when the initialize reply was read.
func (a *appServer) initialize() (time.Time, error) {
	_, at, err := a.call("initialize", map[string]any{"clientInfo": map[string]any{"name": "gocodex-bench", "version": "1"}}, 30*time.Second)
	if err != nil {
		return time.Time{}, err
	}
	a.notify("initialized")
	return at, nil
}

// startThread starts a thread in cwd and returns its id.
func (a *appServer) startThread(cwd string, ephemeral bool) (string, error) {
	params := map[string]any{"cwd": cwd}
	if ephemeral {
		params["ephemeral"] = true
	}
	res, _, err := a.call("thread/start", params, 30*time.Second)
	if err != nil {
		return "", err
	}
	var r struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.Thread.ID == "" {
		return "", fmt.Errorf("thread/start: no thread id in %s", res)
	}
	return r.Thread.ID, nil
}

// close ends the app-server by closing its stdin (killing it if it does not exit) and
// returns its usage; Usage.Start is when it was started, for the spawn-to-reply figures.
func (a *appServer) close() (Usage, error) {
	defer os.Remove(a.report)
	a.stdin.Close()
	waited := make(chan error, 1)
	go func() { waited <- a.cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(15 * time.Second):
		a.cmd.Process.Kill()
		<-waited
	}
	return readReport(a.report)
}

// limitedBuffer keeps the last max bytes written (a process's stderr, for error messages).
type limitedBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b = append(l.b, p...)
	if len(l.b) > l.max {
		l.b = append([]byte(nil), l.b[len(l.b)-l.max:]...)
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}

// pid is the process id of the app-server itself (the launcher's child), 0 if unknown.
func (a *appServer) pid() int {
	lp := a.cmd.Process.Pid
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", lp, lp))
	if err != nil {
		return 0
	}
	var pid int
	fmt.Sscanf(string(b), "%d", &pid)
	return pid
}

// onAppServer spawns bin's app-server, initializes it and runs body on it; then it closes
// the server and returns body's metrics with the server's peak RSS ("rss_mib") and its usage.
func onAppServer(sb Sandbox, bin string, onNote func(string, json.RawMessage, time.Time), body func(a *appServer) (Metrics, error)) (Metrics, Usage, error) {
	a, err := spawnAppServer(sb, bin, onNote)
	if err != nil {
		return nil, Usage{}, err
	}
	m, err := func() (Metrics, error) {
		if _, err := a.initialize(); err != nil {
			return nil, err
		}
		return body(a)
	}()
	u, cerr := a.close()
	if err != nil {
		return nil, u, err
	}
	if cerr != nil {
		return nil, u, cerr
	}
	m["rss_mib"] = mib(u.PeakRSS)
	return m, u, nil
}
