package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// benchEnv is newEnv for benchmarks: one CODEX_HOME and work tree for all iterations.
func benchEnv(b *testing.B) *env {
	b.Helper()
	e := &env{CodexHome: b.TempDir(), Workdir: b.TempDir(), Model: tk.NewServer(b)}
	if out, err := exec.Command("git", "init", "-q", e.Workdir).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	tk.WriteConfig(b, e.CodexHome, e.Model.URL())
	return e
}

// runBench runs the binary once and returns its wall time and peak RSS in KiB.
func (e *env) runBench(b *testing.B, args ...string) (time.Duration, int64) {
	cmd := exec.Command(binary, args...)
	cmd.Dir = e.Workdir
	cmd.Env = e.environ()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("gocodex %v: %v\n%s", args, err, stderr.String())
	}
	wall := time.Since(start)
	return wall, peakRSSKiB(cmd.ProcessState)
}

// BenchmarkExecOneMessageTurn is `gocodex exec --json` for a one-message turn against the
// local scripted server: spawn to exit. It reports the median wall time and the peak RSS.
func BenchmarkExecOneMessageTurn(b *testing.B) {
	b.Run("ephemeral", func(b *testing.B) { benchOneMessageTurn(b, "--ephemeral") })
	b.Run("recorded", func(b *testing.B) { benchOneMessageTurn(b) })
}

func benchOneMessageTurn(b *testing.B, extra ...string) {
	e := benchEnv(b)
	e.Model.SetDefault(answer("Hello world"))
	var walls []time.Duration
	var peak int64
	args := append(append([]string{"exec", "--json"}, extra...), "hi")
	for b.Loop() {
		wall, rss := e.runBench(b, args...)
		walls = append(walls, wall)
		peak = max(peak, rss)
	}
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	b.ReportMetric(float64(walls[len(walls)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MiB")
}

// BenchmarkExecDeltaThroughput streams one answer of 100,000 text deltas from SSE bytes
// through the model client, the thread and the exec JSONL writer, and reports deltas per
// second of the whole process (spawn included).
func BenchmarkExecDeltaThroughput(b *testing.B) {
	const deltas = 100_000
	e := benchEnv(b)
	chunks := make([]string, deltas)
	for i := range chunks {
		chunks[i] = "tok "
	}
	e.Model.SetDefault(tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_1", chunks...), tk.Completed(tk.Usage{Input: 1, Output: deltas, Total: deltas + 1})))
	var total time.Duration
	for b.Loop() {
		wall, _ := e.runBench(b, "exec", "--json", "--ephemeral", "hi")
		total += wall
	}
	b.ReportMetric(float64(deltas)*float64(b.N)/total.Seconds(), "deltas/s")
}

// TestBinarySize keeps the static binary, stripped as it ships, small (Codex ships 281 MiB;
// our budget is 32 MiB: 26 MiB before issue 35, whose LSP library, go.lsp.dev/protocol with
// its JSON package, weighs about 4 MiB of the rest).
func TestBinarySize(t *testing.T) {
	st, err := os.Stat(binary)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %.1f MiB", filepath.Base(binary), float64(st.Size())/(1<<20))
	if st.Size() > 32<<20 {
		t.Errorf("binary is %.1f MiB, over the 32 MiB budget", float64(st.Size())/(1<<20))
	}
	out, err := exec.Command("file", binary).Output()
	if err == nil && !strings.Contains(string(out), "statically linked") {
		t.Errorf("binary is not static: %s", out)
	}
}
