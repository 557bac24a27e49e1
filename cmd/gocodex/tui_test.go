package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/iostreams"
	"github.com/gocodex/gocodex/internal/tui"
)

func TestRootRunsTheTUIWithItsFlags(t *testing.T) {
	tests := []struct {
		args []string
		want tuiOptions
	}{
		{args: nil, want: tuiOptions{}},
		{args: []string{"fix the bug"}, want: tuiOptions{Prompt: "fix the bug"}},
		{
			args: []string{"-m", "gpt-x", "-c", "a=1", "-c", "b=2", "-s", "read-only", "-a", "never", "-C", "/tmp", "-p", "work", "hi"},
			want: tuiOptions{Prompt: "hi", Flags: faceopts.Flags{Model: "gpt-x", Configs: []string{"a=1", "b=2"}, Sandbox: "read-only", Approval: "never", Cd: "/tmp", Profile: "work"}},
		},
		{args: []string{"--ask-for-approval", "on-failure", "--full-auto"}, want: tuiOptions{Flags: faceopts.Flags{Approval: "on-failure", FullAuto: true}}},
		{args: []string{"--dangerously-bypass-approvals-and-sandbox"}, want: tuiOptions{Flags: faceopts.Flags{Bypass: true}}},
		{args: []string{"--yolo"}, want: tuiOptions{Flags: faceopts.Flags{Bypass: true}}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var got *tuiOptions
			root := &cobra.Command{Use: "gocodex", SilenceUsage: true, SilenceErrors: true}
			addTUIFlags(root, testFactory(""), func(_ context.Context, o tuiOptions, _ *faceopts.Factory) error {
				got = &o
				return nil
			})
			root.SetArgs(tc.args)
			if err := root.Execute(); err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("the TUI did not run")
			}
			if diff := cmp.Diff(tc.want, *got); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRootKeepsVersionAndSubcommands(t *testing.T) {
	var out bytes.Buffer
	fac := testFactory("")
	fac.IO.Out, fac.IO.ErrOut = &out, &out
	root := newRootCommand(fac)
	root.SetArgs([]string{"--version"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "gocodex ") {
		t.Errorf("--version printed %q", out.String())
	}
	cmd, args, err := root.Find([]string{"exec", "hello"})
	if err != nil || cmd.Name() != "exec" || len(args) != 1 {
		t.Errorf("exec resolved to %v %v %v", cmd.Name(), args, err)
	}
}

func TestTUIConfigDefaultsAndFlags(t *testing.T) {
	home := t.TempDir()
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	plain := t.TempDir()
	getenv := func(k string) string {
		if k == "CODEX_HOME" {
			return home
		}
		return ""
	}
	tests := []struct {
		name              string
		opts              tuiOptions
		approval, sandbox string
		wantErr           string
	}{
		{name: "git repo", opts: tuiOptions{Flags: faceopts.Flags{Cd: repo}}, approval: "on-request", sandbox: "workspace-write"},
		{name: "not a repo", opts: tuiOptions{Flags: faceopts.Flags{Cd: plain}}, approval: "on-request", sandbox: "read-only"},
		{name: "sandbox flag", opts: tuiOptions{Flags: faceopts.Flags{Cd: repo, Sandbox: "read-only"}}, approval: "on-request", sandbox: "read-only"},
		{name: "sandbox from -c", opts: tuiOptions{Flags: faceopts.Flags{Cd: repo, Configs: []string{`sandbox_mode="read-only"`}}}, approval: "on-request", sandbox: "read-only"},
		{name: "approval flag", opts: tuiOptions{Flags: faceopts.Flags{Cd: repo, Approval: "never"}}, approval: "never", sandbox: "workspace-write"},
		{name: "full auto", opts: tuiOptions{Flags: faceopts.Flags{Cd: plain, FullAuto: true}}, approval: "on-request", sandbox: "workspace-write"},
		{name: "bypass", opts: tuiOptions{Flags: faceopts.Flags{Cd: repo, Bypass: true, Sandbox: "read-only"}}, approval: "never", sandbox: "danger-full-access"},
		{name: "bad sandbox", opts: tuiOptions{Flags: faceopts.Flags{Cd: repo, Sandbox: "open"}}, wantErr: "invalid value \"open\" for --sandbox"},
		{name: "bad approval", opts: tuiOptions{Flags: faceopts.Flags{Cd: repo, Approval: "sometimes"}}, wantErr: "invalid value \"sometimes\" for --ask-for-approval"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _, err := loadTUIConfig(tc.opts, getenv)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := [2]string{cfg.ApprovalPolicy.String(), string(cfg.SandboxPolicy.Mode)}
			if diff := cmp.Diff([2]string{tc.approval, tc.sandbox}, got); diff != "" {
				t.Errorf("approval, sandbox (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := os.Stat(home + "/config.toml"); err == nil {
		t.Error("loading the config wrote config.toml")
	}
}

func TestTUINeedsATerminal(t *testing.T) {
	err := runTUI(context.Background(), tuiOptions{}, testFactory("hi\n"))
	if err == nil || err.Error() != "stdin is not a terminal" {
		t.Errorf("runTUI without a terminal: %v", err)
	}
}

// loadTUIConfig is the configuration the interactive command starts with.
func loadTUIConfig(opts tuiOptions, getenv func(string) string) (*config.Config, []config.Warning, error) {
	lo, err := tuiLoadOptions(opts, getenv)
	if err != nil {
		return nil, nil, err
	}
	return tui.LoadConfig(testFactory(""), lo)
}

// testFactory is a factory on buffers: stdin reads in, no stream is a terminal.
func testFactory(in string) *faceopts.Factory {
	ios, _, _ := iostreams.Test(in)
	return faceopts.NewFactory(ios)
}
