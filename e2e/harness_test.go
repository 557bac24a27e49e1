// Package e2e drives the built gocodex binary the way clients do: real processes, real pipes,
// real files, against the scripted model server of internal/testkit on 127.0.0.1.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocodex/gocodex/internal/testkit"
)

// binary is the gocodex executable built once for the whole suite.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gocodex-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "gocodex")
	// Built as it ships (README): static, without the symbol table and DWARF (stack traces keep
	// their function names and lines).
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", binary, "github.com/gocodex/gocodex/cmd/gocodex")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build gocodex: %v\n%s", err, out)
		os.Exit(1)
	}
	// No child reaches the developer's keyring (Codex's MCP sign-ins default to it when a
	// Secret Service answers): a test that wants one starts its own (testkit.StartKeyring).
	os.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/gocodex-e2e-no-session-bus")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one isolated world for a test: its own CODEX_HOME, a git work tree, and a scripted model.
type env struct {
	t         *testing.T
	CodexHome string
	Workdir   string
	Model     *testkit.Server
	ExtraEnv  []string
	// capabilities are sent at the app-server's initialize (nil: none).
	capabilities map[string]any
	// credential, when set, runs the app-server as that user (the attack suites run it as
	// nobody too).
	credential *credential
}

func newEnv(t *testing.T) *env {
	t.Helper()
	// HOME is the test's own too: nothing of the developer's ~/.agents or ~/.codex leaks in
	// (a test that sets HOME again wins: the last value counts).
	e := &env{t: t, CodexHome: t.TempDir(), Workdir: t.TempDir(), Model: testkit.NewServer(t)}
	e.ExtraEnv = []string{"HOME=" + t.TempDir()}
	if out, err := exec.Command("git", "init", "-q", e.Workdir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	testkit.WriteConfig(t, e.CodexHome, e.Model.URL())
	return e
}

// environ is the child's environment: nothing of the developer's Codex setup leaks in.
func (e *env) environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CODEX_") || strings.HasPrefix(k, "OPENAI_") {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "CODEX_HOME="+e.CodexHome, "MOCK_API_KEY=test-key")
	return append(out, e.ExtraEnv...)
}

type result struct {
	Stdout, Stderr string
	Code           int
}

// run runs the binary to completion with stdin closed (or fed), bounded by a generous deadline.
func (e *env) run(stdin string, args ...string) result {
	e.t.Helper()
	return e.runBin(binary, stdin, args...)
}

// runBin is run with another binary (the reference Codex) in the same environment.
func (e *env) runBin(bin, stdin string, args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = e.Workdir
	cmd.Env = e.environ()
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			e.t.Fatalf("run gocodex %v: %v\nstderr: %s", args, err, stderr.String())
		}
		code = ee.ExitCode()
	}
	if ctx.Err() != nil {
		e.t.Fatalf("gocodex %v did not finish in time\nstdout: %s\nstderr: %s", args, stdout.String(), stderr.String())
	}
	return result{Stdout: stdout.String(), Stderr: stderr.String(), Code: code}
}

// jsonl splits JSONL output into decoded objects, failing on any line that is not JSON.
func jsonl(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line is not JSON: %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	return lines
}

// types lists the "type" of each JSONL object, the sequence a client sees.
func types(lines []map[string]any) []string {
	var out []string
	for _, l := range lines {
		ty, _ := l["type"].(string)
		if item, ok := l["item"].(map[string]any); ok {
			ty += ":" + fmt.Sprint(item["type"])
		}
		out = append(out, ty)
	}
	return out
}
