package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
)

// Command returns the command ready to start: for danger-full-access the plain command, for
// every other policy the helper re-exec that confines itself and then becomes the command.
// Callers may set fields of cmd.SysProcAttr (Setpgid, Setsid, Setctty) but must not replace
// it: it may carry the namespace flags the helper needs.
func Command(ctx context.Context, req Request) (*exec.Cmd, error) {
	if len(req.Argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	if req.Policy.HasFullDiskWriteAccess() {
		cmd := exec.CommandContext(ctx, req.Argv[0], req.Argv[1:]...)
		cmd.Dir, cmd.Env = req.Cwd, req.Env
		return cmd, nil
	}
	probe := req.Probe
	if probe == nil {
		r := Probe(ctx, req.Options)
		probe = &r
	}
	mech := probe.Mechanism
	if mech == MechanismNone {
		return nil, probe.Err
	}
	policyCwd := req.PolicyCwd
	if policyCwd == "" {
		policyCwd = req.Cwd
	}
	if mech == MechanismLandlockNamespaces && !hasProtectedSubpaths(WritableRoots(req.Policy, policyCwd, envLookup(req.Env))) {
		// Nothing to bind read-only: skip the namespace and its cost.
		mech = MechanismLandlock
	}
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
	if mech.usesNamespaces() {
		if cmd.SysProcAttr, err = namespaceAttr(); err != nil {
			return nil, err
		}
	}
	return cmd, nil
}

func hasProtectedSubpaths(roots []WritableRoot) bool {
	for _, r := range roots {
		if len(r.ReadOnlySubpaths) > 0 {
			return true
		}
	}
	return false
}

// envLookup reads a variable from env as the command will see it.
func envLookup(env []string) func(string) string {
	if env == nil {
		return os.Getenv
	}
	return func(key string) string {
		v := ""
		for _, kv := range env {
			if k, val, ok := strings.Cut(kv, "="); ok && k == key {
				v = val // the last one wins, as for exec
			}
		}
		return v
	}
}
