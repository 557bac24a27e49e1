//go:build linux

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// Repository-level attacks on gocodex's own git (issue 28, attacks 4 and 5), judged from
// outside: a marker program the repository names as a filter driver records every run of it
// in a log that no sandboxed command can write. gocodex snapshots the work tree with git on
// the first tool call of every turn, outside the sandbox, as the user; the program must never
// run. Each attack runs as root and as nobody; a run of plain git afterwards shows the planted
// program was live.
//
//	go test -run 'TestAttackGit' -v ./e2e/

// nobody is the unprivileged user the attacks also run as.
const nobody = 65534

// gitAttackWorld is one attack's world, owned by the user the sessions run as: CODEX_HOME,
// HOME, the work tree (a git repository), the marker and the binary.
type gitAttackWorld struct {
	*env
	marker tk.GitMarker
	uid    int
	bin    string
}

// newGitAttackWorld makes a world for uid (0: this process's user) whose config runs
// sessions under sandbox with approval never; /tmp and $TMPDIR are not writable roots.
func newGitAttackWorld(t *testing.T, uid int, sandbox string) *gitAttackWorld {
	t.Helper()
	w := &gitAttackWorld{uid: uid, bin: binary}
	if uid == 0 {
		w.env = newEnv(t)
		w.marker = tk.NewGitMarker(t, t.TempDir())
	} else {
		if os.Getuid() != 0 {
			t.Skip("switching to an unprivileged user needs root")
		}
		base, err := os.MkdirTemp("/var/tmp", "gocodex-git-attack-")
		if err != nil {
			t.Skip(err)
		}
		t.Cleanup(func() { os.RemoveAll(base) })
		if err := os.Chmod(base, 0o755); err != nil {
			t.Fatal(err)
		}
		dirs := map[string]string{}
		for _, d := range []string{"codex-home", "home", "work", "marker", "bin"} {
			dirs[d] = filepath.Join(base, d)
			if err := os.Mkdir(dirs[d], 0o755); err != nil {
				t.Fatal(err)
			}
		}
		data, err := os.ReadFile(binary)
		if err != nil {
			t.Fatal(err)
		}
		w.bin = filepath.Join(dirs["bin"], "gocodex")
		if err := os.WriteFile(w.bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
		w.env = &env{t: t, CodexHome: dirs["codex-home"], Workdir: dirs["work"], Model: tk.NewServer(t), ExtraEnv: []string{"HOME=" + dirs["home"]}}
		gitAs(t, 0, w.Workdir, "init", "-q")
		w.marker = tk.NewGitMarker(t, dirs["marker"])
		t.Cleanup(func() { chownTree(t, base, &syscall.Credential{}) }) // so the temp dirs' removal needs no care
	}
	tk.WriteConfig(t, w.CodexHome, w.Model.URL(), tk.ConfigOptions{ApprovalPolicy: "never", SandboxMode: sandbox,
		Extra: "sandbox_workspace_write = { exclude_slash_tmp = true, exclude_tmpdir_env_var = true }"})
	return w
}

// handOver gives the world to its user once the fixture is made.
func (w *gitAttackWorld) handOver(t *testing.T) {
	t.Helper()
	if w.uid != 0 {
		chownTree(t, filepath.Dir(w.Workdir), &syscall.Credential{Uid: uint32(w.uid), Gid: uint32(w.uid)})
	}
}

// gocodex runs the world's binary as its user in dir (the work tree when "").
func (w *gitAttackWorld) gocodex(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return runAs(t, w.env, w.bin, w.uid, dir, args...)
}

// runAs runs bin in e's environment as uid (0: this process's user), from dir.
func runAs(t *testing.T, e *env, bin string, uid int, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = e.Workdir
	if dir != "" {
		cmd.Dir = dir
	}
	cmd.Env = e.environ()
	if uid != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %v did not finish in time\nstdout: %s\nstderr: %s", bin, args, stdout.String(), stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s %v: %v", bin, args, err)
	}
	return result{Stdout: stdout.String(), Stderr: stderr.String(), Code: code}
}

// gitAs runs plain git in dir as uid with a fixed identity; it returns the output and the error.
func gitAs(t *testing.T, uid int, dir string, args ...string) string {
	t.Helper()
	out, err := gitAsErr(uid, dir, args...)
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return out
}

func gitAsErr(uid int, dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-c", "safe.directory=*"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
	if uid != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
		cmd.Env = append(cmd.Env, "HOME=/nonexistent")
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// plantFilter makes repo a repository with a committed file and a filter driver "x" on every
// file that runs the marker, with the file's timestamp changed since it was committed (the
// case where Codex's own git status runs the filter too).
func plantFilter(t *testing.T, repo string, m tk.GitMarker) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".gitattributes"), []byte("* filter=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitAs(t, 0, repo, "add", "-A")
	gitAs(t, 0, repo, "commit", "-q", "-m", "one")
	gitAs(t, 0, repo, "config", "filter.x.clean", m.Cmd("filter", "clean"))
	gitAs(t, 0, repo, "config", "filter.x.smudge", m.Cmd("filter", "smudge"))
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(repo, "a.txt"), past, past); err != nil {
		t.Fatal(err)
	}
}

// expectNoRun fails when the marker ran, and checks the session took its snapshot (so the
// absence of a run is not a snapshot that never happened).
func (w *gitAttackWorld) expectNoRun(t *testing.T, r result, repo, what string) {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", what, r.Code, r.Stdout, r.Stderr)
	}
	if runs := w.marker.Runs(t); len(runs) > 0 {
		t.Errorf("%s ran the repository's program outside the sandbox: %q", what, runs)
		w.marker.Reset(t)
	}
	if strings.Contains(r.Stdout, "Could not snapshot") {
		t.Errorf("%s: the snapshot failed: %s", what, r.Stdout)
	}
	if refs := gitAs(t, 0, repo, "for-each-ref", "refs/gocodex/snapshots"); refs == "" {
		t.Errorf("%s: no snapshot was pinned in %s", what, repo)
	}
}

// expectLive runs plain git add in repo as the world's user: the planted program must run.
func (w *gitAttackWorld) expectLive(t *testing.T, repo string) {
	t.Helper()
	gitAsErr(w.uid, repo, "add", "-A")
	if len(w.marker.Runs(t)) == 0 {
		t.Errorf("the planted filter is not live: plain git add in %s ran nothing", repo)
	}
}

var gitAttackUsers = []struct {
	name string
	uid  int
}{{"root", 0}, {"nobody", nobody}}

// TestAttackGitFilterOnFirstToolCall is attack 4: a repository whose .git/config defines a
// filter driver and whose .gitattributes selects it for every file. The first tool call of a
// session (under each sandbox) snapshots the tree; the driver must not run.
func TestAttackGitFilterOnFirstToolCall(t *testing.T) {
	for _, u := range gitAttackUsers {
		for _, sandbox := range []string{"read-only", "workspace-write"} {
			t.Run(u.name+"/"+sandbox, func(t *testing.T) {
				w := newGitAttackWorld(t, u.uid, sandbox)
				plantFilter(t, w.Workdir, w.marker)
				w.handOver(t)
				w.Model.Enqueue(commandCall("c1", "true"), answer("done"))
				r := w.gocodex(t, "", "exec", "--json", "look around")
				w.expectNoRun(t, r, w.Workdir, "the first tool call")
				w.expectLive(t, w.Workdir)
			})
		}
	}
	t.Run("codex 0.169", func(t *testing.T) {
		ref := os.Getenv("GOCODEX_REFERENCE_CODEX")
		if ref == "" {
			t.Skip("GOCODEX_REFERENCE_CODEX is not set")
		}
		w := newGitAttackWorld(t, 0, "read-only")
		plantFilter(t, w.Workdir, w.marker)
		w.Model.Enqueue(commandCall("c1", "true"), answer("done"))
		r := runAs(t, w.env, ref, 0, "", "exec", "--json", "--skip-git-repo-check", "look around")
		// Recorded, not required: Codex runs the filter through its own git status when a
		// tracked file's timestamp changed.
		t.Logf("Codex 0.169 (exit %d): the repository's filter ran %d times outside the sandbox: %q", r.Code, len(w.marker.Runs(t)), w.marker.Runs(t))
	})
}

// plantNestedCmd is what the model runs in a workspace-write session: a new repository sub/
// (its .git is not protected, being new and nested) with a commit, then a filter driver in
// its config that its .gitattributes selects, and the committed file's timestamp changed.
func plantNestedCmd(m tk.GitMarker) string {
	return "git init -q sub && cd sub && echo nested > f && git add f && " +
		"git -c user.name=m -c user.email=m@example.invalid commit -q -m nested && " +
		"git config filter.x.clean '" + m.Cmd("filter", "clean") + "' && echo '* filter=x' > .gitattributes && touch -d 2001-01-01 f"
}

// TestAttackGitPlantedNestedFilter is attack 5: the model plants sub/, a repository with its
// own filter driver, in a workspace-write session. Later sessions must not run it: the same
// thread resumed in the outer tree (whose snapshot index then holds sub as a gitlink, where
// git add would run git status inside sub), and a new session started in sub/.
func TestAttackGitPlantedNestedFilter(t *testing.T) {
	for _, u := range gitAttackUsers {
		t.Run(u.name, func(t *testing.T) {
			w := newGitAttackWorld(t, u.uid, "workspace-write")
			gitAs(t, 0, w.Workdir, "commit", "-q", "--allow-empty", "-m", "start")
			w.handOver(t)
			w.Model.Enqueue(commandCall("c1", plantNestedCmd(w.marker)), answer("planted"))
			r := w.gocodex(t, "", "exec", "--json", "make a nested repository")
			sub := filepath.Join(w.Workdir, "sub")
			w.expectNoRun(t, r, w.Workdir, "the planting session")
			if cfg, _ := os.ReadFile(filepath.Join(sub, ".git", "config")); !strings.Contains(string(cfg), "filter") {
				t.Fatalf("the model could not plant the nested filter (the sandbox now stops it?): %s\n%s", r.Stdout, cfg)
			}
			thread := jsonl(t, r.Stdout)[0]["thread_id"].(string)

			w.Model.Enqueue(commandCall("c2", "true"), answer("again"))
			r = w.gocodex(t, "", "exec", "--json", "resume", thread, "carry on")
			w.expectNoRun(t, r, w.Workdir, "the resumed session in the outer tree")

			for _, sandbox := range []string{"read-only", "workspace-write"} {
				w.Model.Enqueue(commandCall("c3", "true"), answer("in sub"))
				r = w.gocodex(t, sub, "exec", "--json", "-s", sandbox, "work in sub")
				w.expectNoRun(t, r, sub, "a "+sandbox+" session started in sub/")
			}
			w.expectLive(t, sub)
		})
	}
}
