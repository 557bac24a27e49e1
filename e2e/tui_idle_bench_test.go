package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// idleWindow is how long BenchmarkTUIIdle watches the idle UIs: 30 s as issue 19 asks,
// GOCODEX_TUI_IDLE_SECONDS to shorten it for a smoke run.
func idleWindow() time.Duration {
	if s, err := strconv.Atoi(os.Getenv("GOCODEX_TUI_IDLE_SECONDS")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 30 * time.Second
}

// idleUI is one interactive UI running in its own terminal (tmux), left alone.
type idleUI struct {
	pid  int
	pane *tmuxPane
}

func startIdleUI(b *testing.B, bin string) idleUI { return startIdleUIWith(b, bin, "") }

// statusLineConfig turns on a status line and terminal title with every item gocodex draws.
const statusLineConfig = `
[tui]
status_line = ["model-with-reasoning", "current-dir", "git-branch", "run-state", "context-remaining", "used-tokens", "fast-mode", "thread-id"]
terminal_title = ["activity", "project-name", "git-branch", "run-state"]
`

// startIdleUIWith is startIdleUI with extra config.toml text.
func startIdleUIWith(b *testing.B, bin, extraConfig string) idleUI {
	b.Helper()
	e := benchEnv(b)
	home := b.TempDir()
	// The work tree is trusted up front so both UIs go straight to their composer.
	f, err := os.OpenFile(filepath.Join(e.CodexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	// Codex 0.169 first offers a newer model on a screen of its own; this records it as seen.
	fmt.Fprintf(f, "\n[projects.%q]\ntrust_level = \"trusted\"\n\n[notice.model_migrations]\n\"gpt-5.5\" = \"gpt-6-sol\"\n\n[tui.model_availability_nux]\n\"gpt-6.1-sol\" = 1\n", e.Workdir)
	fmt.Fprint(f, extraConfig)
	f.Close()
	withoutCodexDaemon(b, e.CodexHome)
	env := append(e.environ(), "HOME="+home, "TERM=xterm-256color")
	if path := os.Getenv("PATH"); path != "" {
		env = append(env, "PATH="+path)
	}
	pane := startTmux(b, env, e.Workdir, 120, 40, bin)
	return idleUI{pid: pane.pid, pane: pane}
}

// cpuTicks is the process's user+system time in clock ticks (/proc/PID/stat fields 14, 15).
func cpuTicks(b *testing.B, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return utime + stime
}

// contextSwitches is each thread's voluntary plus involuntary switches (each one a wake-up
// of the process), by thread id.
func contextSwitches(b *testing.B, pid int) map[string]int64 {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]int64{}
	for _, p := range tasks {
		data, err := os.ReadFile(p)
		if err != nil {
			continue // a thread that ended
		}
		tid := filepath.Base(filepath.Dir(p))
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "ctxt_switches:") {
				v, _ := strconv.ParseInt(strings.TrimSpace(line[strings.IndexByte(line, ':')+1:]), 10, 64)
				out[tid] += v
			}
		}
	}
	return out
}

// wakeups is how many switches happened between two readings: threads that ended in
// between are left out (their counts are gone), threads that started count whole.
func wakeups(before, after map[string]int64) int64 {
	var n int64
	for tid, v := range after {
		n += v - before[tid]
	}
	return n
}

// BenchmarkTUIIdle opens gocodex's terminal UI (and the reference Codex's, when
// GOCODEX_REFERENCE_CODEX names it, side by side in the same window so both see the same
// machine), lets them settle, then measures their CPU use and wake-ups over idleWindow with
// nothing on screen changing. Issue 19's goal: under 0.2% of a core.
//
//	go test ./e2e -run '^$' -bench TUIIdle -benchtime 1x
func BenchmarkTUIIdle(b *testing.B) {
	const clockTicks = 100 // USER_HZ on Linux
	for i := 0; i < b.N; i++ {
		uis := map[string]idleUI{"gocodex": startIdleUI(b, binary),
			"gocodex-statusline": startIdleUIWith(b, binary, statusLineConfig)}
		if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
			uis["codex"] = startIdleUI(b, ref)
		}
		time.Sleep(5 * time.Second) // start-up, first frames, background loading
		cpu0, sw0 := map[string]int64{}, map[string]map[string]int64{}
		for name, ui := range uis {
			cpu0[name], sw0[name] = cpuTicks(b, ui.pid), contextSwitches(b, ui.pid)
		}
		window := idleWindow()
		time.Sleep(window)
		pct := map[string]float64{}
		for name, ui := range uis {
			if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", ui.pid)); bytes.Contains(st, []byte(") Z ")) {
				b.Fatalf("%s exited while idle; its screen:\n%s", name, ui.pane.capture())
			}
			cpu := float64(cpuTicks(b, ui.pid)-cpu0[name]) / clockTicks
			pct[name] = 100 * cpu / window.Seconds()
			b.ReportMetric(pct[name], name+"-%core")
			b.ReportMetric(float64(wakeups(sw0[name], contextSwitches(b, ui.pid)))/window.Seconds(), name+"-wakeups/s")
			b.Logf("%s's screen:\n%s", name, ui.pane.capture())
			ui.pane.kill()
		}
		if c, ok := pct["codex"]; ok && c > 0 {
			b.ReportMetric(pct["gocodex"]/c, "gocodex/codex-cpu")
		}
	}
}
