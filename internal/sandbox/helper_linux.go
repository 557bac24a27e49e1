package sandbox

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/gocodex/gocodex/internal/sandbox/seccomp"
	"github.com/gocodex/gocodex/protocol"
)

// HelperArg is the hidden first argument that turns the binary into the sandbox helper;
// HelperArg0 is the argv[0] that does the same (Codex's codex-linux-sandbox convention).
const (
	HelperArg  = "--gocodex-sandbox-helper"
	HelperArg0 = "gocodex-linux-sandbox"
)

// helperArgs is what Command passes to the helper.
type helperArgs struct {
	policyCwd   string
	commandCwd  string
	policy      protocol.SandboxPolicy
	mechanism   Mechanism
	probeUserNS bool
	argv        []string
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

// HelperMain is the sandbox helper: it confines its own thread as the policy says and execs
// the command in place. It only returns on failure, with the exit status to use.
func HelperMain(args []string) int {
	h, err := parseHelperArgs(args, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", HelperArg0, err)
		return 2
	}
	// Every restriction below is per thread; the exec must happen on the thread that holds them.
	runtime.LockOSThread()
	if h.probeUserNS {
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			fmt.Fprintf(os.Stderr, "%s: mount namespace: %v\n", HelperArg0, err)
			return 1
		}
		return 0
	}
	if err := confine(h); err != nil {
		fmt.Fprintf(os.Stderr, "%s: refusing to run the command unconfined: %v\n", HelperArg0, err)
		return 1
	}
	path, err := exec.LookPath(h.argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", h.argv[0], err)
		return 127
	}
	err = syscall.Exec(path, h.argv, os.Environ())
	fmt.Fprintf(os.Stderr, "%s: exec %s: %v\n", HelperArg0, h.argv[0], err)
	if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.ENOEXEC) {
		return 126
	}
	return 127
}

// confine applies the mount namespace binds (when asked), no_new_privs, Landlock and seccomp,
// in that order: mounts need CAP_SYS_ADMIN, which no_new_privs and the dropped capability end.
func confine(h helperArgs) error {
	roots := WritableRoots(h.policy, h.policyCwd, os.Getenv)
	if h.policy.HasFullDiskWriteAccess() {
		return errors.New("danger-full-access never runs through the helper")
	}
	if h.mechanism.usesNamespaces() {
		if err := setupMounts(roots, h.mechanism == MechanismNamespaces); err != nil {
			return err
		}
		if err := dropMountCapability(); err != nil {
			return err
		}
	}
	// Binds hide what was below them, including this process's working directory.
	if err := unix.Chdir(h.commandCwd); err != nil {
		return fmt.Errorf("chdir %s: %w", h.commandCwd, err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if h.mechanism.usesLandlock() {
		if err := applyLandlock(roots); err != nil {
			return err
		}
	}
	return seccomp.Install(seccomp.Options{AllowNetwork: h.policy.HasFullNetworkAccess()})
}
