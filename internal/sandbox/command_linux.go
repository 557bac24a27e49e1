package sandbox

import (
	"context"
	"os/exec"
	"syscall"
)

// Command returns the command ready to start: for danger-full-access the plain command, for
// every other policy the helper re-exec that confines itself and then becomes the command.
// The helper starts in a session of its own (cmd.SysProcAttr.Setsid), so the command has no
// controlling terminal to inject keystrokes into; callers may give it a terminal of its own
// (Setctty) but must neither replace SysProcAttr, which may carry the namespace flags, nor set
// Setpgid, which fails for a session leader.
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
	exe, err := executable(req.Options)
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
		"--mechanism", string(mech),
		"--"}
	cmd := exec.CommandContext(ctx, exe, append(args, req.Argv...)...)
	cmd.Dir, cmd.Env = req.Cwd, req.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if mech.usesNamespaces() {
		newNet := !req.Policy.HasFullNetworkAccess() && !(mech.usesLandlock() && probe.LandlockABI >= landlockScopeABI)
		if cmd.SysProcAttr, err = namespaceAttr(newNet); err != nil {
			return nil, err
		}
	}
	return cmd, nil
}
