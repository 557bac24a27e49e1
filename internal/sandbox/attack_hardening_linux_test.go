package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The attempts of issue 28 against what Codex 0.169 leaves open (setuid bits, credentials,
// pathname datagrams) and against the placeholders of absent protected names under
// concurrency and crashes, each judged from outside: file modes, files on the host, leftover
// directories, a listener's queue.

// attackSecret is what the runners' CODEX_HOME credential files hold.
const attackSecret = "sk-gocodex-attack-secret"

func hardeningAttempts() []attempt {
	return []attempt{
		setIDAttempt("chmod u+s a file in the workspace (chmod)", "chmod", "4755"),
		setIDAttempt("chmod g+s a file in the workspace (chmod)", "chmod", "2755"),
		setIDAttempt("chmod u+s a file in the workspace (fchmod)", "fchmod", "4755"),
		setIDAttempt("chmod g+s a file in the workspace (fchmodat)", "fchmodat", "2755"),
		setIDAttempt("chmod u+s a file in the workspace (fchmodat2)", "fchmodat2", "4755"),
		createSetIDAttempt("create a setuid file in the workspace (open O_CREAT 04755)", "create-mode"),
		createSetIDAttempt("create a setuid file in the workspace (mknod S_IFREG|04755)", "mknod-mode"),
		createSetIDAttempt("create a setuid file in the workspace (openat2 O_CREAT 04755)", "openat2-create"),
		{name: "a setuid file under a writable root, on a mount without nosuid", class: "privileges", mustBlock: withNamespaces, try: func(e *attackEnv) bool {
			f := filepath.Join(e.cwd, "suid")
			if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
				e.t.Fatal(err)
			}
			if err := os.Chmod(f, 0o4755); err != nil {
				e.t.Fatal(err)
			}
			return strings.Contains(e.run("suid-mount="+f), "suid-mount ok")
		}},
		credentialAttempt("read gocodex's auth.json in $CODEX_HOME", "auth.json"),
		credentialAttempt("read MCP OAuth tokens in $CODEX_HOME/.credentials.json", ".credentials.json"),
		datagramAttempt("datagram through a SOCK_DGRAM socketpair to a pathname socket outside", "unix-send-pair"),
		datagramAttempt("datagram through an AF_UNIX SOCK_RAW socket to a pathname socket outside", "unix-send-raw"),
		datagramAttempt("sendto a pathname unix socket outside the roots", "unix-sendto"),
		{name: "placeholder race: the first of two sandboxes on a root ends, the second writes .git/config and .codex/config.toml", class: "protected", mustBlock: withNamespaces, try: placeholderRace},
		{name: "SIGKILL of the sandbox mid-run (a turn's end) leaves placeholders in the root or /tmp", class: "protected", mustBlock: withNamespaces, try: func(e *attackEnv) bool {
			return killMidRun(e, false)
		}},
		{name: "SIGKILL of gocodex mid-run leaves placeholders in the root or /tmp", class: "protected", mustBlock: withNamespaces, try: func(e *attackEnv) bool {
			return killMidRun(e, true)
		}},
	}
}

// setIDAttempt sets a setuid or setgid mode on a file of the workspace with op; it escapes
// when the file has either bit afterwards.
func setIDAttempt(name, op, mode string) attempt {
	return attempt{name: name, class: "privileges", try: func(e *attackEnv) bool {
		f := filepath.Join(e.cwd, "tool")
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.Chmod(f, 0o755); err != nil {
			e.t.Fatal(err)
		}
		e.run(op + "=" + f + "," + mode)
		return hasSetID(f)
	}}
}

// createSetIDAttempt creates a file with a setuid mode with op.
func createSetIDAttempt(name, op string) attempt {
	return attempt{name: name, class: "privileges", try: func(e *attackEnv) bool {
		f := filepath.Join(e.cwd, "created-suid")
		e.run(op + "=" + f + ",4755")
		return hasSetID(f)
	}}
}

func hasSetID(path string) bool {
	var st unix.Stat_t
	return unix.Lstat(path, &st) == nil && st.Mode&(unix.S_ISUID|unix.S_ISGID) != 0
}

// credentialAttempt reads a credential file of the runner's CODEX_HOME.
func credentialAttempt(name, file string) attempt {
	return attempt{name: name, class: "credentials", mustBlock: withNamespaces, try: func(e *attackEnv) bool {
		if e.r.codexHome == "" {
			e.t.Fatal("the runner has no CODEX_HOME")
		}
		return strings.Contains(e.run("read-secret="+filepath.Join(e.r.codexHome, file)+","+attackSecret), "read-secret ok")
	}}
}

// writeCredentials puts credential files holding attackSecret into a runner's CODEX_HOME.
func writeCredentials(t *testing.T, home string) {
	for _, f := range []string{"auth.json", ".credentials.json"} {
		body := fmt.Sprintf(`{"OPENAI_API_KEY": %q}`, attackSecret)
		if err := os.WriteFile(filepath.Join(home, f), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// datagramAttempt sends a datagram to a pathname socket outside the roots with op.
func datagramAttempt(name, op string) attempt {
	return attempt{name: name, class: "network", try: func(e *attackEnv) bool {
		p := filepath.Join(e.outside, "dgram")
		ln, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: p, Net: "unixgram"})
		if err != nil {
			e.t.Fatal(err)
		}
		defer ln.Close()
		_ = os.Chmod(p, 0o777)
		e.run(op + "=" + p)
		return received(ln)
	}}
}

// placeholderRace runs two sandboxes on the bare workspace (no .git, no .codex): the first
// starts, the second starts, the first ends, then the second writes .git/config and
// .codex/config.toml. It escapes when either file is on the host afterwards.
func placeholderRace(e *attackEnv) bool {
	aReady, aGo := filepath.Join(e.bare, "a-ready"), filepath.Join(e.outside, "a-go")
	bReady, bGo := filepath.Join(e.bare, "b-ready"), filepath.Join(e.outside, "b-go")
	first := e.start(e.bare, "create="+aReady, "await="+aGo)
	defer first.wait()
	if !e.waitFile(aReady, first) {
		e.t.Errorf("%s: the first sandbox never started: %s", e.r.name, first.wait())
		return false
	}
	second := e.start(e.bare, "create="+bReady, "await="+bGo,
		"mkdir-write="+filepath.Join(e.bare, ".git", "config"), "mkdir-write="+filepath.Join(e.bare, ".codex", "config.toml"))
	defer second.wait()
	if !e.waitFile(bReady, second) {
		e.t.Errorf("%s: the second sandbox never started: %s", e.r.name, second.wait())
		return false
	}
	touch(e.t, aGo)
	first.wait()
	touch(e.t, bGo)
	out := second.wait()
	escaped := exists(filepath.Join(e.bare, ".git", "config")) || exists(filepath.Join(e.bare, ".codex", "config.toml"))
	if escaped {
		e.t.Logf("%s: %s", e.r.name, out)
	}
	return escaped
}

// killMidRun starts a sandbox on the bare workspace and, once it runs, SIGKILLs either the
// sandbox under the launcher (what the end of a turn does to a background command: the
// helper's process group) or the launcher itself (gocodex). It escapes when a placeholder is
// left, once everything of the sandbox is gone, in the workspace or in /tmp (one no running
// sandbox holds).
func killMidRun(e *attackEnv, killLauncher bool) bool {
	before := protectedEntries(e.bare, "/tmp")
	marker := uniq("gocodex-attack-kill")
	ready := filepath.Join(e.bare, "ready")
	s := e.start(e.bare, "create="+ready, "await="+filepath.Join(e.outside, marker))
	defer s.wait()
	if !e.waitFile(ready, s) {
		e.t.Errorf("%s: the sandbox never started: %s", e.r.name, s.wait())
		return false
	}
	launcher := s.cmd.Process.Pid
	if killLauncher {
		_ = unix.Kill(launcher, unix.SIGKILL)
	} else {
		for _, pid := range marked(marker) {
			if pid != launcher {
				_ = unix.Kill(pid, unix.SIGKILL)
			}
		}
	}
	s.wait()
	// With namespaces the sandbox's processes end with the launcher (gocodex's helper sees its
	// lifeline break); elsewhere, or whatever still runs after a while, is ended here so the
	// placeholders can be judged.
	if e.r.mechanism.usesNamespaces() {
		deadline := time.Now().Add(20 * time.Second)
		for len(marked(marker)) > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if left := marked(marker); len(left) > 0 {
		if e.r.mechanism.usesNamespaces() {
			e.t.Errorf("%s: processes %v outlived the launcher", e.r.name, left)
		}
		for _, pid := range left {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
	}
	var leftovers []string
	for p, ino := range protectedEntries(e.bare, "/tmp") {
		if before[p] != ino && unusedPlaceholder(p) {
			leftovers = append(leftovers, p)
			_ = os.Remove(p) // empty: the next attempt starts clean
		}
	}
	if len(leftovers) > 0 {
		e.t.Logf("%s: left behind %v", e.r.name, leftovers)
	}
	return len(leftovers) > 0
}

// protectedEntries maps the protected names present in dirs to their inode numbers, so that
// what a run left can be told from what was there before it (another test's sandbox may hold
// /tmp's, or have left them).
func protectedEntries(dirs ...string) map[string]uint64 {
	m := map[string]uint64{}
	for _, dir := range dirs {
		for _, name := range protectedNames {
			p := filepath.Join(dir, name)
			var st unix.Stat_t
			if unix.Lstat(p, &st) == nil {
				m[p] = st.Ino
			}
		}
	}
	return m
}

// unusedPlaceholder reports whether path is an empty directory no running gocodex sandbox
// holds (another test's sandbox may hold /tmp's).
func unusedPlaceholder(path string) bool {
	ents, err := os.ReadDir(path)
	if err != nil || len(ents) > 0 {
		return false
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return true // a directory we cannot even open is no one's lock
	}
	defer unix.Close(fd)
	return !errors.Is(unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB), unix.EWOULDBLOCK)
}

// startedRun is a sandboxed run in the background.
type startedRun struct {
	cmd  *exec.Cmd
	out  *bytes.Buffer
	done chan struct{}
}

// start runs the ops sandboxed in cwd without waiting for them.
func (e *attackEnv) start(cwd string, ops ...string) *startedRun {
	e.t.Helper()
	argv := e.r.argv(cwd, ops...)
	cmd := exec.Command(argv[0], argv[1:]...)
	s := &startedRun{cmd: cmd, out: new(bytes.Buffer), done: make(chan struct{})}
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = cwd, e.r.env, s.out, s.out
	// A launcher killed on purpose may leave its children holding the output pipe.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		e.t.Fatalf("start %v: %v", argv, err)
	}
	go func() { _ = cmd.Wait(); close(s.done) }()
	return s
}

// wait waits for the run (killing it after a minute) and returns its output.
func (s *startedRun) wait() string {
	select {
	case <-s.done:
	case <-time.After(60 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	return s.out.String()
}

// waitFile waits for path to exist while s runs.
func (e *attackEnv) waitFile(path string, s *startedRun) bool {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if exists(path) {
			return true
		}
		select {
		case <-s.done:
			return exists(path)
		default:
		}
	}
	return false
}

func touch(t *testing.T, path string) {
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
