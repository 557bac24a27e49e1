package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// protoSession is a running `gocodex proto`: submissions in, events out.
type protoSession struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	events chan map[string]any
	cancel context.CancelFunc
}

func (e *env) startProto(args ...string) *protoSession {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	cmd := exec.CommandContext(ctx, binary, append([]string{"proto"}, args...)...)
	cmd.Dir = e.Workdir
	cmd.Env = e.environ()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	p := &protoSession{t: e.t, cmd: cmd, stdin: stdin, events: make(chan map[string]any, 1024), cancel: cancel}
	go func() {
		defer close(p.events)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				e.t.Errorf("event is not JSON: %q", sc.Text())
				continue
			}
			p.events <- m
		}
	}()
	e.t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if e.t.Failed() {
			e.t.Logf("proto stderr:\n%s", stderr.String())
		}
	})
	return p
}

func (p *protoSession) send(id string, op string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, `{"id":"`+id+`","op":`+op+"}\n"); err != nil {
		p.t.Fatalf("send %s: %v", id, err)
	}
}

// until reads events until one of type typ arrives and returns every event read.
func (p *protoSession) until(typ string) []map[string]any {
	p.t.Helper()
	var seen []map[string]any
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-p.events:
			if !ok {
				p.t.Fatalf("stream ended before %s; saw %v", typ, msgTypes(seen))
			}
			seen = append(seen, ev)
			if msgType(ev) == typ {
				return seen
			}
		case <-timeout:
			p.t.Fatalf("no %s within 30s; saw %v", typ, msgTypes(seen))
		}
	}
}

func msgType(ev map[string]any) string {
	msg, _ := ev["msg"].(map[string]any)
	s, _ := msg["type"].(string)
	return s
}

func msgTypes(evs []map[string]any) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, msgType(ev))
	}
	return out
}

func userInput(text string) string {
	b, _ := json.Marshal(text)
	return `{"type":"user_input","items":[{"type":"text","text":` + string(b) + `}]}`
}

func TestProtoTwoTurnsOnOneThread(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("first answer"), answer("second answer"))
	p := e.startProto()
	first := p.until("session_configured")
	if first[0]["id"] == nil {
		t.Errorf("session_configured has no id: %v", first[0])
	}
	p.send("1", userInput("one"))
	evs := p.until("task_complete")
	if !contains(msgTypes(evs), "agent_message") {
		t.Errorf("turn 1 events: %v", msgTypes(evs))
	}
	for _, ev := range evs {
		if ev["id"] != "1" && msgType(ev) != "session_configured" {
			t.Errorf("event %s carries id %v, want the submission id 1", msgType(ev), ev["id"])
		}
	}
	p.send("2", userInput("two"))
	evs = p.until("task_complete")
	last := evs[len(evs)-1]["msg"].(map[string]any)
	if last["last_agent_message"] != "second answer" {
		t.Errorf("turn 2 last_agent_message = %v", last["last_agent_message"])
	}
	// The second request carries the whole conversation.
	reqs := e.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	body, _ := json.Marshal(reqs[1].JSON["input"])
	for _, want := range []string{"one", "first answer", "two"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("second request lacks %q", want)
		}
	}
	p.send("3", `{"type":"shutdown"}`)
	p.until("shutdown_complete")
}

func TestProtoInterrupt(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(tk.Stall(2, tk.Created(), tk.TextDelta("thinking")), answer("after interrupt"))
	p := e.startProto()
	p.until("session_configured")
	p.send("1", userInput("long task"))
	p.until("agent_message_delta")
	p.send("2", `{"type":"interrupt"}`)
	evs := p.until("turn_aborted")
	msg := evs[len(evs)-1]["msg"].(map[string]any)
	if msg["reason"] != "interrupted" {
		t.Errorf("turn_aborted reason = %v", msg["reason"])
	}
	// The thread goes on: a new turn works.
	p.send("3", userInput("again"))
	p.until("task_complete")
	p.stdin.Close()
	p.until("shutdown_complete")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
