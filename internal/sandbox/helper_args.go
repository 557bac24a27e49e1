package sandbox

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gocodex/gocodex/protocol"
)

// helperArgs is what Command passes to the helper.
type helperArgs struct {
	policyCwd   string
	commandCwd  string
	policy      protocol.SandboxPolicy
	mechanism   Mechanism
	probeUserNS bool
	// codexHome is the CODEX_HOME whose credential files the view hides.
	codexHome string
	// lifelineFD is the write end of gocodex's lifeline pipe (see watchHelper), -1 for none.
	lifelineFD int
	argv       []string
}

func parseHelperArgs(args []string, stderr io.Writer) (helperArgs, error) {
	var h helperArgs
	fs := flag.NewFlagSet(HelperArg0, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var policyJSON, mechanism string
	fs.StringVar(&h.policyCwd, "sandbox-policy-cwd", "", "directory the policy's relative roots are resolved against")
	fs.StringVar(&h.commandCwd, "command-cwd", "", "directory the command runs in")
	fs.StringVar(&policyJSON, "sandbox-policy", "", "the SandboxPolicy as JSON")
	fs.StringVar(&mechanism, "mechanism", string(MechanismLandlock), "landlock, landlock+namespaces or namespaces")
	fs.BoolVar(&h.probeUserNS, "probe-userns", false, "only check that a user + mount namespace works")
	fs.StringVar(&h.codexHome, "codex-home", "", "CODEX_HOME, whose credential files the command must not read")
	fs.IntVar(&h.lifelineFD, "lifeline-fd", -1, "descriptor of the pipe gocodex watches for the helper's end")
	if err := fs.Parse(args); err != nil {
		return h, err
	}
	if h.probeUserNS {
		return h, nil
	}
	h.argv = fs.Args()
	if len(h.argv) == 0 {
		return h, errors.New("no command given")
	}
	if policyJSON == "" {
		return h, errors.New("--sandbox-policy is required")
	}
	p, err := decodePolicy(policyJSON)
	if err != nil {
		return h, err
	}
	h.policy = p
	h.mechanism = Mechanism(mechanism)
	switch h.mechanism {
	case MechanismLandlock, MechanismLandlockNamespaces, MechanismNamespaces:
	default:
		return h, fmt.Errorf("unknown mechanism %q", mechanism)
	}
	if h.commandCwd == "" {
		if h.commandCwd, err = os.Getwd(); err != nil {
			return h, err
		}
	}
	if h.policyCwd == "" {
		h.policyCwd = h.commandCwd
	}
	return h, nil
}
