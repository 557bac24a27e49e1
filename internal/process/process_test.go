package process

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func sh(script string) []string { return []string{"/bin/sh", "-c", script} }

func TestRunCapturesStreamsInOrder(t *testing.T) {
	var mu sync.Mutex
	var chunks []string
	spec := Spec{
		Argv: sh("printf out; printf err >&2"),
		Env:  os.Environ(),
		OnOutput: func(s Stream, b []byte) {
			mu.Lock()
			chunks = append(chunks, s.String()+":"+string(b))
			mu.Unlock()
		},
	}
	r, err := Run(context.Background(), spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != 0 || r.TimedOut {
		t.Errorf("exit %d timedOut %v", r.ExitCode, r.TimedOut)
	}
	if got := string(r.Stdout.Bytes); got != "out" {
		t.Errorf("stdout %q", got)
	}
	if got := string(r.Stderr.Bytes); got != "err" {
		t.Errorf("stderr %q", got)
	}
	if got := r.Aggregated.Text(); len(got) != 6 {
		t.Errorf("aggregated %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"stdout:out", "stderr:err"}, chunks, cmpSorted()); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
}

func cmpSorted() cmp.Option {
	return cmp.Transformer("sort", func(in []string) []string {
		out := append([]string(nil), in...)
		for i := range out {
			for j := i + 1; j < len(out); j++ {
				if out[j] < out[i] {
					out[i], out[j] = out[j], out[i]
				}
			}
		}
		return out
	})
}

func TestRunExitCodes(t *testing.T) {
	tests := []struct {
		script string
		want   int
	}{
		{"exit 0", 0},
		{"exit 3", 3},
		{"kill -TERM $$", 143},
		{"kill -KILL $$", 137},
	}
	for _, tt := range tests {
		r, err := Run(context.Background(), Spec{Argv: sh(tt.script)}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if r.ExitCode != tt.want {
			t.Errorf("%q: exit %d, want %d", tt.script, r.ExitCode, tt.want)
		}
	}
}

func TestRunSpawnFailure(t *testing.T) {
	if _, err := Run(context.Background(), Spec{Argv: []string{"/nonexistent/command"}}, 0); err == nil {
		t.Fatal("want an error for a missing program")
	}
	if _, err := Run(context.Background(), Spec{}, 0); err == nil {
		t.Fatal("want an error for an empty argv")
	}
}

func TestRunTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	// The grandchild would write the marker if it survived the group kill.
	script := "echo started; (sleep 2; touch " + dir + "/survived) & sleep 30"
	r, err := Run(context.Background(), Spec{Argv: sh(script)}, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !r.TimedOut || r.ExitCode != TimeoutExitCode {
		t.Fatalf("timedOut %v exit %d", r.TimedOut, r.ExitCode)
	}
	if !strings.HasPrefix(r.Content(), "command timed out after ") || !strings.HasSuffix(r.Content(), " milliseconds\nstarted\n") {
		t.Errorf("content %q", r.Content())
	}
	time.Sleep(2500 * time.Millisecond)
	if _, err := os.Stat(dir + "/survived"); err == nil {
		t.Error("grandchild survived the timeout kill")
	}
}

func TestRunCancelKillsPromptly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var once sync.Once
	spec := Spec{
		Argv:     sh("echo go; sleep 30"),
		OnOutput: func(Stream, []byte) { once.Do(func() { close(started) }) },
	}
	errc := make(chan error, 1)
	go func() {
		_, err := Run(ctx, spec, 0)
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

// A background grandchild that keeps stdout open must not hold the call past the drain.
func TestRunDoesNotWaitForBackgroundHolders(t *testing.T) {
	p, err := Start(context.Background(), Spec{Argv: sh("sleep 30 & echo done")})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Exited()
	p.Kill() // also ends the stray sleep, which shares the group
	<-p.Done()
	agg, _, _ := p.Output()
	if got := string(agg.Bytes); got != "done\n" {
		t.Errorf("output %q", got)
	}
}

func TestRetainLimitKeepsHead(t *testing.T) {
	r, err := Run(context.Background(), Spec{Argv: sh("head -c 5000 /dev/zero | tr '\\0' a; printf END"), RetainLimit: 1000}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Aggregated.Bytes) != 1000 || r.Aggregated.Dropped != 4003 {
		t.Errorf("kept %d dropped %d", len(r.Aggregated.Bytes), r.Aggregated.Dropped)
	}
	if !bytes.Equal(r.Aggregated.Bytes, bytes.Repeat([]byte("a"), 1000)) {
		t.Error("head not kept")
	}
}

func TestMaxChunksLimitsCallbacks(t *testing.T) {
	n := 0
	spec := Spec{
		Argv:      sh("for i in 1 2 3 4 5 6 7 8 9 10; do echo $i; sleep 0.01; done"),
		MaxChunks: 3,
		OnOutput:  func(Stream, []byte) { n++ },
	}
	r, err := Run(context.Background(), spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("callbacks %d, want 3", n)
	}
	if got := strings.Count(r.Aggregated.Text(), "\n"); got != 10 {
		t.Errorf("captured %d lines, want all 10", got)
	}
}

func TestEnvAndCwdReachTheCommand(t *testing.T) {
	dir := t.TempDir()
	env := BuildEnv(EnvPolicy{Inherit: InheritCore, IgnoreDefaultExcludes: true}, os.Environ(), EnvOptions{ThreadID: "t1", NetworkDisabled: true})
	r, err := Run(context.Background(), Spec{Argv: sh("pwd; echo $CODEX_THREAD_ID $CODEX_SANDBOX_NETWORK_DISABLED"), Cwd: dir, Env: env}, 0)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if real == "" {
		real = dir
	}
	if got := r.Aggregated.Text(); got != real+"\nt1 1\n" {
		t.Errorf("output %q", got)
	}
}

func TestSpawnerWrapsCommand(t *testing.T) {
	var gotArgv []string
	wrap := func(ctx context.Context, argv []string, cwd string, env []string) (*exec.Cmd, error) {
		gotArgv = argv
		return PlainCommand(ctx, append([]string{"/usr/bin/env"}, argv...), cwd, env)
	}
	r, err := Run(context.Background(), Spec{Argv: []string{"echo", "wrapped"}, Spawner: wrap}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Aggregated.Text() != "wrapped\n" || len(gotArgv) != 2 {
		t.Errorf("output %q argv %v", r.Aggregated.Text(), gotArgv)
	}
}

func TestPTYInteractive(t *testing.T) {
	var mu sync.Mutex
	var out bytes.Buffer
	got := make(chan struct{}, 16)
	spec := Spec{
		Argv: sh("stty size; while read line; do echo \"got:$line\"; done"),
		TTY:  true,
		OnOutput: func(_ Stream, b []byte) {
			mu.Lock()
			out.Write(b)
			mu.Unlock()
			got <- struct{}{}
		},
	}
	p, err := Start(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.Kill(); <-p.Done() }()
	waitFor := func(want string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			mu.Lock()
			s := out.String()
			mu.Unlock()
			if strings.Contains(s, want) {
				return
			}
			select {
			case <-got:
			case <-deadline:
				t.Fatalf("never saw %q in %q", want, s)
			}
		}
	}
	waitFor("24 80\r\n")
	if err := p.Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	waitFor("got:hello\r\n")
	if err := p.Write([]byte{4}); err != nil { // ^D ends the read loop
		t.Fatal(err)
	}
	<-p.Done()
	if p.ExitCode() != 0 {
		t.Errorf("exit %d", p.ExitCode())
	}
}

func TestWriteWithoutStdin(t *testing.T) {
	p, err := Start(context.Background(), Spec{Argv: sh("cat")})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write([]byte("x")); !errors.Is(err, ErrStdinClosed) {
		t.Errorf("err %v", err)
	}
	<-p.Done() // cat reads /dev/null and exits
}

func TestPipeStdin(t *testing.T) {
	var mu sync.Mutex
	var out bytes.Buffer
	p, err := Start(context.Background(), Spec{Argv: []string{"cat"}, Stdin: true, OnOutput: func(_ Stream, b []byte) {
		mu.Lock()
		out.Write(b)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i++ {
		mu.Lock()
		s := out.String()
		mu.Unlock()
		if s == "ping\n" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.Kill()
	<-p.Done()
	mu.Lock()
	defer mu.Unlock()
	if out.String() != "ping\n" {
		t.Errorf("out %q", out.String())
	}
}

func BenchmarkCaptureThroughput(b *testing.B) {
	const size = 64 << 20 // well past the 1 MiB cap: measures streaming, not storing
	b.SetBytes(size)
	for i := 0; i < b.N; i++ {
		r, err := Run(context.Background(), Spec{Argv: sh("head -c 67108864 /dev/zero"), OnOutput: func(Stream, []byte) {}, MaxChunks: -1}, 0)
		if err != nil {
			b.Fatal(err)
		}
		if int64(len(r.Aggregated.Bytes))+r.Aggregated.Dropped != size {
			b.Fatalf("lost output: kept %d dropped %d", len(r.Aggregated.Bytes), r.Aggregated.Dropped)
		}
	}
}

func TestLikelySandboxDenied(t *testing.T) {
	out := func(s string) Output { return Output{Bytes: []byte(s)} }
	tests := []struct {
		name string
		r    Result
		want bool
	}{
		{"success is never denied", Result{ExitCode: 0, Stderr: out("permission denied")}, false},
		{"permission denied", Result{ExitCode: 1, Stderr: out("touch: /etc/x: Permission denied")}, true},
		{"read-only fs in aggregated", Result{ExitCode: 1, Aggregated: out("Read-only file system")}, true},
		{"plain failure", Result{ExitCode: 1, Stderr: out("boom")}, false},
		{"command not found", Result{ExitCode: 127}, false},
		{"sigsys", Result{ExitCode: 128 + 31}, true},
		{"timeout", Result{ExitCode: 124, TimedOut: true, Stderr: out("sandbox")}, false},
	}
	for _, tt := range tests {
		if got := LikelySandboxDenied(tt.r); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

// BenchmarkCancelLatency measures how long Run takes to return after its context is
// cancelled while the command is still running (an interrupt must end a turn in 100 ms).
func BenchmarkCancelLatency(b *testing.B) {
	var total time.Duration
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		started := make(chan struct{})
		var once sync.Once
		spec := Spec{Argv: sh("echo up; sleep 30"), OnOutput: func(Stream, []byte) { once.Do(func() { close(started) }) }}
		done := make(chan time.Time, 1)
		go func() {
			_, _ = Run(ctx, spec, 0)
			done <- time.Now()
		}()
		<-started
		t0 := time.Now()
		cancel()
		total += (<-done).Sub(t0)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/cancel")
}
