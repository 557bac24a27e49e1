package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// Usage is what one finished process cost: wall time from spawn to exit, CPU time (user +
// system, its waited-for children included) and peak resident memory, from wait4's rusage.
type Usage struct {
	Start   time.Time // when the launcher started the program
	Wall    time.Duration
	CPU     time.Duration
	PeakRSS int64 // bytes
	Exit    int
}

// readReport reads what cmd/measure wrote about the program it ran.
func readReport(path string) (Usage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Usage{}, fmt.Errorf("the launcher wrote no report: %w", err)
	}
	var start, wall, user, sys, rss int64
	var code int
	if _, err := fmt.Sscanf(string(b), "%d %d %d %d %d %d", &start, &wall, &user, &sys, &rss, &code); err != nil {
		return Usage{}, fmt.Errorf("launcher report %q: %w", b, err)
	}
	return Usage{Start: time.Unix(0, start), Wall: time.Duration(wall), CPU: time.Duration(user + sys), PeakRSS: rss * 1024, Exit: code}, nil
}

// reportCounter names report files uniquely within a run.
var reportCounter atomic.Int64

// launch prepares cmd to run bin through the launcher (cmd/measure) and returns the path of
// the report it will write.
func launch(sb Sandbox, ctx context.Context, bin string, args ...string) (*exec.Cmd, string) {
	report := filepath.Join(os.TempDir(), fmt.Sprintf("gocodex-bench-%d-%d.report", os.Getpid(), reportCounter.Add(1)))
	var cmd *exec.Cmd
	if ctx != nil {
		cmd = exec.CommandContext(ctx, sb.Launcher, append([]string{report, bin}, args...)...)
	} else {
		cmd = exec.Command(sb.Launcher, append([]string{report, bin}, args...)...)
	}
	cmd.Dir = sb.Work
	cmd.Env = sb.environ()
	return cmd, report
}

// Sandbox is the private world a measured program runs in: its own HOME and CODEX_HOME
// (config.toml pointing at the scripted model) and a work directory.
type Sandbox struct {
	Home, CodexHome, Work string
	// Launcher is cmd/measure, through which every program is started.
	Launcher string
}

// environ is the process environment of a run: the caller's, minus anything that could point
// the program at a real account or home, plus the sandbox's.
func (s Sandbox) environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CODEX_") || strings.HasPrefix(k, "OPENAI_") || k == "HOME" ||
			strings.HasPrefix(k, "XDG_") || k == "RUST_LOG" || k == "GOCODEX_LOG" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "HOME="+s.Home, "CODEX_HOME="+s.CodexHome, "MOCK_API_KEY=bench-key", "NO_COLOR=1")
}

// runOnce runs bin with args to completion in the sandbox, bounded by timeout, and returns
// its usage; a non-zero exit is an error carrying the end of its stderr.
func runOnce(sb Sandbox, timeout time.Duration, bin string, args ...string) (Usage, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd, report := launch(sb, ctx, bin, args...)
	defer os.Remove(report)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("timed out after %s", timeout)
		}
		return Usage{}, stdout.Bytes(), fmt.Errorf("%s %s: %w\n%s", bin, strings.Join(args, " "), err, tail(stderr.Bytes(), 2000))
	}
	u, err := readReport(report)
	return u, stdout.Bytes(), err
}

// tail is the last n bytes of b, for error messages.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// currentRSS reads VmRSS of a live process from /proc, in bytes (0 if unknown).
func currentRSS(pid int) int64 { return procStatus(pid)["VmRSS"] }

// procStatus reads the memory lines (kB) of /proc/PID/status, in bytes: VmRSS, and its parts
// RssAnon (heap, stacks) and RssFile (the pages of the binary and files mapped).
func procStatus(pid int) map[string]int64 {
	out := map[string]int64{}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || !strings.HasSuffix(v, "kB") {
			continue
		}
		var kib int64
		if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d", &kib); err == nil {
			out[k] = kib * 1024
		}
	}
	return out
}
