// Package safegit runs git for gocodex itself (snapshots and rewinds, review checks, diffs)
// on repositories it does not trust: a repository the user opened, or one a model made in an
// earlier session. git runs programs a repository names — filter drivers (clean, smudge,
// process), textconv and external diff drivers, merge drivers, the fsmonitor hook, hooks,
// core.sshCommand, pagers, editors, credential helpers — and gocodex runs git outside the
// sandbox, as the user. Every git process gocodex starts goes through this package, which
// neutralises each of those:
//
//   - fixed overrides as -c options (which git hands on to the git processes it starts, in
//     submodules too): no fsmonitor, hooks from os.DevNull, no transport at all
//     (protocol.allow=never, so no ssh command, remote helper or credential helper), no pager,
//     editor, signature program or auto gc;
//   - every filter, diff and merge driver any configuration file defines (the repository's,
//     the user's) is emptied, found with `git config --list` before a command that could run
//     one and passed in GIT_CONFIG_COUNT (a driver's name may hold "=", which -c cannot
//     carry; git 2.31 or later, checked by a canary in the listing); a filter marked required
//     is made optional so that an emptied one stores the bytes as they are;
//   - diffs always run with --no-ext-diff --no-textconv --ignore-submodules=dirty (git would
//     otherwise run `git status`, with the submodule's own drivers, inside each submodule);
//   - `git add` is AddAll, which keeps the index's gitlinks (submodules, nested repositories)
//     out of its pathspecs: git add runs `git status` inside each of them otherwise;
//   - a repository whose own configuration includes another file (include.path, includeIf)
//     is refused before any such command: the included file may be one a command can write,
//     and could name a driver between the moment this package reads it and git's;
//   - subcommands and options nobody vetted are refused.
//
// The user's global and the system configuration are read as git reads them (they are the
// user's and the administrator's); the caller's GIT_* environment is dropped but for the
// variables that choose those files.
//
// What remains: the drivers are named by reading the configuration just before git runs.
// Where the sandbox cannot keep commands out of .git (Landlock without namespaces), a command
// left running in the background could add a driver to .git/config in between; there the
// commands may rewrite .git/config anyway, for the user's own next git to run.
package safegit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// Options say where git runs.
type Options struct {
	// Dir is git's working directory; without GitDir, git finds the repository from it.
	Dir string
	// GitDir and WorkTree, when set, are given to git as --git-dir and --work-tree.
	GitDir, WorkTree string
	// IndexFile, when set, is the index git reads and writes (GIT_INDEX_FILE).
	IndexFile string
	// Environ is the environment git starts from (nil: this process's). Its GIT_* variables
	// are dropped but for those that choose the user's and the system's configuration files.
	Environ []string
}

// Repo runs git on one repository. It reads the repository's configuration once, before the
// first command that could run a driver, so make one Repo per operation (a snapshot, a diff):
// a configuration changed later is read by the next operation's Repo.
type Repo struct {
	opts Options

	mu      sync.Mutex
	cfg     *repoConfig // nil until a command needs it
	baseEnv []string
}

// New returns a Repo; it starts no process.
func New(o Options) *Repo {
	return &Repo{opts: o, baseEnv: baseEnv(o)}
}

// Error is a git command that failed: Err is the *exec.ExitError (or the error starting it).
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", e.Args[0], msg)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrRefused is wrapped by the errors of commands this package will not run.
var ErrRefused = errors.New("refused")

// keptGitEnv are the GIT_* variables of the caller git still sees: they choose the user's
// own configuration files and where discovery stops.
var keptGitEnv = map[string]bool{
	"GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true, "GIT_CONFIG_NOSYSTEM": true,
	"GIT_CEILING_DIRECTORIES": true, "GIT_DISCOVERY_ACROSS_FILESYSTEM": true,
}

func baseEnv(o Options) []string {
	from := o.Environ
	if from == nil {
		from = os.Environ()
	}
	var env []string
	for _, kv := range from {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") && !keptGitEnv[k] {
			continue // GIT_DIR, GIT_INDEX_FILE, GIT_EXTERNAL_DIFF, GIT_CONFIG_PARAMETERS...
		}
		env = append(env, kv)
	}
	env = append(env, "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "LC_ALL=C")
	if o.IndexFile != "" {
		env = append(env, "GIT_INDEX_FILE="+o.IndexFile)
	}
	return env
}

// fixedOverrides hold whatever the repository says, for every command.
var fixedOverrides = [][2]string{
	{"core.fsmonitor", ""}, // off, whether git reads it as a bool (2.36 on) or a hook path
	{"core.hooksPath", os.DevNull},
	{"protocol.allow", "never"},
	{"core.sshCommand", "false"},
	{"core.askPass", ""},
	{"credential.helper", ""}, // an empty value clears the list
	{"core.pager", "cat"},
	{"core.editor", "false"},
	{"sequence.editor", "false"},
	{"gpg.program", "false"},
	{"gpg.ssh.program", "false"},
	{"gpg.x509.program", "false"},
	{"log.showSignature", "false"},
	{"diff.external", ""},
	{"diff.ignoreSubmodules", "dirty"},
	{"submodule.recurse", "false"},
	{"gc.auto", "0"},
	{"maintenance.auto", "false"},
	{"core.splitIndex", "false"}, // a split index writes a shared index into .git
	{"advice.addEmbeddedRepo", "false"},
}

// subcommand is what this package knows of one git subcommand.
type subcommand struct {
	// content: the command may read or write file contents through the attributes' filter
	// drivers, so the repository's drivers are neutralised first.
	content bool
	// inject are options added right after the subcommand.
	inject []string
	// refuse are options (or their prefixes, for --opt=value) the command may not be given.
	refuse []string
	// overrides are -c options given after the fixed ones, for this command only (a clone's
	// transport: protocol.allow=never forbids them all).
	overrides [][2]string
}

var diffOptions = []string{"--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty"}

// cloneTransports are the transports a fleet task's clone may use: a local path or file://,
// and https (no ssh: core.sshCommand is "false"; no credential helper: credential.helper is
// emptied, so only a public or an already reachable repository clones).
var cloneTransports = [][2]string{{"protocol.file.allow", "always"}, {"protocol.https.allow", "always"}}

// cloneRefused: options that run a program on either side, copy hooks from a template, set
// the new repository's configuration or fetch submodules (whose configuration nobody read).
var cloneRefused = []string{"--upload-pack", "-u", "--template", "--config", "-c", "--recurse-submodules", "--recursive", "--separate-git-dir"}

var diffRefused = []string{"--ext-diff", "--textconv", "--output", "--submodule=diff", "--ignore-submodules"}

// vetted are the subcommands gocodex runs, with what each needs. "add" is AddAll's.
var vetted = map[string]subcommand{
	"cat-file": {content: true, refuse: []string{"--textconv"}},
	// fleet tasks: a fresh clone of the task's repository, always --no-checkout (the
	// checkout runs filters, so it is a content command of its own, in the clone).
	"clone":        {inject: []string{"--no-checkout", "--quiet"}, refuse: cloneRefused, overrides: cloneTransports},
	"checkout":     {content: true, inject: []string{"--quiet"}, refuse: []string{"--recurse-submodules", "-p", "--patch"}},
	"diff":         {content: true, inject: diffOptions, refuse: diffRefused},
	"diff-files":   {content: true, inject: diffOptions, refuse: diffRefused},
	"diff-index":   {content: true, inject: diffOptions, refuse: diffRefused},
	"diff-tree":    {inject: diffOptions, refuse: diffRefused},
	"for-each-ref": {},
	"ls-files":     {content: true, refuse: []string{"--recurse-submodules"}},
	"merge-base":   {},
	"rev-parse":    {},
	"update-index": {content: true},
	"update-ref":   {},
	"version":      {}, // sandbox --explain: whether this git honours the overrides
	// --worktree: `worktree add --detach` checks the commit out, through the filters.
	"worktree":   {content: true},
	"write-tree": {content: true}, // writing the index hashes racily clean entries again, through their filters
}

// Output runs `git args...` and returns its standard output.
func (r *Repo) Output(ctx context.Context, args ...string) ([]byte, error) {
	return r.OutputStdin(ctx, nil, args...)
}

// OutputStdin is Output with stdin fed to git.
func (r *Repo) OutputStdin(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("safegit: no git subcommand: %w", ErrRefused)
	}
	sub, ok := vetted[args[0]]
	if !ok {
		return nil, fmt.Errorf("safegit: git %s is not a subcommand gocodex vetted: %w", args[0], ErrRefused)
	}
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		for _, bad := range sub.refuse {
			if a == bad || strings.HasPrefix(a, bad+"=") {
				return nil, fmt.Errorf("safegit: git %s %s could run a program the repository names: %w", args[0], a, ErrRefused)
			}
		}
	}
	full := append(append([]string{args[0]}, sub.inject...), args[1:]...)
	return r.run(ctx, sub, stdin, full)
}

// run starts git with the global options, the overrides and, for a content command, the
// repository's drivers neutralised.
func (r *Repo) run(ctx context.Context, sub subcommand, stdin io.Reader, args []string) ([]byte, error) {
	var neutralised [][2]string
	if sub.content {
		cfg, err := r.config(ctx)
		if err != nil {
			return nil, err
		}
		neutralised = cfg.neutralised
	}
	return r.execWith(ctx, sub.overrides, neutralised, stdin, args)
}

// exec runs git with the fixed overrides as -c options and env overrides in GIT_CONFIG_COUNT.
func (r *Repo) exec(ctx context.Context, env [][2]string, stdin io.Reader, args []string) ([]byte, error) {
	return r.execWith(ctx, nil, env, stdin, args)
}

// execWith is exec with a command's own -c overrides after the fixed ones.
func (r *Repo) execWith(ctx context.Context, overrides, env [][2]string, stdin io.Reader, args []string) ([]byte, error) {
	global := make([]string, 0, 2*(len(fixedOverrides)+len(overrides))+3)
	global = append(global, "--no-pager")
	for _, kv := range append(fixedOverrides[:len(fixedOverrides):len(fixedOverrides)], overrides...) {
		global = append(global, "-c", kv[0]+"="+kv[1])
	}
	if r.opts.GitDir != "" {
		global = append(global, "--git-dir="+r.opts.GitDir)
	}
	if r.opts.WorkTree != "" {
		global = append(global, "--work-tree="+r.opts.WorkTree)
	}
	cmd := exec.CommandContext(ctx, "git", append(global, args...)...)
	cmd.Dir = r.opts.Dir
	cmd.Env = append(append([]string{}, r.baseEnv...), configEnv(env)...)
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, &Error{Args: args, Stderr: stderr.String(), Err: err}
	}
	return out, nil
}

// configEnv passes overrides as GIT_CONFIG_COUNT pairs: unlike -c, a key may hold any
// character (a driver's name may have "=" or "."); git hands them on to the git processes
// it starts.
func configEnv(overrides [][2]string) []string {
	if len(overrides) == 0 {
		return nil
	}
	env := make([]string, 0, 2*len(overrides)+1)
	env = append(env, "GIT_CONFIG_COUNT="+strconv.Itoa(len(overrides)))
	for i, kv := range overrides {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+kv[0], "GIT_CONFIG_VALUE_"+n+"="+kv[1])
	}
	return env
}

// contentCommand is a command outside the vetted table (AddAll's) that reads contents.
var contentCommand = subcommand{content: true}
