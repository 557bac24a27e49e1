package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

func TestWorkspaceWriteFileSystem(t *testing.T) {
	for _, m := range mechanisms {
		t.Run(m.name, func(t *testing.T) {
			probe := probeFor(t, m.opts, m.want)
			cwd := outsideTmp(t)
			if err := os.MkdirAll(filepath.Join(cwd, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cwd, ".git", "config"), []byte("[core]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			outside := outsideTmp(t) // a sibling directory the policy does not name
			if err := os.Symlink(outside, filepath.Join(cwd, "escape")); err != nil {
				t.Fatal(err)
			}
			env := baseEnv("")
			pol := workspaceWrite()
			home, _ := os.UserHomeDir()
			name := fmt.Sprintf("gocodex-sandbox-probe-%d", os.Getpid())

			cases := []struct {
				name   string
				script string
				ok     bool
				skip   bool
			}{
				{"write inside cwd", "echo x > inside && mkdir -p d/e && echo y > d/e/f && mv d/e/f d/g && rm d/g", true, false},
				{"write in HOME", "echo x > " + filepath.Join(home, name), false, home == "" || strings.HasPrefix(home, "/tmp")},
				{"write in /etc", "echo x > /etc/" + name, false, false},
				{"write through symlink", "echo x > escape/file", false, false},
				{"write .git/config", "echo x >> .git/config", false, !m.protectsSubpaths},
				{"create in .git", "echo x > .git/newfile", false, !m.protectsSubpaths},
				{"write in /tmp", "echo x > /tmp/" + name + " && rm /tmp/" + name, true, false},
				{"child of child", "sh -c 'sh -c \"echo x > " + filepath.Join(outside, "nested") + "\"'", false, false},
				{"bash -lc to /", "bash -lc 'echo x > /" + name + "'", false, false},
				{"dev null", "echo x > /dev/null", true, false},
			}
			t.Cleanup(func() {
				for _, p := range []string{filepath.Join(home, name), "/etc/" + name, "/" + name} {
					os.Remove(p)
				}
			})
			var scripts []string
			for _, tc := range cases {
				scripts = append(scripts, tc.script)
			}
			results := shBatch(t, probe, pol, cwd, env, scripts)
			for i, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					if tc.skip {
						t.Skip("not applicable here")
					}
					if r := results[i]; (r.code == 0) != tc.ok {
						t.Errorf("exit %d (output %q), want success=%v", r.code, r.stderr, tc.ok)
					}
				})
			}
			for _, p := range []string{filepath.Join(outside, "file"), filepath.Join(outside, "nested"), "/etc/" + name, "/" + name} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s was written", p)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(cwd, ".git", "config")); m.protectsSubpaths && string(b) != "[core]\n" {
				t.Errorf(".git/config changed: %q", b)
			}
		})
	}
}

func TestExcludeSlashTmp(t *testing.T) {
	for _, m := range mechanisms {
		t.Run(m.name, func(t *testing.T) {
			probe := probeFor(t, m.opts, m.want)
			cwd := outsideTmp(t)
			name := fmt.Sprintf("/tmp/gocodex-sandbox-excl-%d", os.Getpid())
			t.Cleanup(func() { os.Remove(name) })
			pol := protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true}
			if r := sh(t, probe, Options{}, pol, cwd, baseEnv("/tmp"), "echo x > "+name); r.code == 0 {
				t.Errorf("/tmp was writable with exclude_slash_tmp")
			}
			// $TMPDIR is its own root unless excluded too.
			pol.ExcludeTmpdirEnvVar = false
			if r := sh(t, probe, Options{}, pol, cwd, baseEnv("/tmp"), "echo x > "+name); r.code != 0 {
				t.Errorf("$TMPDIR=/tmp not writable: %q", r.stderr)
			}
		})
	}
}

func TestReadOnlyAllowsNoWrites(t *testing.T) {
	for _, m := range mechanisms {
		t.Run(m.name, func(t *testing.T) {
			probe := probeFor(t, m.opts, m.want)
			cwd := t.TempDir()
			pol := protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}
			scripts := []string{"echo x > f", "echo x > /tmp/gocodex-ro-" + strconv.Itoa(os.Getpid()), "mkdir d", "cat /etc/hostname >/dev/null && echo x > /dev/null && ls / >/dev/null && exit 3"}
			for i, r := range shBatch(t, probe, pol, cwd, baseEnv(""), scripts) {
				want := 1
				if i == len(scripts)-1 {
					want = 3 // reads and /dev/null work
				}
				if (r.code == 0) || (want == 3 && r.code != 3) {
					t.Errorf("%q: exit %d (output %q)", scripts[i], r.code, r.stderr)
				}
			}
			os.Remove("/tmp/gocodex-ro-" + strconv.Itoa(os.Getpid()))
			entries, _ := os.ReadDir(cwd)
			if len(entries) != 0 {
				t.Errorf("read-only run left %d entries in cwd", len(entries))
			}
		})
	}
}

// TestProtectedSubpaths covers .codex and a worktree's .git file, whose real git directory
// lies in another writable root (/tmp here) and must stay read-only there too.
func TestProtectedSubpaths(t *testing.T) {
	for _, m := range mechanisms {
		if !m.protectsSubpaths {
			continue
		}
		t.Run(m.name, func(t *testing.T) {
			probe := probeFor(t, m.opts, m.want)
			cwd := outsideTmp(t)
			gitdir := filepath.Join(t.TempDir(), "repo.git", "worktrees", "wt")
			if err := os.MkdirAll(gitdir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cwd, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(cwd, ".codex"), 0o755); err != nil {
				t.Fatal(err)
			}
			scripts := []string{
				"echo x > .codex/config.toml",
				"echo x > " + filepath.Join(gitdir, "HEAD"),
				"echo 'gitdir: /elsewhere' > .git",
				"rm .git",
				"echo x > " + filepath.Join(filepath.Dir(filepath.Dir(gitdir)), "sibling"), // the rest of /tmp stays writable
			}
			results := shBatch(t, probe, workspaceWrite(), cwd, baseEnv(""), scripts)
			for i, r := range results {
				wantOK := i == len(scripts)-1
				if (r.code == 0) != wantOK {
					t.Errorf("%q: exit %d (output %q), want success=%v", scripts[i], r.code, r.stderr, wantOK)
				}
			}
		})
	}
}
