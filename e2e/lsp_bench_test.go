package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// TestLspBenchmark measures what diagnostics cost (issue 35's closing note): the wall time of
// an exec turn that applies one patch to a Go file, with the language servers on and with
// `lsp = false` (median of GOCODEX_LSP_BENCH runs each, alternated), and the resident memory
// of an idle gopls once it has answered. Run it with
//
//	GOCODEX_LSP_BENCH=15 go test -count=1 -v -run TestLspBenchmark ./e2e/
//
// Each turn is a new session, so "on" includes starting gopls; the second patch of a session
// costs only the settle (see internal/lsp).
func TestLspBenchmark(t *testing.T) {
	runs, _ := strconv.Atoi(os.Getenv("GOCODEX_LSP_BENCH"))
	if runs <= 0 {
		t.Skip("set GOCODEX_LSP_BENCH=<runs> to measure")
	}
	gopls := tk.Gopls(t)
	config := func(on bool) tk.ConfigOptions {
		opts := tk.ConfigOptions{SandboxMode: "workspace-write"}
		if !on {
			opts.Extra = "lsp = false\n"
		}
		return opts
	}
	// The servers' cache folder outlives a session, as ~/.cache/gocodex/lsp does.
	cache := t.TempDir()
	turn := func(on bool) time.Duration {
		e := lspEnv(t, gopls, config(on))
		e.ExtraEnv = append(e.ExtraEnv, "XDG_CACHE_HOME="+cache)
		e.Model.Enqueue(applyPatch("call_1", brokenEdit), answer("done"))
		start := time.Now()
		if r := e.run("", "exec", "--json", "edit"); r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		return time.Since(start)
	}
	var on, off []time.Duration
	for range runs {
		off = append(off, turn(false))
		on = append(on, turn(true))
	}
	t.Logf("exec turn with one patch, median of %d: lsp off %v, lsp on %v (gopls started in the turn): +%v",
		runs, medianDuration(off), medianDuration(on), medianDuration(on)-medianDuration(off))

	// One session making runs+1 patches: from the second on, gopls is running and a patch
	// costs the settle only. The idle server's memory is read at the end.
	session := func(on bool) (time.Duration, string) {
		e := lspEnv(t, gopls, config(on))
		e.ExtraEnv = append(e.ExtraEnv, "XDG_CACHE_HOME="+cache)
		for i := range runs + 1 {
			e.Model.Enqueue(applyPatch(fmt.Sprint("call_", i), fmt.Sprintf("*** Begin Patch\n*** Update File: main.go\n@@\n-func main() {}\n+func main() {}\n+func g%d() {}\n*** End Patch", i)))
		}
		e.Model.Enqueue(answer("done"))
		p := e.startProto()
		p.until("session_configured")
		p.send("1", userInput("edit"))
		var ends []time.Time
		for ev := range p.events {
			if msgType(ev) == "patch_apply_end" {
				ends = append(ends, time.Now())
			}
			if msgType(ev) == "task_complete" {
				break
			}
		}
		var gaps []time.Duration
		for i := 2; i < len(ends); i++ {
			gaps = append(gaps, ends[i].Sub(ends[i-1]))
		}
		var rss []string
		for _, pid := range serverProcesses(t, e.CodexHome) {
			for _, l := range strings.Split(readFile(t, filepath.Join("/proc", pid, "status")), "\n") {
				if strings.HasPrefix(l, "VmRSS:") || strings.HasPrefix(l, "VmHWM:") {
					rss = append(rss, strings.Join(strings.Fields(l), " "))
				}
			}
		}
		return medianDuration(gaps), strings.Join(rss, ", ")
	}
	offGap, _ := session(false)
	onGap, rss := session(true)
	t.Logf("patch to patch in one session, median of %d: lsp off %v, lsp on %v: +%v", runs-1, offGap, onGap, onGap-offGap)
	t.Logf("idle gopls after the session's patches: %s", rss)

	// A real workspace (GOCODEX_LSP_BENCH_WORKSPACE, e.g. this repository, with
	// GOCODEX_LSP_BENCH_FILE a Go file in it): the time of the first diagnostics call (gopls
	// starts and loads the workspace) and the idle server's memory afterwards.
	if dir, file := os.Getenv("GOCODEX_LSP_BENCH_WORKSPACE"), os.Getenv("GOCODEX_LSP_BENCH_FILE"); dir != "" && file != "" {
		e := lspEnv(t, gopls, tk.ConfigOptions{SandboxMode: "workspace-write"})
		// The developer's modules, read-only in the sandbox, as their own sessions see them.
		modcache, _ := exec.Command("go", "env", "GOMODCACHE").Output()
		e.ExtraEnv = append(e.ExtraEnv, "XDG_CACHE_HOME="+cache, "GOMODCACHE="+strings.TrimSpace(string(modcache)))
		e.Workdir = dir
		args, _ := json.Marshal(map[string]string{"path": file})
		e.Model.Enqueue(tk.SSE(tk.Created(), tk.FunctionCall("call_d", "diagnostics", string(args)), tk.Completed(tk.Usage{})), answer("done"))
		p := e.startProto()
		p.until("session_configured")
		start := time.Now()
		p.send("1", userInput("check"))
		p.until("task_complete")
		took := time.Since(start)
		time.Sleep(5 * time.Second) // idle
		for _, pid := range serverProcesses(t, e.CodexHome) {
			for _, l := range strings.Split(readFile(t, filepath.Join("/proc", pid, "status")), "\n") {
				if strings.HasPrefix(l, "VmRSS:") || strings.HasPrefix(l, "VmHWM:") {
					rss = strings.Join(strings.Fields(l), " ")
					t.Logf("%s: first diagnostics of %s in %v; idle gopls %s", dir, file, took, rss)
				}
			}
		}
	}
}

func medianDuration(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
