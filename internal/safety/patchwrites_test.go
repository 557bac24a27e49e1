package safety

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gocodex/gocodex/internal/patch"
	"github.com/gocodex/gocodex/protocol"
)

// symlinkWorld is a work tree (the only writable root: /tmp and $TMPDIR excluded), a git
// directory in it, and a directory outside it.
type symlinkWorld struct {
	cwd, outside string
	policy       protocol.SandboxPolicy
}

func newSymlinkWorld(t *testing.T) symlinkWorld {
	t.Helper()
	w := symlinkWorld{
		cwd:     t.TempDir(),
		outside: t.TempDir(),
		policy:  protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true},
	}
	mustMkdir(t, filepath.Join(w.cwd, ".git"))
	mustWrite(t, filepath.Join(w.cwd, ".git", "config"), "[core]\n")
	mustWrite(t, filepath.Join(w.outside, "victim.txt"), "original\n")
	mustMkdir(t, filepath.Join(w.cwd, "src"))
	return w
}

func (w symlinkWorld) link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, filepath.Join(w.cwd, name)); err != nil {
		t.Fatal(err)
	}
}

func (w symlinkWorld) check(writes ...patch.Write) []BlockedWrite {
	for i := range writes {
		if !filepath.IsAbs(writes[i].Path) {
			writes[i].Path = filepath.Join(w.cwd, writes[i].Path)
		}
	}
	return BlockedPatchWrites(writes, w.policy, w.cwd, func(string) string { return "" })
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every path of a patch is resolved through its symlinks before the sandbox lets it be
// written: a lexical check of the cleaned path (what decided before) sees all of these as
// inside the work tree.
func TestBlockedPatchWritesFollowSymlinks(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, w symlinkWorld)
		write patch.Write
		// want is the resolved place relative to the world ("OUT/..." or "CWD/..."), and
		// protected the read-only entry it lands in; empty want means allowed.
		want, protected string
	}{
		{name: "symlink to a directory outside",
			setup: func(t *testing.T, w symlinkWorld) { w.link(t, w.outside, "d") },
			write: patch.Write{Path: "d/created.txt"}, want: "OUT/created.txt"},
		{name: "symlink to an existing file outside",
			setup: func(t *testing.T, w symlinkWorld) { w.link(t, filepath.Join(w.outside, "victim.txt"), "v") },
			write: patch.Write{Path: "v"}, want: "OUT/victim.txt"},
		{name: "symlink to .git",
			setup: func(t *testing.T, w symlinkWorld) { w.link(t, ".git", "g") },
			write: patch.Write{Path: "g/config"}, want: "CWD/.git/config", protected: "CWD/.git"},
		{name: "self symlink into an absent .codex",
			setup: func(t *testing.T, w symlinkWorld) { w.link(t, ".", "self") },
			write: patch.Write{Path: "self/.codex/rules/x.rules"}, want: "CWD/.codex/rules/x.rules", protected: "CWD/.codex"},
		{name: "self symlink twice into .agents",
			setup: func(t *testing.T, w symlinkWorld) { w.link(t, ".", "self") },
			write: patch.Write{Path: "self/self/.agents/skills/x/SKILL.md"}, want: "CWD/.agents/skills/x/SKILL.md", protected: "CWD/.agents"},
		{name: "dotdot in a symlink target",
			setup: func(t *testing.T, w symlinkWorld) {
				rel, err := filepath.Rel(filepath.Join(w.cwd, "src"), w.outside)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(rel, filepath.Join(w.cwd, "src", "up")); err != nil {
					t.Fatal(err)
				}
			},
			write: patch.Write{Path: "src/up/new.txt"}, want: "OUT/new.txt"},
		{name: "dotdot after a symlink goes up from where it led",
			setup: func(t *testing.T, w symlinkWorld) {
				mustMkdir(t, filepath.Join(w.outside, "deep"))
				w.link(t, filepath.Join(w.outside, "deep"), "deep")
				w.link(t, "deep/../victim.txt", "sneaky")
			},
			write: patch.Write{Path: "sneaky"}, want: "OUT/victim.txt"},
		{name: "symlink in an intermediate directory",
			setup: func(t *testing.T, w symlinkWorld) {
				mustMkdir(t, filepath.Join(w.outside, "b"))
				mustMkdir(t, filepath.Join(w.cwd, "a"))
				if err := os.Symlink(filepath.Join(w.outside, "b"), filepath.Join(w.cwd, "a", "b")); err != nil {
					t.Fatal(err)
				}
			},
			write: patch.Write{Path: "a/b/c/d.txt"}, want: "OUT/b/c/d.txt"},
		{name: "a chain of symlinks",
			setup: func(t *testing.T, w symlinkWorld) {
				w.link(t, w.outside, "far")
				w.link(t, "far", "near")
			},
			write: patch.Write{Path: "near/x"}, want: "OUT/x"},
		{name: "a move onto a symlink",
			setup: func(t *testing.T, w symlinkWorld) { w.link(t, filepath.Join(w.outside, "victim.txt"), "dest") },
			write: patch.Write{Path: "dest"}, want: "OUT/victim.txt"},
		{name: "a dangling symlink is created through",
			setup: func(t *testing.T, w symlinkWorld) { w.link(t, filepath.Join(w.outside, "new.txt"), "dangling") },
			write: patch.Write{Path: "dangling"}, want: "OUT/new.txt"},
		{name: "a dangling symlink into .git",
			setup: func(t *testing.T, w symlinkWorld) { w.link(t, ".git/hooks/pre-commit", "hook") },
			write: patch.Write{Path: "hook"}, want: "CWD/.git/hooks/pre-commit", protected: "CWD/.git"},
		{name: "deleting through a symlinked directory",
			setup: func(t *testing.T, w symlinkWorld) { w.link(t, w.outside, "d") },
			write: patch.Write{Path: "d/victim.txt", Removes: true}, want: "OUT/victim.txt"},
		{name: "deleting a file of .git through a symlink",
			setup: func(t *testing.T, w symlinkWorld) { w.link(t, ".", "self") },
			write: patch.Write{Path: "self/.git/config", Removes: true}, want: "CWD/.git/config", protected: "CWD/.git"},
		{name: "deleting the symlink itself removes only the link",
			setup: func(t *testing.T, w symlinkWorld) { w.link(t, filepath.Join(w.outside, "victim.txt"), "v") },
			write: patch.Write{Path: "v", Removes: true}},
		{name: "a symlink that stays inside",
			setup: func(t *testing.T, w symlinkWorld) { w.link(t, "src", "alias") },
			write: patch.Write{Path: "alias/main.go"}},
		{name: "a plain new file",
			setup: func(t *testing.T, w symlinkWorld) {},
			write: patch.Write{Path: "src/new/deeper/file.go"}},
		{name: "a lexical path into .git",
			setup: func(t *testing.T, w symlinkWorld) {},
			write: patch.Write{Path: ".git/config"}, want: "CWD/.git/config", protected: "CWD/.git"},
		{name: "dotdot traversal out of the tree",
			setup: func(t *testing.T, w symlinkWorld) {},
			write: patch.Write{Path: "src/../../escape.txt"}, want: "PARENT/escape.txt"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newSymlinkWorld(t)
			tc.setup(t, w)
			blocked := w.check(tc.write)
			expand := func(s string) string {
				s = strings.Replace(s, "OUT", w.outside, 1)
				s = strings.Replace(s, "CWD", w.cwd, 1)
				return strings.Replace(s, "PARENT", filepath.Dir(w.cwd), 1)
			}
			if tc.want == "" {
				if len(blocked) != 0 {
					t.Fatalf("blocked: %v", blocked[0].Error())
				}
				return
			}
			if len(blocked) != 1 {
				t.Fatalf("not blocked; want it to land in %s", expand(tc.want))
			}
			b := blocked[0]
			if b.Resolved != expand(tc.want) || b.Protected != expand(tc.protected) {
				t.Errorf("resolved %q (protected %q), want %q (%q)", b.Resolved, b.Protected, expand(tc.want), expand(tc.protected))
			}
			lexicalInside := !strings.HasPrefix(tc.want, "PARENT") && !strings.HasPrefix(tc.write.Path, ".git")
			if b.Hidden != lexicalInside {
				t.Errorf("Hidden = %v, want %v", b.Hidden, lexicalInside)
			}
			if msg := b.Error(); !strings.Contains(msg, b.Path) || !strings.Contains(msg, b.Resolved) && b.Via != "" {
				t.Errorf("message %q names neither the path nor where it leads", msg)
			}
		})
	}
}

// The message says which path, through which symlink, to where, and why that is refused.
func TestBlockedWriteMessages(t *testing.T) {
	w := newSymlinkWorld(t)
	w.link(t, w.outside, "d")
	w.link(t, ".git", "g")
	w.link(t, ".", "self")
	blocked := w.check(patch.Write{Path: "d/created.txt"}, patch.Write{Path: "g/config"},
		patch.Write{Path: "self/.codex/rules/x.rules"}, patch.Write{Path: "d/victim.txt", Removes: true})
	want := []string{
		"Failed to write file " + w.cwd + "/d/created.txt: it resolves through the symlink " + w.cwd + "/d to " + w.outside + "/created.txt, outside the sandbox's writable roots",
		"Failed to write file " + w.cwd + "/g/config: it resolves through the symlink " + w.cwd + "/g to " + w.cwd + "/.git/config, inside " + w.cwd + "/.git, which the sandbox keeps read-only",
		"Failed to write file " + w.cwd + "/self/.codex/rules/x.rules: it resolves through the symlink " + w.cwd + "/self to " + w.cwd + "/.codex/rules/x.rules, inside " + w.cwd + "/.codex, which the sandbox keeps read-only",
		"Failed to delete file " + w.cwd + "/d/victim.txt: it resolves through the symlink " + w.cwd + "/d to " + w.outside + "/victim.txt, outside the sandbox's writable roots",
	}
	if len(blocked) != len(want) {
		t.Fatalf("%d blocked, want %d", len(blocked), len(want))
	}
	for i, b := range blocked {
		if b.Error() != want[i] {
			t.Errorf("message %d:\n got %s\nwant %s", i, b.Error(), want[i])
		}
	}
}

func TestBlockedPatchWritesSymlinkLoop(t *testing.T) {
	w := newSymlinkWorld(t)
	w.link(t, "b", "a")
	w.link(t, "a", "b")
	blocked := w.check(patch.Write{Path: "a/x"})
	if len(blocked) != 1 || !errors.Is(blocked[0].Err, syscall.ELOOP) {
		t.Fatalf("a symlink loop: %+v", blocked)
	}
	if msg := blocked[0].Error(); !strings.Contains(msg, "a/x") || !strings.Contains(msg, "too many levels of symbolic links") {
		t.Errorf("message %q", msg)
	}
}

// The writable roots are compared where they lead: a session started through a symlinked
// path writes its own tree, and a symlink to .git through that path is still caught.
func TestBlockedPatchWritesSymlinkedRoot(t *testing.T) {
	w := newSymlinkWorld(t)
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(w.cwd, alias); err != nil {
		t.Fatal(err)
	}
	w.link(t, ".git", "g")
	check := func(p string) []BlockedWrite {
		return BlockedPatchWrites([]patch.Write{{Path: filepath.Join(alias, p)}}, w.policy, alias, func(string) string { return "" })
	}
	if b := check("src/ok.go"); len(b) != 0 {
		t.Errorf("a file of the tree reached through the symlinked cwd was blocked: %s", b[0].Error())
	}
	if b := check("g/config"); len(b) != 1 || b[0].Protected != filepath.Join(w.cwd, ".git") {
		t.Errorf("g/config through the symlinked cwd: %+v", b)
	}
}

func TestBlockedPatchWritesByPolicy(t *testing.T) {
	w := newSymlinkWorld(t)
	w.link(t, w.outside, "d")
	writes := []patch.Write{{Path: filepath.Join(w.cwd, "d/x")}, {Path: filepath.Join(w.cwd, "plain.txt")}}
	getenv := func(string) string { return "" }
	if b := BlockedPatchWrites(writes, protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}, w.cwd, getenv); len(b) != 0 {
		t.Errorf("danger-full-access blocked %v", b)
	}
	if b := BlockedPatchWrites(writes, protocol.NewReadOnlyPolicy(), w.cwd, getenv); len(b) != 2 || b[1].Hidden {
		t.Errorf("read-only blocked %+v, want both, neither hidden", b)
	}
	// A configured writable root makes the symlink's target writable.
	p := w.policy
	p.WritableRoots = []string{w.outside}
	if b := BlockedPatchWrites(writes, p, w.cwd, getenv); len(b) != 0 {
		t.Errorf("with the outside directory a writable root: %s", b[0].Error())
	}
}
