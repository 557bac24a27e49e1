package e2e

import (
	"fmt"
	"os"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

func TestZZDebugRaw(t *testing.T) {
	for _, bin := range []string{binary, os.Getenv("GOCODEX_REFERENCE_CODEX")} {
		e := newEnv(t)
		tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{RequestMaxRetries: tk.Int(1), StreamMaxRetries: tk.Int(0), Extra: os.Getenv("ZZ_EXTRA")})
		e.Model.Enqueue(patchCall("c1", "b.txt"), answer("patched"))
		c, stop := e.startAppServerOf(bin)
		var msgs []rpcMsg
		c.traced = &msgs
		c.keepRequests = true
		id := c.startThread(map[string]any{"cwd": e.Workdir})
		c.turn(id, "patch")
		c.until("turn/completed")
		stop()
		fmt.Println("BIN", bin)
		for _, m := range msgs {
			if m.Method == "item/agentMessage/delta" || m.Method == "thread/tokenUsage/updated" {
				continue
			}
			fmt.Println(m.Method, string(m.Params)[:min(400, len(m.Params))])
		}
	}
}
