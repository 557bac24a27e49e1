package prompt

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/<name>, rewriting the file under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

func TestPermissionsGolden(t *testing.T) {
	sandboxes := map[string]protocol.SandboxPolicy{
		"read-only":           protocol.NewReadOnlyPolicy(),
		"workspace-write":     {Mode: protocol.SandboxWorkspaceWrite},
		"workspace-write-net": {Mode: protocol.SandboxWorkspaceWrite, NetworkAccess: true},
		"danger-full-access":  {Mode: protocol.SandboxDangerFullAccess},
	}
	approvals := map[string]protocol.AskForApproval{
		"untrusted":  protocol.ApprovalUntrusted,
		"on-failure": protocol.ApprovalOnFailure,
		"on-request": protocol.ApprovalOnRequest,
		"never":      protocol.ApprovalNever,
		"granular":   {Mode: protocol.ApprovalModeGranular, Granular: &protocol.GranularApproval{}},
	}
	for sn, sp := range sandboxes {
		for an, ap := range approvals {
			t.Run(sn+"_"+an, func(t *testing.T) {
				got := Permissions(PermissionsOptions{Sandbox: sp, Approval: ap, WritableRoots: []string{"/work/repo", "/tmp"}})
				if !strings.HasPrefix(got, "<permissions instructions>\n") || !strings.HasSuffix(got, "\n</permissions instructions>") {
					t.Fatalf("not wrapped in the permissions tags:\n%s", got)
				}
				golden(t, "permissions/"+sn+"_"+an+".txt", got)
			})
		}
	}
}

func TestBaseInstructions(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "instr.md")
	if err := os.WriteFile(file, []byte("from file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.md")
	if err := os.WriteFile(empty, []byte(" \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		opts    BaseOptions
		want    string
		wantErr bool
	}{
		{"default", BaseOptions{}, DefaultBaseInstructions(), false},
		{"model default", BaseOptions{ModelDefault: "model text"}, "model text", false},
		{"file beats model", BaseOptions{InstructionsFile: file, ModelDefault: "m"}, "from file\n", false},
		{"override beats file", BaseOptions{Override: "over", InstructionsFile: file}, "over", false},
		{"missing file", BaseOptions{InstructionsFile: filepath.Join(dir, "nope")}, "", true},
		{"empty file", BaseOptions{InstructionsFile: empty}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := BaseInstructions(tc.opts)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if !strings.Contains(DefaultBaseInstructions(), "apply_patch") {
		t.Error("base instructions should explain apply_patch")
	}
}

// tree writes files (path -> content) under root; a content of "/" makes a directory.
func tree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, p)
		if c == "/" {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestUserInstructions(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		cwd   string // relative to the project dir
		opts  AgentsOptions
		want  string
	}{
		{
			name:  "nothing",
			files: map[string]string{"repo/.git/": "/"},
			cwd:   "repo",
			want:  "",
		},
		{
			name: "global project and sub, as Codex joins them",
			files: map[string]string{
				"home/AGENTS.md":     "global agents\n",
				"repo/.git/HEAD":     "x",
				"repo/AGENTS.md":     "root agents\n",
				"repo/sub/AGENTS.md": "sub agents\n",
			},
			cwd:  "repo/sub",
			want: "global agents\n\n--- project-doc ---\n\nroot agents\n\n\nsub agents\n",
		},
		{
			name: "override preferred in home and per directory",
			files: map[string]string{
				"home/AGENTS.md":          "global",
				"home/AGENTS.override.md": "global override",
				"repo/.git/":              "/",
				"repo/AGENTS.md":          "root",
				"repo/AGENTS.override.md": "root override",
				"repo/sub/AGENTS.md":      "sub",
			},
			cwd:  "repo/sub",
			want: "global override\n\n--- project-doc ---\n\nroot override\n\nsub",
		},
		{
			name: "empty global override falls back to AGENTS.md",
			files: map[string]string{
				"home/AGENTS.md":          "global",
				"home/AGENTS.override.md": "  \n",
			},
			cwd:  "repo",
			want: "global",
		},
		{
			name: "config instructions come first",
			files: map[string]string{
				"home/AGENTS.md": "global",
				"repo/.git/":     "/",
				"repo/AGENTS.md": "root",
			},
			cwd:  "repo",
			opts: AgentsOptions{ConfigInstructions: "from config"},
			want: "from config\n\nglobal\n\n--- project-doc ---\n\nroot",
		},
		{
			name: "project docs only have no separator",
			files: map[string]string{
				"repo/.git/":     "/",
				"repo/AGENTS.md": "root",
			},
			cwd:  "repo",
			want: "root",
		},
		{
			name: "no marker means cwd only",
			files: map[string]string{
				"repo/AGENTS.md":     "root",
				"repo/sub/AGENTS.md": "sub",
			},
			cwd:  "repo/sub",
			want: "sub",
		},
		{
			name: "custom markers",
			files: map[string]string{
				"repo/.hg/":          "/",
				"repo/AGENTS.md":     "root",
				"repo/sub/AGENTS.md": "sub",
			},
			cwd:  "repo/sub",
			opts: AgentsOptions{ProjectRootMarkers: []string{".hg"}},
			want: "root\n\nsub",
		},
		{
			name: "empty marker list disables the walk",
			files: map[string]string{
				"repo/.git/":         "/",
				"repo/AGENTS.md":     "root",
				"repo/sub/AGENTS.md": "sub",
			},
			cwd:  "repo/sub",
			opts: AgentsOptions{ProjectRootMarkers: []string{}},
			want: "sub",
		},
		{
			name: "fallback names after AGENTS.md",
			files: map[string]string{
				"repo/.git/":         "/",
				"repo/CLAUDE.md":     "claude root",
				"repo/sub/AGENTS.md": "sub",
				"repo/sub/CLAUDE.md": "claude sub",
			},
			cwd:  "repo/sub",
			opts: AgentsOptions{FallbackFilenames: []string{"", "CLAUDE.md"}},
			want: "claude root\n\nsub",
		},
		{
			name: "a directory named AGENTS.md is skipped",
			files: map[string]string{
				"repo/.git/":      "/",
				"repo/AGENTS.md/": "/",
				"repo/CLAUDE.md":  "claude",
			},
			cwd:  "repo",
			opts: AgentsOptions{FallbackFilenames: []string{"CLAUDE.md"}},
			want: "claude",
		},
		{
			name: "budget truncates the last file and stops",
			files: map[string]string{
				"repo/.git/":         "/",
				"repo/AGENTS.md":     "0123456789",
				"repo/a/AGENTS.md":   "abcdefghij",
				"repo/a/b/AGENTS.md": "never read",
			},
			cwd:  "repo/a/b",
			opts: AgentsOptions{MaxBytes: 15},
			want: "0123456789\n\nabcde",
		},
		{
			name: "whitespace-only docs cost nothing",
			files: map[string]string{
				"repo/.git/":       "/",
				"repo/AGENTS.md":   "   \n",
				"repo/a/AGENTS.md": "abc",
			},
			cwd:  "repo/a",
			opts: AgentsOptions{MaxBytes: 3},
			want: "abc",
		},
		{
			name: "zero budget disables project docs",
			files: map[string]string{
				"home/AGENTS.md": "global",
				"repo/.git/":     "/",
				"repo/AGENTS.md": "root",
			},
			cwd:  "repo",
			opts: AgentsOptions{MaxBytes: 0},
			want: "global",
		},
		{
			name: "truncation inside a rune",
			files: map[string]string{
				"repo/.git/":     "/",
				"repo/AGENTS.md": "aé",
			},
			cwd:  "repo",
			opts: AgentsOptions{MaxBytes: 2},
			want: "a\uFFFD",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tree(t, dir, tc.files)
			opts := tc.opts
			opts.CodexHome = filepath.Join(dir, "home")
			opts.Cwd = filepath.Join(dir, tc.cwd)
			if err := os.MkdirAll(opts.Cwd, 0o755); err != nil {
				t.Fatal(err)
			}
			if opts.MaxBytes == 0 && tc.name != "zero budget disables project docs" {
				opts.MaxBytes = DefaultProjectDocMaxBytes
			}
			got, err := UserInstructions(opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// failFS fails every read to show that I/O errors other than "not found" surface.
type failFS struct{}

func (failFS) ReadFile(string) ([]byte, error)  { return nil, errors.New("disk on fire") }
func (failFS) Stat(string) (fs.FileInfo, error) { return nil, errors.New("disk on fire") }

func TestUserInstructionsIOError(t *testing.T) {
	_, err := UserInstructions(AgentsOptions{CodexHome: "/h", Cwd: "/w", MaxBytes: 10, FS: failFS{}})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("err = %v, want the I/O error", err)
	}
}

func TestEnvironmentContext(t *testing.T) {
	e := EnvironmentContext{Cwd: "/work/a&b", Shell: "zsh", CurrentDate: "2026-11-22", Timezone: "Europe/Paris"}
	golden(t, "environment_context.txt", e.Render())
	e.Network = &NetworkContext{Allowed: []string{"example.com"}, Denied: []string{"evil.test"}}
	golden(t, "environment_context_network.txt", e.Render())
	if got, want := (EnvironmentContext{Cwd: "/x"}).Render(), "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>"; got != want {
		t.Errorf("minimal block = %q, want %q", got, want)
	}
}

func TestShellAndTimezone(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := ShellName(env(map[string]string{"SHELL": "/usr/bin/zsh"})); got != "zsh" {
		t.Errorf("ShellName = %q", got)
	}
	if got := ShellName(env(nil)); got != "bash" {
		t.Errorf("ShellName default = %q", got)
	}
	link := func(string) (string, error) { return "/usr/share/zoneinfo/America/New_York", nil }
	noLink := func(string) (string, error) { return "", errors.New("no") }
	tests := []struct {
		env  map[string]string
		link func(string) (string, error)
		want string
	}{
		{map[string]string{"TZ": "Asia/Tokyo"}, link, "Asia/Tokyo"},
		{map[string]string{"TZ": ":Asia/Tokyo"}, link, "Asia/Tokyo"},
		{nil, link, "America/New_York"},
		{nil, noLink, "Etc/UTC"},
		{map[string]string{"TZ": "/etc/localtime"}, link, "America/New_York"},
	}
	for _, tc := range tests {
		if got := TimezoneName(env(tc.env), tc.link); got != tc.want {
			t.Errorf("TimezoneName(%v) = %q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestInitialContextGolden(t *testing.T) {
	ic := BuildInitialContext(ContextOptions{
		Permissions: &PermissionsOptions{
			Sandbox:       protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite},
			Approval:      protocol.ApprovalOnRequest,
			WritableRoots: []string{"/work/repo"},
		},
		DeveloperInstructions: "Be terse.",
		UserInstructions:      "global\n\n--- project-doc ---\n\nroot\n",
		Environment:           EnvironmentContext{Cwd: "/work/repo", Shell: "bash", CurrentDate: "2026-11-22", Timezone: "Etc/UTC"},
	})
	var b strings.Builder
	for _, s := range ic.Developer {
		b.WriteString("=== developer input_text\n" + s + "\n")
	}
	for _, s := range ic.User {
		b.WriteString("=== user input_text\n" + s + "\n")
	}
	golden(t, "initial_context.txt", b.String())

	bare := BuildInitialContext(ContextOptions{Environment: EnvironmentContext{Cwd: "/w"}})
	if len(bare.Developer) != 0 || len(bare.User) != 1 {
		t.Errorf("bare context = %#v, want only the environment block", bare)
	}
	for _, s := range append(ic.User, TurnAbortedText()) {
		if !IsContextualUserText(s) {
			t.Errorf("IsContextualUserText(%.30q) = false", s)
		}
	}
	if IsContextualUserText("hello") {
		t.Error("plain text is not contextual")
	}
}
