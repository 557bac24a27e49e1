// Command appserver drives `gocodex app-server` over stdio as a client application would:
// JSON-RPC initialize, thread/start, turn/start, then the streamed notifications until
// turn/completed. The server inherits this process's environment, so CODEX_HOME (and the
// model's API key) decide which model answers.
//
//	go run ./appserver -gocodex /path/to/gocodex [-cwd DIR] [-prompt TEXT]
//
// scripts/run-examples.sh runs it against the scripted model of internal/testkit.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

func main() {
	binary := flag.String("gocodex", os.Getenv("GOCODEX_BIN"), "path of the gocodex binary (default $GOCODEX_BIN)")
	cwd := flag.String("cwd", "", "working directory of the thread (default: the current directory)")
	prompt := flag.String("prompt", "Say hello.", "the message of the turn")
	timeout := flag.Duration("timeout", 2*time.Minute, "give up after this long")
	flag.Parse()
	if *binary == "" {
		fmt.Fprintln(os.Stderr, "appserver: say which gocodex binary to run: -gocodex PATH or GOCODEX_BIN")
		os.Exit(2)
	}
	if *cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintln(os.Stderr, "appserver:", err)
			os.Exit(1)
		}
		*cwd = wd
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *binary, *cwd, *prompt, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "appserver:", err)
		os.Exit(1)
	}
}

// message is one JSON-RPC message either way (requests, responses, notifications).
type message struct {
	ID     *int64          `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// client speaks newline-delimited JSON-RPC with one app-server process.
type client struct {
	in     io.Writer
	out    *bufio.Scanner
	nextID int64
	// notify sees every notification read while waiting for a response or a turn's end.
	notify func(method string, params json.RawMessage) error
}

func run(ctx context.Context, binary, cwd, prompt string, w io.Writer) error {
	cmd := exec.CommandContext(ctx, binary, "app-server")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s app-server: %w", binary, err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	c := &client{in: stdin, out: sc}
	err = converse(c, cwd, prompt, w)
	// Closing stdin is how a client says goodbye; the server then exits.
	stdin.Close()
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("app-server: %w", werr)
	}
	return err
}

func converse(c *client, cwd, prompt string, w io.Writer) error {
	turnDone := false
	c.notify = func(method string, params json.RawMessage) error {
		switch method {
		case "item/agentMessage/delta":
			var p struct{ Delta string }
			if err := json.Unmarshal(params, &p); err != nil {
				return err
			}
			fmt.Fprint(w, p.Delta)
		case "turn/completed":
			var p struct {
				Turn struct{ Status string }
			}
			if err := json.Unmarshal(params, &p); err != nil {
				return err
			}
			fmt.Fprintln(w)
			fmt.Fprintln(w, "turn/completed:", p.Turn.Status)
			turnDone = true
		case "error":
			fmt.Fprintln(w, "error:", string(params))
		}
		return nil
	}
	if err := c.call("initialize", map[string]any{"clientInfo": map[string]any{"name": "gocodex-example", "version": "0.1.0"}}, nil); err != nil {
		return err
	}
	if err := c.send(message{Method: "initialized"}); err != nil {
		return err
	}
	var started struct {
		Thread struct{ ID string } `json:"thread"`
	}
	if err := c.call("thread/start", map[string]any{"cwd": cwd, "approvalPolicy": "never", "sandbox": "read-only"}, &started); err != nil {
		return err
	}
	fmt.Fprintln(w, "thread started")
	input := []map[string]any{{"type": "text", "text": prompt}}
	if err := c.call("turn/start", map[string]any{"threadId": started.Thread.ID, "input": input}, nil); err != nil {
		return err
	}
	for !turnDone {
		if _, err := c.read(); err != nil {
			return err
		}
	}
	return nil
}

// call sends a request and reads until its response, handing notifications to c.notify.
func (c *client) call(method string, params, result any) error {
	c.nextID++
	id := c.nextID
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if err := c.send(message{ID: &id, Method: method, Params: raw}); err != nil {
		return err
	}
	for {
		m, err := c.read()
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if m == nil || m.ID == nil || *m.ID != id {
			continue
		}
		if m.Error != nil {
			return fmt.Errorf("%s: error %d: %s", method, m.Error.Code, m.Error.Message)
		}
		if result == nil {
			return nil
		}
		return json.Unmarshal(m.Result, result)
	}
}

// read reads one message: a notification goes to c.notify (and read returns nil), a request
// from the server (an approval, say) is refused, since this example does not handle them.
func (c *client) read() (*message, error) {
	if !c.out.Scan() {
		if err := c.out.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("the app-server closed its output")
	}
	var m message
	if err := json.Unmarshal(c.out.Bytes(), &m); err != nil {
		return nil, fmt.Errorf("bad message from the app-server: %w", err)
	}
	switch {
	case m.Method != "" && m.ID == nil:
		return nil, c.notify(m.Method, m.Params)
	case m.Method != "":
		refusal := map[string]any{"id": *m.ID, "error": map[string]any{"code": -32601, "message": "this example client does not handle " + m.Method}}
		b, err := json.Marshal(refusal)
		if err != nil {
			return nil, err
		}
		_, err = c.in.Write(append(b, '\n'))
		return nil, err
	}
	return &m, nil
}

func (c *client) send(m message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = c.in.Write(append(b, '\n'))
	return err
}
