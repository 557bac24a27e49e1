package main

import (
	"os"
	"path/filepath"
	"testing"
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
