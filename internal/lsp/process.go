package lsp

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"

	"github.com/gocodex/gocodex/internal/proctree"
	"github.com/gocodex/gocodex/internal/sandbox"
)

// process is a running server: its pipes, and a channel closed when it has exited.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *tailBuffer
	done   chan struct{}
	err    error // the wait's, once done is closed
}

// startProcess starts cmd with pipes, leading a process group so that whatever the server
// starts (gopls's go list, a build script) ends with it. A sandboxed command already leads a
// session of its own (the helper), and must keep the helper's SysProcAttr.
func startProcess(cmd *exec.Cmd) (*process, error) {
	// Our own pipes, not cmd's: Wait, which runs while the connection still reads, would
	// close those under the reader.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &process{cmd: cmd, stdin: inW, stdout: outR, stderr: &tailBuffer{max: 4096}, done: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	if cmd.SysProcAttr == nil {
		proctree.PrepareGroup(cmd)
	}
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	go func() { // ends when the server exits; kill makes sure it does
		p.err = cmd.Wait()
		sandbox.Reclaim(cmd)
		close(p.done)
	}()
	return p, nil
}

// kill ends the server and everything it started, and waits for it.
func (p *process) kill() {
	_ = proctree.KillGroup(p.cmd)
	<-p.done
}

// Read and Write make the pipes one stream for the JSON-RPC framing; Close closes both.
func (p *process) Read(b []byte) (int, error)  { return p.stdout.Read(b) }
func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }
func (p *process) Close() error {
	return errors.Join(p.stdin.Close(), p.stdout.Close())
}

// tailBuffer keeps the last max bytes written: a crashed server's last words.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}
