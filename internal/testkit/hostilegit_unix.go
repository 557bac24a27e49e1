//go:build unix

package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// GitMarker is a program that records each of its runs, one line of its arguments, in a log
// outside the repository: the witness that git ran a program a repository named. Run as a
// filter ("filter ..."), it copies its input to its output.
type GitMarker struct {
	Program, Log string
}

// NewGitMarker writes the marker program into dir ("": a directory of its own); the user
// git runs as must be able to run it and write the log there.
func NewGitMarker(t testing.TB, dir string) GitMarker {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	m := GitMarker{Program: filepath.Join(dir, "marker"), Log: filepath.Join(dir, "ran.log")}
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + m.Log + "'\nif [ \"$1\" = filter ]; then exec cat; fi\nexit 0\n"
	if err := os.WriteFile(m.Program, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return m
}

// Cmd is a command line running the marker with args, for a config value.
func (m GitMarker) Cmd(args ...string) string {
	return strings.Join(append([]string{m.Program}, args...), " ")
}

// Runs are the recorded runs (none when the log does not exist).
func (m GitMarker) Runs(t testing.TB) []string {
	t.Helper()
	data, err := os.ReadFile(m.Log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

// Reset forgets the recorded runs.
func (m GitMarker) Reset(t testing.TB) {
	t.Helper()
	if err := os.Remove(m.Log); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// HostileGit is one way a repository gets git to run a program of its choosing.
type HostileGit struct {
	Name string
	// Include: the program is named in a file the repository's configuration includes
	// (gocodex refuses the git commands that read file contents there).
	Include bool
	// Plant makes the fixture repo name the marker (after the fixture's own commits).
	Plant func(t testing.TB, repo string, m GitMarker)
	// Witness, when set, are git command lines (fed WitnessStdin) that run the planted
	// program under plain git: they show the fixture is live. Nil where plain git needs a
	// terminal (a pager) or a key (a signature).
	Witness      [][]string
	WitnessStdin string
}

// gitHooks are the hooks git runs on the client side.
var gitHooks = []string{"applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
	"prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge", "pre-push",
	"reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite", "post-index-change", "fsmonitor-watchman"}

// writeHooks fills dir with every hook, each running the marker.
func writeHooks(t testing.TB, dir string, m GitMarker) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, h := range gitHooks {
		script := "#!/bin/sh\nexec " + m.Cmd("hook", h) + "\n"
		if err := os.WriteFile(filepath.Join(dir, h), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// everyDriver is configuration naming the marker through each driver and setting.
func everyDriver(m GitMarker, hooks string) string {
	return "[filter \"x\"]\n\tclean = " + m.Cmd("filter", "clean") + "\n\tsmudge = " + m.Cmd("filter", "smudge") +
		"\n[diff \"x\"]\n\ttextconv = " + m.Cmd("textconv") + "\n\tcommand = " + m.Cmd("diff-command") +
		"\n[merge \"x\"]\n\tdriver = " + m.Cmd("merge") +
		"\n[core]\n\tfsmonitor = " + m.Cmd("fsmonitor") + "\n\thooksPath = " + hooks +
		"\n\tpager = " + m.Cmd("pager") + "\n\teditor = " + m.Cmd("editor") + "\n"
}

var (
	witnessAdd    = [][]string{{"add", "-A"}}
	witnessDiff   = [][]string{{"diff", "HEAD~1"}}
	witnessCommit = [][]string{{"commit", "-q", "--allow-empty", "-m", "witness"}}
)

// HostileGitMechanisms are the ways a repository (its .git, its tree, or a repository nested
// in it) or the user's configuration names a program git runs.
func HostileGitMechanisms() []HostileGit {
	cfg := func(kv ...string) func(testing.TB, string, GitMarker) {
		return func(t testing.TB, repo string, m GitMarker) {
			for i := 0; i < len(kv); i += 2 {
				v := strings.ReplaceAll(kv[i+1], "MARKER", m.Program)
				GitFixtureCmd(t, repo, "config", kv[i], v)
			}
		}
	}
	return []HostileGit{
		{Name: "filter clean", Plant: cfg("filter.x.clean", "MARKER filter clean"), Witness: witnessAdd},
		{Name: "filter smudge", Plant: cfg("filter.x.smudge", "MARKER filter smudge"), Witness: [][]string{{"cat-file", "--filters", "HEAD:b.txt"}}},
		{Name: "filter process", Plant: cfg("filter.x.process", "MARKER filter process"), Witness: witnessAdd},
		{Name: "required filter", Plant: cfg("filter.x.clean", "MARKER filter clean", "filter.x.smudge", "MARKER filter smudge", "filter.x.required", "true"), Witness: witnessAdd},
		{Name: "filter named in info/attributes", Plant: func(t testing.TB, repo string, m GitMarker) {
			cfg("filter.y.clean", "MARKER filter clean")(t, repo, m)
			writeFile(t, filepath.Join(repo, ".git", "info", "attributes"), "* filter=y\n")
		}, Witness: witnessAdd},
		{Name: "filter named in core.attributesFile", Plant: func(t testing.TB, repo string, m GitMarker) {
			attrs := filepath.Join(filepath.Dir(m.Log), "attributes")
			writeFile(t, attrs, "* filter=y\n")
			// The tree's own attributes come first: they leave the filter to this file.
			writeFile(t, filepath.Join(repo, ".gitattributes"), "* diff=x merge=x\n")
			cfg("filter.y.clean", "MARKER filter clean", "core.attributesFile", attrs)(t, repo, m)
		}, Witness: witnessAdd},
		{Name: "filter in the user's global config", Plant: func(t testing.TB, repo string, m GitMarker) {
			home := os.Getenv("HOME")
			GitFixtureCmd(t, repo, "config", "--file", filepath.Join(home, ".gitconfig"), "filter.x.clean", m.Cmd("filter", "clean"))
		}, Witness: witnessAdd},
		{Name: "textconv", Plant: cfg("diff.x.textconv", "MARKER textconv"), Witness: witnessDiff},
		{Name: "diff driver command", Plant: cfg("diff.x.command", "MARKER diff-command"), Witness: witnessDiff},
		{Name: "diff.external", Plant: cfg("diff.external", "MARKER diff-external"), Witness: witnessDiff},
		{Name: "merge driver", Plant: cfg("merge.x.driver", "MARKER merge %O %A %B"), Witness: [][]string{{"merge-tree", "--write-tree", "main", "side"}}},
		{Name: "fsmonitor", Plant: cfg("core.fsmonitor", "MARKER fsmonitor"), Witness: [][]string{{"status"}}},
		{Name: "hooks in .git/hooks", Plant: func(t testing.TB, repo string, m GitMarker) {
			writeHooks(t, filepath.Join(repo, ".git", "hooks"), m)
		}, Witness: witnessCommit},
		{Name: "core.hooksPath", Plant: func(t testing.TB, repo string, m GitMarker) {
			hooks := filepath.Join(filepath.Dir(m.Log), "hooks")
			writeHooks(t, hooks, m)
			cfg("core.hooksPath", hooks)(t, repo, m)
		}, Witness: witnessCommit},
		{Name: "core.sshCommand", Plant: cfg("remote.origin.url", "ssh://git.example.invalid/x.git", "core.sshCommand", "MARKER ssh"),
			Witness: [][]string{{"ls-remote", "origin"}}},
		{Name: "pager", Plant: cfg("core.pager", "MARKER pager", "pager.diff", "MARKER pager")},
		{Name: "editor", Plant: cfg("core.editor", "MARKER editor", "sequence.editor", "MARKER editor"),
			Witness: [][]string{{"commit", "-q", "--allow-empty"}}},
		{Name: "credential helper", Plant: cfg("credential.helper", "!MARKER credential"),
			Witness: [][]string{{"credential", "fill"}}, WitnessStdin: "protocol=https\nhost=git.example.invalid\n\n"},
		{Name: "gpg program", Plant: cfg("gpg.program", "MARKER gpg", "log.showSignature", "true")},
		{Name: "include.path", Include: true, Plant: func(t testing.TB, repo string, m GitMarker) {
			inc := filepath.Join(filepath.Dir(m.Log), "included.gitconfig")
			hooks := filepath.Join(filepath.Dir(m.Log), "hooks")
			writeHooks(t, hooks, m)
			writeFile(t, inc, everyDriver(m, hooks))
			cfg("include.path", inc)(t, repo, m)
		}, Witness: witnessAdd},
		{Name: "includeIf", Include: true, Plant: func(t testing.TB, repo string, m GitMarker) {
			inc := filepath.Join(filepath.Dir(m.Log), "included.gitconfig")
			hooks := filepath.Join(filepath.Dir(m.Log), "hooks")
			writeHooks(t, hooks, m)
			writeFile(t, inc, everyDriver(m, hooks))
			cfg("includeIf.gitdir:"+repo+"/.path", inc)(t, repo, m)
		}, Witness: witnessAdd},
		{Name: "submodule with its own drivers", Plant: plantSubmodule, Witness: [][]string{{"status"}}},
		{Name: "nested repository with its own drivers", Plant: plantNested, Witness: [][]string{witnessAdd[0], witnessAdd[0]}},
	}
}

// plantSubmodule registers a submodule whose own repository names the marker everywhere,
// with a file whose timestamp changed (so a status inside it hashes the file again).
func plantSubmodule(t testing.TB, repo string, m GitMarker) {
	t.Helper()
	inner := t.TempDir()
	GitFixtureCmd(t, inner, "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(inner, "f"), "inner\n")
	GitFixtureCmd(t, inner, "add", "f")
	GitFixtureCmd(t, inner, "commit", "-q", "-m", "inner")
	GitFixtureCmd(t, repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", inner, "inner")
	GitFixtureCmd(t, repo, "commit", "-q", "-m", "submodule")
	sub := filepath.Join(repo, "inner")
	gitDir := strings.TrimSpace(GitFixtureCmd(t, sub, "rev-parse", "--absolute-git-dir"))
	plantOwnDrivers(t, sub, gitDir, m)
}

// plantNested makes sub/ a repository of its own with a commit, not registered in the outer
// one (as a model can in a session), whose configuration names the marker everywhere.
func plantNested(t testing.TB, repo string, m GitMarker) {
	t.Helper()
	sub := filepath.Join(repo, "sub")
	GitFixtureCmd(t, repo, "init", "-q", "-b", "main", sub)
	writeFile(t, filepath.Join(sub, "f"), "nested\n")
	GitFixtureCmd(t, sub, "add", "f")
	GitFixtureCmd(t, sub, "commit", "-q", "-m", "nested")
	plantOwnDrivers(t, sub, filepath.Join(sub, ".git"), m)
}

// plantOwnDrivers names the marker in a nested repository's own config, attributes and
// hooks, and changes its file's timestamp.
func plantOwnDrivers(t testing.TB, work, gitDir string, m GitMarker) {
	t.Helper()
	hooks := filepath.Join(gitDir, "hooks")
	writeHooks(t, hooks, m)
	for _, kv := range [][2]string{{"filter.s.clean", m.Cmd("filter", "clean")}, {"filter.s.smudge", m.Cmd("filter", "smudge")},
		{"core.fsmonitor", m.Cmd("fsmonitor")}, {"diff.s.textconv", m.Cmd("textconv")}} {
		GitFixtureCmd(t, work, "config", kv[0], kv[1])
	}
	writeFile(t, filepath.Join(gitDir, "info", "attributes"), "* filter=s diff=s\n")
	touch(t, filepath.Join(work, "f"))
}

// NewHostileGitFixture is a repository for the attacks, with no program planted yet: branch
// main of two commits, its upstream the local branch base (the first commit), and a branch
// side from base that changes a.txt otherwise; every file selects the driver "x" through
// .gitattributes. HOME must be the test's own.
func NewHostileGitFixture(t testing.TB) string {
	t.Helper()
	repo := t.TempDir()
	GitFixtureCmd(t, repo, "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(repo, ".gitattributes"), "* filter=x diff=x merge=x\n")
	writeFile(t, filepath.Join(repo, "a.txt"), "alpha\n")
	writeFile(t, filepath.Join(repo, "b.txt"), "bravo\n")
	GitFixtureCmd(t, repo, "add", "-A")
	GitFixtureCmd(t, repo, "commit", "-q", "-m", "one")
	GitFixtureCmd(t, repo, "branch", "base")
	GitFixtureCmd(t, repo, "checkout", "-q", "-b", "side")
	writeFile(t, filepath.Join(repo, "a.txt"), "alpha side\n")
	GitFixtureCmd(t, repo, "commit", "-q", "-am", "side")
	GitFixtureCmd(t, repo, "checkout", "-q", "main")
	writeFile(t, filepath.Join(repo, "a.txt"), "alpha two\n")
	GitFixtureCmd(t, repo, "commit", "-q", "-am", "two")
	GitFixtureCmd(t, repo, "config", "branch.main.remote", ".")
	GitFixtureCmd(t, repo, "config", "branch.main.merge", "refs/heads/base")
	return repo
}

// DirtyHostileGitFixture changes the work tree as a user would before a session: a.txt edited
// to the same size, every tracked file's timestamp moved (so git must read them again), an
// untracked file.
func DirtyHostileGitFixture(t testing.TB, repo string) {
	t.Helper()
	writeFile(t, filepath.Join(repo, "a.txt"), "ALPHA TWO\n")
	for _, f := range []string{".gitattributes", "a.txt", "b.txt"} {
		touch(t, filepath.Join(repo, f))
	}
	writeFile(t, filepath.Join(repo, "new.txt"), "untracked\n")
}

// GitFixtureCmd runs git as the fixtures' author, with no system config, and returns its output.
func GitFixtureCmd(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// touch moves a file's timestamps a day back: its size is unchanged, so git cannot tell it
// from its index entry without reading it.
func touch(t testing.TB, path string) {
	t.Helper()
	past := time.Now().Add(-24 * time.Hour)
	if err := os.Chtimes(path, past, past); err != nil {
		t.Fatal(err)
	}
}
