package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// The harness of the repository-level attack suite (attack_suite_linux_test.go): each attack
// runs in a world of its own under /var/tmp (outside /tmp, which the sessions do not get as a
// writable root): a hostile repository, a directory outside every writable root, the agent's
// own CODEX_HOME, HOME and TMPDIR, and a scripted model that plays the attacking model's tool
// calls. The agent is the built binary (gocodex or Codex 0.169), run as the test's user or as
// nobody, exactly as a person runs it: `exec --json`, or `app-server` over stdio.

// datagramToolArg makes this test binary the attack's datagram sender (run inside the
// sandbox by the model's command): there is no portable shell command that calls sendmsg.
const datagramToolArg = "--e2e-attack-sendmsg"

func init() {
	if len(os.Args) == 3 && os.Args[1] == datagramToolArg {
		os.Exit(sendDatagram(os.Args[2]))
	}
}

// sendDatagram sends one datagram with sendmsg to the pathname AF_UNIX socket at path.
func sendDatagram(path string) int {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "socket:", err)
		return 1
	}
	defer unix.Close(fd)
	if err := unix.Sendmsg(fd, []byte("escaped"), nil, &unix.SockaddrUnix{Name: path}, 0); err != nil {
		fmt.Fprintln(os.Stderr, "sendmsg:", err)
		return 1
	}
	fmt.Println("sent")
	return 0
}

// attackUser is who runs the agent: the test's own user, or nobody.
type attackUser struct {
	// kind keys the recorded verdicts: "root" or "unprivileged".
	kind  string
	label string
	cred  *syscall.Credential // nil: the test's own user
}

// attackAgent is one binary run by one user, with the paths that user can reach.
type attackAgent struct {
	name string // "gocodex" or codexAgentName
	bin  string
	tool string // this test binary, for the datagram attack
	user attackUser
}

const codexAgentName = "codex 0.169"

func (a attackAgent) label() string { return a.name + " " + a.user.label }

func (a attackAgent) isGocodex() bool { return a.name == "gocodex" }

// attackAgents are gocodex and (when installed) Codex, each as the test's user and, when the
// test runs as root, as nobody.
func attackAgents(t *testing.T, codex string) []attackAgent {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	me := attackUser{kind: "unprivileged", label: fmt.Sprintf("uid %d", os.Getuid())}
	if os.Getuid() == 0 {
		me = attackUser{kind: "root", label: "root"}
	}
	agents := []attackAgent{{name: "gocodex", bin: binary, tool: self, user: me}}
	if codex != "" {
		agents = append(agents, attackAgent{name: codexAgentName, bin: codex, tool: self, user: me})
	}
	if os.Getuid() != 0 {
		return agents
	}
	nobody := attackUser{kind: "unprivileged", label: "nobody", cred: &syscall.Credential{Uid: 65534, Gid: 65534}}
	dir := varTmpDir(t, "gocodex-attack-bin-")
	tool := linkInto(t, self, dir)
	agents = append(agents, attackAgent{name: "gocodex", bin: linkInto(t, binary, dir), tool: tool, user: nobody})
	if codex != "" {
		// Codex sits under /root, which nobody cannot enter: its vendor tree (the binary and
		// its helpers) is linked where nobody can run it.
		vendor := filepath.Dir(filepath.Dir(codex))
		linked := filepath.Join(dir, "codex-vendor")
		if out, err := exec.Command("cp", "-al", vendor, linked).CombinedOutput(); err != nil {
			os.RemoveAll(linked)
			if out, err = exec.Command("cp", "-a", vendor, linked).CombinedOutput(); err != nil {
				t.Fatalf("copy Codex for nobody: %v %s", err, out)
			}
		}
		bin := filepath.Join(linked, filepath.Base(filepath.Dir(codex)), filepath.Base(codex))
		agents = append(agents, attackAgent{name: codexAgentName, bin: bin, tool: tool, user: nobody})
	}
	return agents
}

// varTmpDir is a directory under /var/tmp (outside /tmp) that nobody can enter, removed at
// the end.
func varTmpDir(t *testing.T, prefix string) string {
	dir, err := os.MkdirTemp("/var/tmp", prefix)
	if err != nil {
		t.Skipf("no directory outside /tmp for the attack worlds: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// linkInto makes file reachable in dir (a hard link, or a copy across file systems).
func linkInto(t *testing.T, file, dir string) string {
	dst := filepath.Join(dir, filepath.Base(file))
	if err := os.Link(file, dst); err == nil {
		return dst
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// attackPolicy is a session's configuration.
type attackPolicy struct {
	approval, sandbox string
	// trusted records the repository as a trusted project in config.toml.
	trusted bool
}

var (
	writeNever   = attackPolicy{approval: "never", sandbox: "workspace-write"}
	writeRequest = attackPolicy{approval: "on-request", sandbox: "workspace-write"}
	readNever    = attackPolicy{approval: "never", sandbox: "read-only"}
)

// attackWorld is one attack's machine: the hostile repository, a directory outside every
// writable root, and the agent's own homes.
type attackWorld struct {
	t     *testing.T
	agent attackAgent
	base  string
	// Repo is the workspace, Outside a directory outside every writable root (writable by
	// the agent's user, so an escape can write there), Tmp the agent's TMPDIR (a writable
	// root standing for /tmp, which is excluded so that nothing of the machine's is touched).
	Repo, Outside, CodexHome, Home, Tmp string
	Model                               *tk.Server
	script                              *attackScript
	// sink is the datagram attack's listener outside the roots.
	sink *datagramSink
	// hung lists the agent processes killed at attackRunTimeout.
	hung []string
	// log keeps what the agent printed (in the test's log, shown on failure or with -v).
	log strings.Builder
}

func newAttackWorld(t *testing.T, agent attackAgent) *attackWorld {
	w := &attackWorld{t: t, agent: agent, base: varTmpDir(t, "gocodex-attack-"), Model: tk.NewServer(t), script: &attackScript{}}
	w.Repo, w.Outside = filepath.Join(w.base, "repo"), filepath.Join(w.base, "outside")
	w.CodexHome, w.Home, w.Tmp = filepath.Join(w.base, "codex-home"), filepath.Join(w.base, "home"), filepath.Join(w.base, "tmp")
	for _, d := range []string{w.Repo, w.Outside, w.CodexHome, w.Home, w.Tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.Model.SetDefault(tk.Replying(w.script.reply))
	return w
}

// path is a path inside the repository.
func (w *attackWorld) path(rel string) string { return filepath.Join(w.Repo, rel) }

// write writes a file of the repository (or, with an absolute path, anywhere), making its
// folders.
func (w *attackWorld) write(path, content string) {
	w.t.Helper()
	if !filepath.IsAbs(path) {
		path = w.path(path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// git runs git in dir (relative to the repository) as the agent's user, whose repository
// it is (git refuses to work in another user's).
func (w *attackWorld) git(dir string, args ...string) {
	w.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=attack", "-c", "user.email=attack@example.com"}, args...)...)
	cmd.Dir = w.path(dir)
	cmd.Env = append(os.Environ(), "HOME="+w.Home, "GIT_CONFIG_NOSYSTEM=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: w.agent.user.cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// gitRepo makes dir (relative to the repository) a repository of the agent's user whose files
// (as they are now) are committed with timestamps an hour old: no git status finds an entry
// stale or racy and hashes the file again (which would run a filter); only what an agent
// does itself can.
func (w *attackWorld) gitRepo(dir string) {
	w.t.Helper()
	w.write(filepath.Join(dir, "README.md"), "# a repository\n")
	past := time.Now().Add(-time.Hour)
	root := w.path(dir)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, past, past)
	})
	if err != nil {
		w.t.Fatal(err)
	}
	if cred := w.agent.user.cred; cred != nil {
		w.chown(w.base, cred)
	}
	w.git(dir, "init", "-q")
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-q", "-m", "initial")
}

// handOver gives everything of the world to the agent's user.
func (w *attackWorld) handOver() {
	w.t.Helper()
	if cred := w.agent.user.cred; cred != nil {
		w.chown(w.base, cred)
	}
}

// chown gives the tree at root to cred's user, leaving what is already theirs untouched
// (a chown changes the ctime, and a repository's index would then be stale).
func (w *attackWorld) chown(root string, cred *syscall.Credential) {
	w.t.Helper()
	err := filepath.WalkDir(root, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		if st.Uid == cred.Uid && st.Gid == cred.Gid {
			return nil
		}
		return os.Lchown(p, int(cred.Uid), int(cred.Gid))
	})
	if err != nil {
		w.t.Fatal(err)
	}
}

// configure writes the agent's config.toml for a session: the scripted model, the policy,
// and /tmp excluded (TMPDIR, the world's own, stays a writable root).
func (w *attackWorld) configure(p attackPolicy) {
	w.t.Helper()
	extra := "sandbox_workspace_write = { exclude_slash_tmp = true }\n"
	if p.trusted {
		extra += fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n", w.Repo)
	}
	path := tk.WriteConfig(w.t, w.CodexHome, w.Model.URL(), tk.ConfigOptions{ApprovalPolicy: p.approval, SandboxMode: p.sandbox, Extra: extra})
	if cred := w.agent.user.cred; cred != nil {
		if err := os.Chown(path, int(cred.Uid), int(cred.Gid)); err != nil {
			w.t.Fatal(err)
		}
	}
}

// environ is the agent's environment: nothing of the developer's Codex, git or XDG setup.
func (w *attackWorld) environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "CODEX_"), strings.HasPrefix(k, "OPENAI_"), strings.HasPrefix(k, "GIT_"), strings.HasPrefix(k, "XDG_"),
			k == "HOME", k == "TMPDIR", k == "GORACE":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "CODEX_HOME="+w.CodexHome, "HOME="+w.Home, "TMPDIR="+w.Tmp, "MOCK_API_KEY=test-key", "GORACE=atexit_sleep_ms=0")
}

// command is the agent's binary with args, run in dir by the agent's user.
func (w *attackWorld) command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, w.agent.bin, args...)
	cmd.Dir, cmd.Env = dir, w.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: w.agent.user.cred}
	// A command the agent left running must not hold the test on its pipes.
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// attackRunTimeout bounds one agent process; a session takes a few seconds, so an agent
// still running then hangs (a tool call waiting for an answer nobody can give).
const attackRunTimeout = time.Minute

// startExec starts `exec --json` with the prompt in dir; wait ends it.
func (w *attackWorld) startExec(dir, prompt string) (wait func()) {
	ctx, cancel := context.WithTimeout(context.Background(), attackRunTimeout)
	cmd := w.command(ctx, dir, "exec", "--json", "--skip-git-repo-check", prompt)
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		cancel()
		w.t.Fatalf("start %s: %v", w.agent.bin, err)
	}
	return func() {
		err := cmd.Wait()
		if ctx.Err() != nil {
			w.hung = append(w.hung, fmt.Sprintf("exec %q was still running after %s, killed", prompt, attackRunTimeout))
		}
		cancel()
		fmt.Fprintf(&w.log, "$ %s exec %q (in %s): %v\n%s\n", w.agent.name, prompt, dir, err, out.String())
	}
}

// appServerThreads runs the sessions as threads of one app-server, started in order (each
// after its waitFor file appeared), and waits for every turn to complete.
func (w *attackWorld) appServerThreads(sessions []attackSession) {
	ctx, cancel := context.WithTimeout(context.Background(), attackRunTimeout)
	defer cancel()
	cmd := w.command(ctx, w.Repo, "app-server")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	c, stop := startStdioAppServer(w.t, cmd, nil)
	defer func() {
		stop()
		fmt.Fprintf(&w.log, "$ %s app-server: %v\n%s\n", w.agent.name, cmd.ProcessState, stderr.String())
	}()
	for i, s := range sessions {
		w.waitFor(s.waitFor)
		id := c.startThread(map[string]any{"cwd": w.path(s.dir)})
		c.turn(id, w.script.prompt(i, s))
	}
	for range sessions {
		for _, m := range c.until("turn/completed") {
			w.logNotification(m)
		}
	}
}

// logNotification keeps what a thread's commands did and how its turn ended.
func (w *attackWorld) logNotification(m rpcMsg) {
	var p struct {
		ThreadID string `json:"threadId"`
		Item     struct {
			Type             string  `json:"type"`
			Command          string  `json:"command"`
			ExitCode         *int    `json:"exitCode"`
			AggregatedOutput *string `json:"aggregatedOutput"`
		} `json:"item"`
		Turn struct {
			Status string `json:"status"`
		} `json:"turn"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch {
	case m.Method == "item/completed" && p.Item.Type == "commandExecution":
		out := ""
		if p.Item.AggregatedOutput != nil {
			out = *p.Item.AggregatedOutput
		}
		fmt.Fprintf(&w.log, "thread %s ran %q: exit %v %q\n", p.ThreadID, p.Item.Command, ptrValue(p.Item.ExitCode), out)
	case m.Method == "turn/completed":
		fmt.Fprintf(&w.log, "thread %s: turn %s\n", p.ThreadID, p.Turn.Status)
	}
}

func ptrValue(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// waitFor waits (boundedly) until the repository's file rel exists; "" waits for nothing.
func (w *attackWorld) waitFor(rel string) {
	if rel == "" {
		return
	}
	deadline := time.Now().Add(30 * time.Second)
	for !pathExists(w.path(rel)) {
		if time.Now().After(deadline) {
			fmt.Fprintf(&w.log, "(%s never appeared; the next session started anyway)\n", rel)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func pathExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// fileHas says whether the file at path contains s.
func fileHas(path, s string) bool {
	b, err := os.ReadFile(path)
	return err == nil && bytes.Contains(b, []byte(s))
}

// modelSaw says whether any request the model received contains s.
func (w *attackWorld) modelSaw(s string) bool {
	for _, r := range w.Model.Requests() {
		if bytes.Contains(r.Body, []byte(s)) {
			return true
		}
	}
	return false
}

// attackScript is the attacking model: each session's turns, played in order to the requests
// of that session (told apart by the tag in its prompt, so that sessions running together
// get their own turns). A request past the script gets a plain answer.
type attackScript struct {
	mu       sync.Mutex
	sessions []*scriptedSession
}

type scriptedSession struct {
	tag    string
	turns  []tk.Response
	served int
}

// prompt registers session i's turns and returns its prompt.
func (s *attackScript) prompt(i int, sess attackSession) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	tag := fmt.Sprintf("[attack session %d]", i+1)
	s.sessions = append(s.sessions, &scriptedSession{tag: tag, turns: sess.turns})
	if sess.prompt != "" {
		return sess.prompt
	}
	return "Work on this repository " + tag
}

func (s *attackScript) reply(req tk.Request) tk.Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	var cur *scriptedSession
	for _, c := range s.sessions {
		if bytes.Contains(req.Body, []byte(c.tag)) {
			cur = c
		}
	}
	if cur == nil { // a prompt of the user's own (a command): the first session not played out
		for _, c := range s.sessions {
			if c.served < len(c.turns) {
				cur = c
				break
			}
		}
	}
	if cur == nil || cur.served >= len(cur.turns) {
		return answer("done")
	}
	cur.served++
	return cur.turns[cur.served-1]
}

// unplayed lists the sessions whose script the agent did not play to the end.
func (s *attackScript) unplayed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, c := range s.sessions {
		if c.served < len(c.turns) {
			out = append(out, fmt.Sprintf("%s: %d of %d turns", c.tag, c.served, len(c.turns)))
		}
	}
	return out
}

// execCall is the model running cmd with exec_command, yielding after yieldMS (0: default).
func execCall(callID, cmd string, yieldMS int) tk.Response {
	args := map[string]any{"cmd": cmd}
	if yieldMS > 0 {
		args["yield_time_ms"] = yieldMS
	}
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return tk.SSE(tk.Created(), tk.FunctionCall(callID, "exec_command", string(b)), tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6}))
}

// applyPatchCall is the model calling apply_patch with a patch body (between the Begin and
// End markers).
func applyPatchCall(callID, body string) tk.Response {
	patch := "*** Begin Patch\n" + body + "*** End Patch\n"
	return tk.SSE(tk.Created(), tk.CustomToolCall(callID, "apply_patch", patch), tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6}))
}

// datagramSink is a pathname AF_UNIX datagram socket anyone may send to.
type datagramSink struct{ conn *net.UnixConn }

func listenDatagrams(t *testing.T, path string) *datagramSink {
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := os.Chmod(path, 0o777); err != nil {
		t.Fatal(err)
	}
	return &datagramSink{conn: conn}
}

// received says whether a datagram is waiting.
func (d *datagramSink) received() bool {
	_ = d.conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	buf := make([]byte, 64)
	n, err := d.conn.Read(buf)
	return err == nil && n > 0
}

// attackReport is the verdict table: the agents that ran and, when Codex did not, its
// recorded verdicts.
func attackReport(attacks []repoAttack, agents []attackAgent, got map[string]map[string]attackOutcome, withRecorded bool, recorded attackVerdicts) string {
	var order, columns []string
	for _, a := range attacks {
		order = append(order, a.name)
	}
	ran := map[string]bool{}
	for _, agent := range agents {
		columns = append(columns, agent.label())
		ran[agent.label()] = true
	}
	recordedColumn := map[string]string{}
	if withRecorded {
		for _, kind := range []string{"root", "unprivileged"} {
			if recorded[kind] != nil {
				c := codexAgentName + " " + kind + " (recorded)"
				columns = append(columns, c)
				recordedColumn[c] = kind
			}
		}
	}
	return verdictTable(order, columns, func(attack, column string) string {
		if ran[column] {
			o, ok := got[attack][column]
			if !ok {
				return "skipped"
			}
			if o.hung() {
				return o.verdict() + ", hung"
			}
			return o.verdict()
		}
		if v := recorded[recordedColumn[column]][attack]; v != "" {
			return v
		}
		return "-"
	})
}

// attackVerdicts are recorded verdicts: user kind -> attack -> blocked|escaped.
type attackVerdicts map[string]map[string]string

func loadAttackVerdicts(t *testing.T, path string) attackVerdicts {
	v := attackVerdicts{}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return v
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

func saveAttackVerdicts(t *testing.T, path string, v attackVerdicts) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// verdictTable is the report: one row per attack, one column per agent and user.
func verdictTable(order []string, columns []string, cell func(attack, column string) string) string {
	cells := make([][]string, len(order))
	width, widths := len("attack"), make([]int, len(columns))
	for i, c := range columns {
		widths[i] = len(c)
	}
	for r, a := range order {
		width = max(width, len(a))
		for i, c := range columns {
			cells[r] = append(cells[r], cell(a, c))
			widths[i] = max(widths[i], len(cells[r][i]))
		}
	}
	var b strings.Builder
	row := func(first string, vs []string) {
		fmt.Fprintf(&b, "%-*s", width, first)
		for i, v := range vs {
			fmt.Fprintf(&b, "  %-*s", widths[i], v)
		}
	}
	row("attack", columns)
	blocked, played := make([]int, len(columns)), make([]int, len(columns))
	for r, a := range order {
		b.WriteString("\n")
		row(a, cells[r])
		for i, v := range cells[r] {
			if strings.HasPrefix(v, "blocked") {
				blocked[i]++
			}
			if strings.HasPrefix(v, "blocked") || strings.HasPrefix(v, "escaped") {
				played[i]++
			}
		}
	}
	b.WriteString("\n")
	totals := make([]string, len(columns))
	for i := range columns {
		totals[i] = fmt.Sprintf("%d/%d", blocked[i], played[i])
	}
	row("blocked", totals)
	return b.String()
}
