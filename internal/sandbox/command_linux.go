package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// Command returns the command ready to start: for danger-full-access the plain command, for
// every other policy the helper re-exec that confines itself and then becomes the command.
// The helper starts in a session of its own (cmd.SysProcAttr.Setsid), so the command has no
// controlling terminal to inject keystrokes into; callers may give it a terminal of its own
// (Setctty) but must neither replace SysProcAttr, which may carry the namespace flags, nor set
// Setpgid, which fails for a session leader, nor replace ExtraFiles, which carries the
// helper's lifeline.
func Command(ctx context.Context, req Request) (*exec.Cmd, error) {
	if cmd, done, err := req.unconfined(ctx); done {
		return cmd, err
	}
	probe := req.probe(ctx)
	mech := probe.Mechanism
	if mech == MechanismNone {
		return nil, probe.Err
	}
	policyCwd := req.policyCwd()
	exe, err := Binary(req.Options)
	if err != nil {
		return nil, err
	}
	policyJSON, err := encodePolicy(req.Policy)
	if err != nil {
		return nil, err
	}
	args := []string{HelperArg,
		"--sandbox-policy-cwd", policyCwd,
		"--command-cwd", req.Cwd,
		"--sandbox-policy", policyJSON,
		"--mechanism", string(mech)}
	if !mech.usesNamespaces() {
		cmd := exec.CommandContext(ctx, exe, append(append(args, "--"), req.Argv...)...)
		cmd.Dir, cmd.Env = req.Cwd, req.Env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		return cmd, nil
	}
	args = append(args, "--codex-home", codexHomeFor(req.Options), "--lifeline-fd", "3", "--")
	cmd := exec.CommandContext(ctx, exe, append(args, req.Argv...)...)
	cmd.Dir, cmd.Env = req.Cwd, req.Env
	newNet := !req.Policy.HasFullNetworkAccess() && !(mech.usesLandlock() && probe.LandlockABI >= landlockScopeABI)
	if cmd.SysProcAttr, err = namespaceAttr(newNet); err != nil {
		return nil, err
	}
	policy, env := req.Policy, req.Env
	if err := watchHelper(cmd, func() { reclaimRoots(WritableRoots(policy, policyCwd, envLookup(env))) }); err != nil {
		return nil, err
	}
	return cmd, nil
}

// watchHelper gives the helper the write end of a pipe as descriptor 3 (its lifeline) and
// runs reclaim once every holder of that end is gone, which is when the helper has ended,
// however it ended: killed with its process group at the end of a turn, it cannot remove its
// placeholders itself. The helper writes one byte when it starts; gocodex then closes its own
// copy, so end of file means the helper is gone. The helper in turn ends its command when
// gocodex is gone (the pipe breaks). A command never started leaves the watcher waiting until
// cmd is garbage collected.
func watchHelper(cmd *exec.Cmd, reclaim func()) error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("sandbox lifeline: %w", err)
	}
	cmd.ExtraFiles = []*os.File{w}
	runtime.AddCleanup(cmd, func(w *os.File) { w.Close() }, w)
	go func() {
		defer r.Close()
		var b [1]byte
		if n, _ := r.Read(b[:]); n == 1 {
			w.Close() // the helper holds its own copy now
		}
		_, _ = io.Copy(io.Discard, r)
		reclaim()
	}()
	return nil
}

// Reclaim removes the placeholders the helper of cmd left in its writable roots when it could
// not remove them itself (killed with its process group, as at the end of a turn). Call it
// once cmd has been waited for; gocodex's process package does, so that a process that exits
// right after its commands leaves nothing behind. The watcher Command starts does the same a
// moment later for callers that do not call it. A command that is not sandboxed with
// namespaces, or not a sandbox command at all, is left alone.
func Reclaim(cmd *exec.Cmd) {
	if cmd == nil || len(cmd.Args) < 2 || cmd.Args[1] != HelperArg {
		return
	}
	h, err := parseHelperArgs(cmd.Args[2:], io.Discard)
	if err != nil || !h.mechanism.usesNamespaces() {
		return
	}
	for _, f := range cmd.ExtraFiles {
		f.Close() // the lifeline: a helper that died before taking it no longer holds up the watcher
	}
	reclaimRoots(WritableRoots(h.policy, h.policyCwd, envLookup(cmd.Env)))
}
