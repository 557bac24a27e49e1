package e2e

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// The error notifications of a turn whose model stream fails are shaped as Codex 0.169
// shapes them: every retry notice says responseStreamDisconnected, a stream cut or stalled
// until the retries run out ends the turn with "other", and a failed turn's turn/completed
// carries no items ("notLoaded"). want was recorded from codex 0.169 on the same scripts
// (the test also runs the reference live where it is installed).
func TestAppServerStreamErrorsLikeCodex(t *testing.T) {
	retry := `{"responseStreamDisconnected":{"httpStatusCode":null}}`
	cut := func() tk.Response {
		return tk.Cut(2, tk.Created(), tk.AssistantMessageStream("msg_1", "Hel", "lo"), tk.Completed(tk.Usage{}))
	}
	stall := func() tk.Response {
		return tk.Stall(2, tk.Created(), tk.AssistantMessageStream("msg_1", "Hel", "lo"), tk.Completed(tk.Usage{}))
	}
	cases := []struct {
		name   string
		script func() []tk.Response
		want   []string
	}{
		{"cut stream, then an answer", func() []tk.Response {
			return []tk.Response{cut(), answer("Hello")}
		}, []string{"error willRetry=true " + retry, "turn/completed completed summary items=1"}},
		{"cut until the retries run out", func() []tk.Response {
			return []tk.Response{cut(), cut(), cut()}
		}, []string{"error willRetry=true " + retry, `error willRetry=false "other"`, `turn/completed failed notLoaded items=0 "other"`}},
		{"stalled until the retries run out", func() []tk.Response {
			return []tk.Response{stall(), stall(), stall()}
		}, []string{"error willRetry=true " + retry, `error willRetry=false "other"`, `turn/completed failed notLoaded items=0 "other"`}},
		{"HTTP 500 until the retries run out", func() []tk.Response {
			return []tk.Response{tk.Status(500), tk.Status(500), tk.Status(500), tk.Status(500)}
		}, []string{"error willRetry=true " + retry, `error willRetry=false "internalServerError"`, `turn/completed failed notLoaded items=0 "internalServerError"`}},
	}
	ref := os.Getenv("GOCODEX_REFERENCE_CODEX")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := streamErrorShapes(t, binary, c.script())
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-codex 0.169 +ours):\n%s", diff)
			}
			if ref != "" {
				if diff := cmp.Diff(streamErrorShapes(t, ref, c.script()), got); diff != "" {
					t.Errorf("(-live codex +ours):\n%s", diff)
				}
			}
		})
	}
}

// streamErrorShapes runs one turn on the script and sums up its error and turn/completed
// notifications.
func streamErrorShapes(t *testing.T, bin string, script []tk.Response) []string {
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{RequestMaxRetries: tk.Int(1), StreamMaxRetries: tk.Int(1), StreamIdleTimeoutMS: tk.Int(300)})
	e.Model.Enqueue(script...)
	c, stop := e.startAppServerOf(bin)
	defer stop()
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	c.turn(id, "hi")
	var out []string
	for _, m := range c.until("turn/completed") {
		var p struct {
			Error *struct {
				CodexErrorInfo json.RawMessage `json:"codexErrorInfo"`
			} `json:"error"`
			WillRetry bool `json:"willRetry"`
			Turn      *struct {
				Status    string            `json:"status"`
				ItemsView string            `json:"itemsView"`
				Items     []json.RawMessage `json:"items"`
				Error     *struct {
					CodexErrorInfo json.RawMessage `json:"codexErrorInfo"`
				} `json:"error"`
			} `json:"turn"`
		}
		_ = json.Unmarshal(m.Params, &p)
		switch m.Method {
		case "error":
			s := "error willRetry=false "
			if p.WillRetry {
				s = "error willRetry=true "
			}
			out = append(out, s+string(p.Error.CodexErrorInfo))
		case "turn/completed":
			s := "turn/completed " + p.Turn.Status + " " + p.Turn.ItemsView + " items=" + itoa(len(p.Turn.Items))
			if p.Turn.Error != nil {
				s += " " + string(p.Turn.Error.CodexErrorInfo)
			}
			out = append(out, s)
		}
	}
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
