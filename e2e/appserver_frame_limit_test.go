package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// Frame limits (measured against Codex 0.169): Codex serves stdio lines of any size (a
// 100 MiB line was served) and websocket messages up to 16 MiB (16,383 KiB served,
// 16,384 KiB resets the connection). gocodex serves the same sizes up to jsonrpc.DefaultMaxFrame
// on stdio; beyond a limit it answers -32600 and keeps the connection.

// bigImageURL is a data URL of about n bytes (not a real picture: the engine passes it on).
func bigImageURL(n int) string {
	return "data:image/png;base64," + strings.Repeat("A", n)
}

// A 10 MiB image in turn/start reaches the model, over stdio.
func TestAppServerTakesTenMiBImageStdio(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("a big picture"))
	r := e.startRawAppServer()
	r.initialize()
	r.send(`{"id":1,"method":"thread/start","params":{"cwd":` + jsonString(e.Workdir) + `}}`)
	thread := r.response(1)["result"].(map[string]any)["thread"].(map[string]any)["id"].(string)
	url := bigImageURL(10 << 20)
	r.send(fmt.Sprintf(`{"id":2,"method":"turn/start","params":{"threadId":%q,"input":[{"type":"text","text":"what is this?"},{"type":"image","url":%q}]}}`, thread, url))
	if m := r.response(2); m["result"] == nil {
		t.Fatalf("turn/start with a 10 MiB image: %.300v", m)
	}
	for m := r.next(); m["method"] != "turn/completed"; m = r.next() {
	}
	input, _ := json.Marshal(e.Model.Requests()[0].JSON["input"])
	if !strings.Contains(string(input), url) {
		t.Errorf("the 10 MiB image is not in the model's request (%d bytes)", len(input))
	}
}

// Over a websocket: 10 MiB and 16 MiB messages are served; one byte more is answered
// -32600 and the connection lives (Codex drops it).
func TestAppServerWebsocketFrameLimit(t *testing.T) {
	e := newEnv(t)
	p, addr := e.wsAppServer()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+addr+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(-1)
	send := func(frame string) error { return ws.Write(ctx, websocket.MessageText, []byte(frame)) }
	answer := func(id float64) map[string]any {
		t.Helper()
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				t.Fatalf("waiting for %v: %v\nstderr: %s", id, err, p.stderr.String())
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("frame is not JSON: %.200q", b)
			}
			if m["id"] == id && m["method"] == nil {
				return m
			}
		}
	}
	if err := send(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"n","version":"1"}}}`); err != nil {
		t.Fatal(err)
	}
	answer(1)
	// A frame of exactly n bytes: a thread/start whose cwd does not exist, answered -32600/-32602.
	frame := func(id, n int) string {
		head := fmt.Sprintf(`{"id":%d,"method":"thread/start","params":{"cwd":"/`, id)
		tail := `"}}`
		return head + strings.Repeat("d", n-len(head)-len(tail)) + tail
	}
	for id, n := range map[int]int{2: 10 << 20, 3: 16 << 20} {
		if err := send(frame(id, n)); err != nil {
			t.Fatal(err)
		}
		if m := answer(float64(id)); m["error"] == nil && m["result"] == nil {
			t.Errorf("%d-byte frame: %.300v", n, m)
		}
	}
	if err := send(frame(4, 16<<20+1)); err != nil {
		t.Fatal(err)
	}
	if m := answer(4); m["error"] == nil || m["error"].(map[string]any)["code"] != float64(-32600) {
		t.Errorf("frame over 16 MiB: %.300v", m)
	}
	if err := send(`{"id":5,"method":"initialize","params":{"clientInfo":{"name":"n","version":"1"}}}`); err != nil {
		t.Fatal(err)
	}
	answer(5) // still serving
}
