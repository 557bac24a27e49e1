package e2e

import (
	"os"
	"testing"
)

// turn/interrupt once the turn is over is refused as Codex 0.169 refuses it (it used to
// answer success).
func TestAppServerInterruptFinishedTurn(t *testing.T) {
	bins := []string{binary}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		bins = append(bins, ref)
	}
	for _, bin := range bins {
		e := appServerEnv(t, "never")
		e.Model.Enqueue(answer("done"))
		c, _ := e.startAppServerOf(bin)
		id := c.startThread(map[string]any{"cwd": e.Workdir})
		turn := c.turn(id, "hi")
		c.until("turn/completed")
		_, er := c.call("turn/interrupt", map[string]any{"threadId": id, "turnId": turn})
		if er == nil || er.Error.Code != -32600 || er.Error.Message != "no active turn to interrupt" {
			t.Errorf("%s: turn/interrupt after the turn: %+v", bin, er)
		}
	}
}
