package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// The commands that need no host never build it nor load the configuration: a CODEX_HOME
// whose config.toml does not parse is not even read by them.
func TestCommandsWithoutAHostBuildNothing(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("model = [unterminated\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEX_HOME", home)
	for _, args := range [][]string{{"--version"}, {"completion", "bash"}, {"help"}, {"exec", "--help"}, {"app-server", "generate-json-schema", "--help"}} {
		fac := testFactory("")
		root := newRootCommand(fac)
		root.SetArgs(args)
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if hosts, loads := fac.Built(); hosts != 0 || loads != 0 {
			t.Errorf("%v built %d hosts and loaded the configuration %d times, want none", args, hosts, loads)
		}
	}
}

// A face's command loads the configuration once and builds the one host: rewind of a
// thread that does not exist loads and stops there; models loads without a host.
func TestOneShotCommandsLoadOnce(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CODEX_HOME", home)
	fac := testFactory("")
	root := newRootCommand(fac)
	root.SetArgs([]string{"models"})
	if err := root.Execute(); err != nil {
		t.Fatalf("models: %v", err)
	}
	if hosts, loads := fac.Built(); hosts != 0 || loads != 1 {
		t.Errorf("models: %d hosts, %d loads; want 0 and 1", hosts, loads)
	}
}

// exec loads the configuration once and builds the process's one host, which the factory
// ends when the command returns.
func TestExecBuildsOneHost(t *testing.T) {
	model := tk.NewServer(t)
	home, work := t.TempDir(), t.TempDir()
	tk.WriteConfig(t, home, model.URL(), tk.ConfigOptions{})
	t.Setenv("CODEX_HOME", home)
	t.Setenv("MOCK_API_KEY", "test-key")
	model.Enqueue(tk.SSE(tk.Created(), tk.AssistantMessage("msg_1", "done"), tk.Completed(tk.Usage{Input: 10, Output: 5, Total: 15})))
	fac := testFactory("")
	var out bytes.Buffer
	fac.IO.Out = &out
	root := newRootCommand(fac)
	root.SetArgs([]string{"exec", "--skip-git-repo-check", "--ephemeral", "-C", work, "hi"})
	if err := root.Execute(); err != nil {
		t.Fatalf("exec: %v", err)
	}
	if got := strings.TrimSpace(out.String()); got != "done" {
		t.Errorf("stdout = %q", got)
	}
	if hosts, loads := fac.Built(); hosts != 1 || loads != 1 {
		t.Errorf("exec built %d hosts and loaded the configuration %d times, want 1 and 1", hosts, loads)
	}
	if err := fac.Close(context.Background()); err != nil {
		t.Errorf("close: %v", err)
	}
}
