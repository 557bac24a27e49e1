package appserver_test

import (
	"encoding/base64"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// command/exec/resize resizes a tty session's terminal (the command sees the new size) and
// answers as Codex 0.169 does (checked against its app-server) for an unknown process, an
// empty size and a session without a terminal.
func TestCommandExecResize(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)

	var out strings.Builder
	waitOutput := func(want string) {
		t.Helper()
		for !strings.Contains(out.String(), want) {
			for _, d := range find(cl.until("command/exec/outputDelta"), "command/exec/outputDelta") {
				b, _ := base64.StdEncoding.DecodeString(d["deltaBase64"].(string))
				out.Write(b)
			}
		}
	}
	type result struct {
		ExitCode int `json:"exitCode"`
	}
	done := make(chan result, 1)
	go func() {
		var res result
		_ = cl.c.Call(t.Context(), "command/exec", map[string]any{"command": []string{"/bin/sh", "-c", "stty size; read x; stty size"},
			"processId": "p1", "tty": true, "size": map[string]any{"rows": 30, "cols": 100}, "streamStdoutStderr": true}, &res)
		done <- res
	}()
	waitOutput("30 100\r\n") // registered and running
	cl.call("command/exec/resize", map[string]any{"processId": "p1", "size": map[string]any{"rows": 50, "cols": 132}}, nil)

	errs := []struct {
		params map[string]any
		code   int64
		msg    string
	}{
		{map[string]any{"processId": "nope", "size": map[string]any{"rows": 50, "cols": 132}}, -32600, `no active command/exec for process id "nope"`},
		{map[string]any{"processId": "p1", "size": map[string]any{"rows": 0, "cols": 132}}, -32602, "command/exec size rows and cols must be greater than 0"},
	}
	for _, tc := range errs {
		if e := cl.callErr("command/exec/resize", tc.params); int64(e.Code) != tc.code || e.Message != tc.msg {
			t.Errorf("resize %v = %d %q, want %d %q", tc.params, e.Code, e.Message, tc.code, tc.msg)
		}
	}

	cl.call("command/exec/write", map[string]any{"processId": "p1", "deltaBase64": base64.StdEncoding.EncodeToString([]byte("go\n"))}, nil)
	waitOutput("50 132\r\n")
	if res := <-done; res.ExitCode != 0 {
		t.Errorf("tty session exit code = %d", res.ExitCode)
	}

	// A size needs a terminal, and a terminal needs cells.
	spawnErrs := []struct {
		params map[string]any
		msg    string
	}{
		{map[string]any{"command": []string{"true"}, "size": map[string]any{"rows": 10, "cols": 100}}, "command/exec size requires tty: true"},
		{map[string]any{"command": []string{"true"}, "processId": "p3", "tty": true, "size": map[string]any{"rows": 0, "cols": 100}},
			"command/exec size rows and cols must be greater than 0"},
	}
	for _, tc := range spawnErrs {
		if e := cl.callErr("command/exec", tc.params); e.Code != -32602 || e.Message != tc.msg {
			t.Errorf("command/exec %v = %d %q, want -32602 %q", tc.params, e.Code, e.Message, tc.msg)
		}
	}

	// Without a terminal there is nothing to resize.
	go func() {
		var res result
		_ = cl.c.Call(t.Context(), "command/exec", map[string]any{"command": []string{"/bin/sh", "-c", "echo ready; read x"},
			"processId": "p2", "streamStdin": true, "streamStdoutStderr": true}, &res)
		done <- res
	}()
	waitOutput("ready\n")
	e := cl.callErr("command/exec/resize", map[string]any{"processId": "p2", "size": map[string]any{"rows": 50, "cols": 132}})
	if want := "failed to resize PTY: process is not attached to a PTY"; e.Code != -32600 || e.Message != want {
		t.Errorf("resize without a terminal = %d %q, want -32600 %q", e.Code, e.Message, want)
	}
	cl.call("command/exec/terminate", map[string]any{"processId": "p2"}, nil)
	<-done
}
