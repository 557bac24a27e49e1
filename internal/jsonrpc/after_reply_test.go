package jsonrpc

import (
	"context"
	"testing"
)

// What AfterReply registers is queued right after the answer, by the goroutine that
// answers: a notification a later request causes comes after it. A registration after the
// answer runs at once.
func TestAfterReplyFollowsTheAnswer(t *testing.T) {
	late := make(chan struct{})
	_, p := startConn(t, ConnOptions{Handle: func(ctx context.Context, c *Conn, req *Request) {
		switch req.Method {
		case "resume":
			go func() { // handlers answer from goroutines of their own, as the app-server's do
				AfterReply(ctx, func() { c.Notify(context.Background(), "resumed", nil) })
				c.Reply(ctx, req.ID, map[string]any{}, nil)
				AfterReply(ctx, func() { close(late) })
			}()
		case "turn":
			go func() {
				c.Notify(context.Background(), "turn/started", nil)
				c.Reply(ctx, req.ID, map[string]any{}, nil)
			}()
		}
	}})
	p.send(`{"id":1,"method":"resume"}`)
	got := []string{p.recv()}
	p.send(`{"id":2,"method":"turn"}`)
	got = append(got, p.recv(), p.recv(), p.recv())
	want := []string{`{"id":1,"result":{}}`, `{"method":"resumed"}`, `{"method":"turn/started"}`, `{"id":2,"result":{}}`}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("frames %q, want %q", got, want)
		}
	}
	<-late
}

// Outside a request, AfterReply is context.AfterFunc.
func TestAfterReplyOutsideARequest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	AfterReply(ctx, func() { close(ran) })
	cancel()
	<-ran
}
