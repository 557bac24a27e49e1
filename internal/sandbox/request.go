package sandbox

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"

	"github.com/gocodex/gocodex/protocol"
)

// HelperArg is the hidden first argument that turns the binary into the sandbox helper;
// HelperArg0 is the argv[0] that does the same (Codex's codex-linux-sandbox convention).
const (
	HelperArg  = "--gocodex-sandbox-helper"
	HelperArg0 = "gocodex-linux-sandbox"
)

// Request describes one command to run under a policy.
type Request struct {
	Policy protocol.SandboxPolicy
	// PolicyCwd is what the policy's cwd-relative parts mean (the session cwd); empty means Cwd.
	PolicyCwd string
	// Cwd is the command's working directory.
	Cwd  string
	Argv []string
	// Env is the command's whole environment, passed through untouched (nil: this process's,
	// as with exec.Cmd). The environment policy is applied by the caller.
	Env []string
	// Probe is the session's Probe result; nil probes now.
	Probe   *ProbeResult
	Options Options
}

// Spawner returns a function with the shape of process.Spawner that wraps every command in
// the sandbox for policy: pass the session's cwd as policyCwd and its Probe result (probe once
// per session, not per command).
func Spawner(policy protocol.SandboxPolicy, policyCwd string, probe *ProbeResult, opts Options) func(ctx context.Context, argv []string, cwd string, env []string) (*exec.Cmd, error) {
	return func(ctx context.Context, argv []string, cwd string, env []string) (*exec.Cmd, error) {
		return Command(ctx, Request{Policy: policy, PolicyCwd: policyCwd, Cwd: cwd, Argv: argv, Env: env, Probe: probe, Options: opts})
	}
}

// DispatchHelper runs the helper when args (os.Args) ask for it, by the hidden first argument
// or by argv[0]. Test binaries of packages that run sandboxed commands call it first thing in
// TestMain, since Command re-executes the running binary:
//
//	if code, ok := sandbox.DispatchHelper(os.Args); ok {
//		os.Exit(code)
//	}
func DispatchHelper(args []string) (int, bool) {
	switch {
	case len(args) > 0 && filepath.Base(args[0]) == HelperArg0:
		return HelperMain(args[1:]), true
	case len(args) > 1 && args[1] == HelperArg:
		return HelperMain(args[2:]), true
	}
	return 0, false
}

// unconfined answers the requests no platform confines: an empty command is an error, and
// danger-full-access runs the command plainly (done). Otherwise the platform confines it.
func (req Request) unconfined(ctx context.Context) (cmd *exec.Cmd, done bool, err error) {
	if len(req.Argv) == 0 {
		return nil, true, errors.New("sandbox: empty command")
	}
	if !req.Policy.HasFullDiskWriteAccess() {
		return nil, false, nil
	}
	cmd = exec.CommandContext(ctx, req.Argv[0], req.Argv[1:]...)
	cmd.Dir, cmd.Env = req.Cwd, req.Env
	return cmd, true, nil
}

// probe is the session's probe, or a new one.
func (req Request) probe(ctx context.Context) *ProbeResult {
	if req.Probe != nil {
		return req.Probe
	}
	r := Probe(ctx, req.Options)
	return &r
}

// policyCwd is what the policy's cwd-relative parts mean.
func (req Request) policyCwd() string {
	if req.PolicyCwd != "" {
		return req.PolicyCwd
	}
	return req.Cwd
}
