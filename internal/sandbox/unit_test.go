package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
)

func TestWritableRoots(t *testing.T) {
	base := t.TempDir()
	mk := func(parts ...string) string {
		p := filepath.Join(append([]string{base}, parts...)...)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	repo := mk("repo")
	mk("repo", ".git")
	mk("repo", ".codex")
	worktree := mk("worktree")
	gitdir := mk("repo", ".git", "worktrees", "wt")
	if err := os.WriteFile(filepath.Join(worktree, ".git"), []byte("gitdir: ../repo/.git/worktrees/wt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	extra := mk("extra")
	tmpdir := mk("tmpdir")
	env := func(k string) string {
		if k == "TMPDIR" {
			return tmpdir
		}
		return ""
	}
	slashTmp := []WritableRoot{{Root: "/tmp", ReadOnlySubpaths: protectedSubpaths("/tmp")}}
	withTmp := func(roots ...WritableRoot) []WritableRoot {
		return append(append(roots, slashTmp...), WritableRoot{Root: tmpdir, ReadOnlySubpaths: protected(tmpdir)})
	}
	repoRoot := WritableRoot{Root: repo, ReadOnlySubpaths: protected(repo)}
	cases := []struct {
		name   string
		policy protocol.SandboxPolicy
		cwd    string
		want   []WritableRoot
	}{
		{"read-only", protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}, repo, nil},
		{"zero value is read-only", protocol.SandboxPolicy{}, repo, nil},
		{"danger-full-access", protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}, repo, nil},
		{"workspace-write", protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}, repo, withTmp(repoRoot)},
		{"excludes", protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true}, repo,
			[]WritableRoot{repoRoot}},
		{"extra roots, relative, missing and duplicate", protocol.SandboxPolicy{
			Mode: protocol.SandboxWorkspaceWrite, WritableRoots: []string{extra, "../extra", "missing", repo}, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true,
		}, repo, []WritableRoot{repoRoot, {Root: extra, ReadOnlySubpaths: protected(extra)}}},
		{"worktree gitdir", protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true}, worktree,
			[]WritableRoot{{Root: worktree, ReadOnlySubpaths: slices.Insert(protected(worktree), 1, gitdir)}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := WritableRoots(tc.policy, tc.cwd, env)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("WritableRoots mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadGitdir(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		content string
		want    string
	}{
		{"gitdir: real\n", target},
		{"gitdir:   " + target + "  \n", target},
		{"gitdir: real", target},
		{"gitdir: missing\n", ""},
		{"gitdir:\n", ""},
		{"nonsense\n", ""},
		{"", ""},
	}
	for _, tc := range cases {
		f := filepath.Join(dir, ".git")
		if err := os.WriteFile(f, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, _ := readGitdir(f)
		if got != tc.want {
			t.Errorf("readGitdir(%q) = %q, want %q", tc.content, got, tc.want)
		}
	}
}

func TestLikelyDenied(t *testing.T) {
	cases := []struct {
		name           string
		code           int
		stdout, stderr string
		want           bool
	}{
		{"success is never denied", 0, "", "Permission denied", false},
		{"permission denied", 1, "", "sh: 1: cannot create /etc/x: Permission denied", true},
		{"read-only fs", 1, "", "touch: cannot touch 'x': Read-only file system", true},
		{"operation not permitted in stdout", 1, "connect: Operation not permitted", "", true},
		{"seccomp mention", 1, "", "blocked by SECCOMP", true},
		{"landlock mention", 3, "landlock", "", true},
		{"failed to write file", 1, "", "error: failed to write file foo", true},
		{"plain failure", 1, "", "assertion failed", false},
		{"usage error", 2, "", "bad flag", false},
		{"not executable", 126, "", "", false},
		{"not found", 127, "", "foo: not found", false},
		{"sigsys", 128 + 31, "", "", true},
		{"sigkill", 137, "", "", false},
		{"marker beats exit 127", 127, "", "sandbox said no", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := LikelyDenied(tc.code, tc.stdout, tc.stderr); got != tc.want {
				t.Errorf("LikelyDenied(%d, %q, %q) = %v, want %v", tc.code, tc.stdout, tc.stderr, got, tc.want)
			}
		})
	}
}

func TestPolicyRoundTrip(t *testing.T) {
	for _, p := range []protocol.SandboxPolicy{
		{Mode: protocol.SandboxReadOnly},
		{Mode: protocol.SandboxDangerFullAccess},
		{Mode: protocol.SandboxWorkspaceWrite},
		{Mode: protocol.SandboxWorkspaceWrite, WritableRoots: []string{"/a", "b"}, NetworkAccess: true, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true},
	} {
		s, err := encodePolicy(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodePolicy(s)
		if err != nil {
			t.Fatalf("decode %s: %v", s, err)
		}
		if diff := cmp.Diff(p, got); diff != "" {
			t.Errorf("round trip of %s (-want +got):\n%s", s, diff)
		}
	}
}

// FuzzParseHelperArgs feeds the helper's argument parser arbitrary input: it must never panic,
// and whatever it accepts must carry a command and a known mechanism.
func FuzzParseHelperArgs(f *testing.F) {
	f.Add("--sandbox-policy\x00{\"type\":\"workspace-write\",\"writable_roots\":[\"/x\"]}\x00--\x00ls")
	f.Add("--probe-userns")
	f.Add("--mechanism\x00namespaces\x00--sandbox-policy\x00\"read-only\"\x00--\x00true")
	f.Fuzz(func(t *testing.T, joined string) {
		args := splitNUL(joined)
		h, err := parseHelperArgs(args, discard{})
		if err != nil || h.probeUserNS {
			return
		}
		if len(h.argv) == 0 {
			t.Errorf("accepted %q without a command", args)
		}
		if !h.mechanism.usesLandlock() && !h.mechanism.usesNamespaces() {
			t.Errorf("accepted %q with mechanism %q", args, h.mechanism)
		}
	})
}

func splitNUL(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// protected is what every writable root keeps read-only, existing or not.
func protected(root string) []string {
	return []string{filepath.Join(root, ".git"), filepath.Join(root, ".codex"), filepath.Join(root, ".agents"), filepath.Join(root, ".aws")}
}
