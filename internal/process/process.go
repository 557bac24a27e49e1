package process

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/gocodex/gocodex/internal/proctree"
	"github.com/gocodex/gocodex/internal/sandbox"
)

// Stream names where a chunk of output came from.
type Stream int

const (
	Stdout Stream = iota
	Stderr
)

func (s Stream) String() string {
	if s == Stderr {
		return "stderr"
	}
	return "stdout"
}

// Spawner builds the command for argv; the sandbox uses it to wrap the command in its helper.
// The returned command must not be started; Start sets its standard streams and process
// group.
type Spawner func(ctx context.Context, argv []string, cwd string, env []string) (*exec.Cmd, error)

// PlainCommand is the default Spawner: the command itself, unsandboxed.
func PlainCommand(_ context.Context, argv []string, cwd string, env []string) (*exec.Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("missing command line")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = cwd
	cmd.Env = env
	return cmd, nil
}

// ErrStdinClosed is returned by Write when the process has no writable stdin.
var ErrStdinClosed = errors.New("stdin is closed")

// Drain timeouts: after the process exits, output may still sit in the pipes, or a
// background grandchild may hold them open forever. Wait this long for the readers.
const (
	drainAfterExit = 2 * time.Second
	drainAfterKill = 50 * time.Millisecond
)

// Spec describes a command to start.
type Spec struct {
	Argv []string
	Cwd  string
	Env  []string
	// TTY runs the command on a pseudo-terminal (stdout and stderr merged, stdin writable).
	TTY bool
	// Rows and Cols size the terminal; 24x80 when zero.
	Rows, Cols uint16
	// Stdin opens a writable stdin pipe in pipe mode; otherwise stdin is /dev/null.
	Stdin bool
	// Spawner builds the command; PlainCommand when nil.
	Spawner Spawner
	// OnOutput receives each chunk as it is read, one call at a time; the callee owns the
	// slice. At most MaxChunks calls are made (MaxDeltaEvents when zero, unlimited when
	// negative); output past that is still captured.
	OnOutput  func(Stream, []byte)
	MaxChunks int
	// RetainLimit caps the retained output of each capture (MaxRetainedOutput when zero).
	RetainLimit int
}

// Process is a started command. Its goroutines end once the process has exited and its
// output is drained; Kill forces both.
type Process struct {
	cmd  *exec.Cmd
	proc *os.Process
	// wait reaps the process (exec.Cmd's Wait, or the process's own for a pseudo-console's).
	wait  func() (*os.ProcessState, error)
	tree  *proctree.Tree
	term  terminal // the pseudo-terminal's own state where a platform keeps one
	start time.Time

	stdin  *os.File // pipe write end or the pty master; nil when closed
	master *os.File // pty master, when TTY
	reads  []*os.File

	outMu     sync.Mutex
	onOutput  func(Stream, []byte)
	maxChunks int
	chunks    int
	agg       *Capture
	streams   [2]*Capture

	readersDone chan struct{}
	killed      chan struct{}
	killOnce    sync.Once
	exited      chan struct{}
	done        chan struct{}

	mu       sync.Mutex
	exitCode int
	duration time.Duration
	waitErr  error
}

// Start spawns the command in its own process group (its own session with a controlling
// terminal in TTY mode).
func Start(ctx context.Context, spec Spec) (*Process, error) {
	spawn := spec.Spawner
	if spawn == nil {
		spawn = PlainCommand
	}
	if len(spec.Argv) == 0 {
		return nil, errors.New("missing command line")
	}
	cmd, err := spawn(ctx, spec.Argv, spec.Cwd, spec.Env)
	if err != nil {
		return nil, err
	}
	p := &Process{
		cmd:         cmd,
		onOutput:    spec.OnOutput,
		maxChunks:   spec.MaxChunks,
		agg:         NewCapture(spec.RetainLimit),
		readersDone: make(chan struct{}),
		killed:      make(chan struct{}),
		exited:      make(chan struct{}),
		done:        make(chan struct{}),
	}
	p.streams[Stdout] = NewCapture(spec.RetainLimit)
	p.streams[Stderr] = NewCapture(spec.RetainLimit)
	if p.maxChunks == 0 {
		p.maxChunks = MaxDeltaEvents
	}
	if spec.TTY {
		err = p.startPTY(spec)
	} else {
		err = p.startPipes(spec)
	}
	if err != nil {
		return nil, err
	}
	go p.finish()
	return p, nil
}

func (p *Process) startPipes(spec Spec) error {
	cmd := p.cmd
	// The root of a tree of its own, so a kill reaches every child.
	proctree.Prepare(cmd)
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(outR, outW)
		return err
	}
	var inR *os.File
	if spec.Stdin {
		if inR, p.stdin, err = os.Pipe(); err != nil {
			closeAll(outR, outW, errR, errW)
			return err
		}
		cmd.Stdin = inR
	} else {
		cmd.Stdin = nil // /dev/null
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = p.startTree()
	closeAll(outW, errW, inR) // the child holds its own copies
	if err != nil {
		closeAll(outR, errR, p.stdin)
		p.stdin = nil
		return err
	}
	p.start = time.Now()
	p.reads = []*os.File{outR, errR}
	p.startReaders(map[Stream]*os.File{Stdout: outR, Stderr: errR})
	return nil
}

// startTree starts the prepared command and makes it the root of its process tree.
func (p *Process) startTree() error {
	if err := p.cmd.Start(); err != nil {
		return err
	}
	tree, err := proctree.Attach(p.cmd)
	if err != nil {
		_ = p.cmd.Wait()
		return err
	}
	p.tree, p.proc = tree, p.cmd.Process
	p.wait = func() (*os.ProcessState, error) {
		err := p.cmd.Wait()
		return p.cmd.ProcessState, err
	}
	return nil
}

// termSize is the terminal size spec asks for, 24x80 by default.
func termSize(spec Spec) (rows, cols uint16) {
	rows, cols = spec.Rows, spec.Cols
	if rows == 0 {
		rows = 24
	}
	if cols == 0 {
		cols = 80
	}
	return rows, cols
}

func (p *Process) startReaders(files map[Stream]*os.File) {
	var wg sync.WaitGroup
	for s, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.read(s, f)
		}()
	}
	go func() {
		wg.Wait()
		close(p.readersDone)
	}()
}

func (p *Process) read(s Stream, f *os.File) {
	buf := make([]byte, 32*1024)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			p.deliver(s, buf[:n])
		}
		if err != nil {
			// EOF for pipes, EIO for a pty whose last holder closed, or the deadline that
			// the drain sets: all mean there is nothing more to read.
			return
		}
	}
}

func (p *Process) deliver(s Stream, b []byte) {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	p.agg.Write(b)
	p.streams[s].Write(b)
	if p.onOutput == nil || (p.maxChunks > 0 && p.chunks >= p.maxChunks) {
		return
	}
	p.chunks++
	p.onOutput(s, append([]byte(nil), b...))
}

// finish reaps the process, then waits for the readers (bounded), then marks it done.
func (p *Process) finish() {
	state, err := p.wait()
	// A sandbox helper killed with its group could not remove its placeholders: do it before
	// anyone learns the process ended (and may exit).
	sandbox.Reclaim(p.cmd)
	code := exitCode(state, err)
	p.mu.Lock()
	p.exitCode = code
	p.duration = time.Since(p.start)
	if code < 0 {
		p.waitErr = err
	}
	p.mu.Unlock()
	close(p.exited)
	p.afterExit()

	timer := time.NewTimer(drainAfterExit)
	defer timer.Stop()
	killed := p.killed
	drained := false
	for !drained {
		select {
		case <-p.readersDone:
			drained = true
		case <-killed:
			killed = nil
			timer.Reset(drainAfterKill)
		case <-timer.C:
			for _, f := range p.reads {
				_ = f.SetReadDeadline(time.Now())
			}
			<-p.readersDone
			drained = true
		}
	}
	closeAll(p.reads...)
	if p.stdin != nil && p.stdin != p.master {
		closeAll(p.stdin)
	}
	p.closeTerminal()
	p.tree.Release()
	close(p.done)
}

// exitCode maps a wait result to a shell-style code: the exit status, or 128+n for a signal.
func exitCode(st *os.ProcessState, err error) int {
	if st == nil {
		return -1
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok {
		if ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ws.ExitStatus()
	}
	return st.ExitCode()
}

// Pid is the process id (also its process group id).
func (p *Process) Pid() int { return p.proc.Pid }

// Write sends input to the process's stdin (the terminal in TTY mode).
func (p *Process) Write(b []byte) error {
	if p.stdin == nil {
		return ErrStdinClosed
	}
	select {
	case <-p.done:
		return ErrStdinClosed
	default:
	}
	_, err := p.stdin.Write(b)
	if err != nil {
		return fmt.Errorf("write stdin: %w", err)
	}
	return nil
}

// Kill ends the whole process tree (SIGKILL to the process group on Unix, the Job Object
// terminated on Windows). It is safe to call more than once and after the process has
// exited (on Unix stray group members are killed too).
func (p *Process) Kill() {
	p.killOnce.Do(func() { close(p.killed) })
	_ = p.tree.Kill()
	select {
	case <-p.exited:
	default:
		_ = p.proc.Kill()
	}
}

// Exited is closed when the process has been reaped (output may still be draining).
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Done is closed when the process has exited and its output has been read.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitCode is valid once Exited is closed: the exit status, 128+n after signal n.
func (p *Process) ExitCode() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exitCode
}

// HasExited reports whether the process has been reaped.
func (p *Process) HasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// Duration is the time from start to exit (so far, while running).
func (p *Process) Duration() time.Duration {
	if !p.HasExited() {
		return time.Since(p.start)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.duration
}

// Output returns the retained aggregate (stdout and stderr in arrival order) and each
// stream. Call it after Done for the complete picture.
func (p *Process) Output() (agg, stdout, stderr Output) {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	return p.agg.output(), p.streams[Stdout].output(), p.streams[Stderr].output()
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			_ = f.Close()
		}
	}
}
