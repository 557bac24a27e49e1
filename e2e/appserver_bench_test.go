package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"
)

// appServerOneTurn spawns `<bin> app-server`, runs initialize, thread/start and a one-message
// turn, and returns the time from spawn to turn/completed.
func (e *env) appServerOneTurn(b *testing.B, bin string) time.Duration {
	cmd := exec.Command(bin, "app-server")
	cmd.Dir = e.Workdir
	cmd.Env = e.environ()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stdin.Close()
		go io.Copy(io.Discard, stdout)
		stopProcess(cmd, nil)
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	until := func(pred func(m map[string]any) bool) map[string]any {
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && pred(m) {
				return m
			}
		}
		b.Fatalf("app-server output ended: %v", sc.Err())
		return nil
	}
	fmt.Fprintf(stdin, "%s\n%s\n%s\n",
		`{"id":0,"method":"initialize","params":{"clientInfo":{"name":"bench","version":"1"}}}`,
		`{"method":"initialized"}`,
		`{"id":1,"method":"thread/start","params":{"cwd":`+jsonString(e.Workdir)+`}}`)
	res := until(func(m map[string]any) bool { return m["id"] == float64(1) })
	id := res["result"].(map[string]any)["thread"].(map[string]any)["id"].(string)
	fmt.Fprintf(stdin, `{"id":2,"method":"turn/start","params":{"threadId":%q,"input":[{"type":"text","text":"hi"}]}}`+"\n", id)
	until(func(m map[string]any) bool { return m["method"] == "turn/completed" })
	return time.Since(start)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func benchOneTurn(b *testing.B, bin string) {
	e := benchEnv(b)
	e.Model.SetDefault(answer("Hello world"))
	var walls []time.Duration
	for b.Loop() {
		walls = append(walls, e.appServerOneTurn(b, bin))
	}
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	b.ReportMetric(float64(walls[len(walls)/2].Microseconds())/1000, "median-ms")
}

// BenchmarkAppServerOneTurn is spawn to turn/completed of a one-message turn through
// `gocodex app-server` over stdio (target < 60 ms).
//
//	go test ./e2e -run '^$' -bench AppServerOneTurn -benchtime 20x
func BenchmarkAppServerOneTurn(b *testing.B) { benchOneTurn(b, binary) }

// BenchmarkAppServerOneTurnReference is the same against Codex 0.169, when
// GOCODEX_REFERENCE_CODEX names it.
func BenchmarkAppServerOneTurnReference(b *testing.B) {
	ref := os.Getenv("GOCODEX_REFERENCE_CODEX")
	if ref == "" || strings.TrimSpace(ref) == "" {
		b.Skip("GOCODEX_REFERENCE_CODEX is not set")
	}
	benchOneTurn(b, ref)
}
