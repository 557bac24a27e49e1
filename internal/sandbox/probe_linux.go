package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Probe checks, once per session, which mechanisms work here. It spawns one short-lived
// process to try a user namespace.
func Probe(ctx context.Context, opts Options) ProbeResult {
	r := ProbeResult{LandlockDisabled: opts.DisableLandlock}
	if !opts.DisableLandlock {
		r.LandlockABI = LandlockABI()
	}
	if opts.DisableUserNamespaces {
		r.UserNamespacesError = "disabled"
	} else if err := probeUserNamespace(ctx, opts); err != nil {
		r.UserNamespacesError = err.Error()
	} else {
		r.UserNamespaces = true
	}
	switch {
	case r.LandlockABI > 0 && r.UserNamespaces:
		r.Mechanism = MechanismLandlockNamespaces
	case r.LandlockABI > 0:
		r.Mechanism = MechanismLandlock
	case r.UserNamespaces:
		r.Mechanism = MechanismNamespaces
	default:
		r.Mechanism = MechanismNone
		r.Err = fmt.Errorf("%w: Landlock is %s and user namespaces are unavailable (%s); "+
			"run inside an external sandbox (a container or VM) with --sandbox danger-full-access, or enable one of the two", ErrNoSandbox, landlockMissing(opts), r.UserNamespacesError)
	}
	return r
}

func probeUserNamespace(ctx context.Context, opts Options) error {
	exe, err := Binary(opts)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, HelperArg, "--probe-userns")
	attr, err := namespaceAttr(opts.DisableLandlock || LandlockABI() < landlockScopeABI)
	if err != nil {
		return err
	}
	cmd.SysProcAttr = attr
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg != "" {
			return fmt.Errorf("user namespace: %v: %s", err, msg)
		}
		return fmt.Errorf("user namespace: %w", err)
	}
	return nil
}

// probeMain is the helper started by probeUserNamespace: it builds the view the command would
// get (without writable roots), so that a kernel or container that refuses any part of it is
// found once per session, not at the first command.
func probeMain() int {
	if os.Getpid() != 1 {
		fmt.Fprintf(os.Stderr, "%s: no new PID namespace\n", HelperArg0)
		return 1
	}
	if _, err := buildView(nil, nil); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", HelperArg0, err)
		return 1
	}
	return 0
}

// namespaceAttr asks for the namespaces the helper runs in: a user namespace in which it may
// mount, a mount namespace for the command's view, a PID namespace (signals reach no process
// outside, and nothing outlives the command) and, with newNet, an empty network namespace (for
// kernels without Landlock's abstract-socket scoping, when the network is restricted). The
// helper starts as the leader of a new session. Root keeps its whole id range (mirrored from
// its own uid_map) so files keep their owners; any other user maps only itself and keeps
// CAP_SYS_ADMIN and CAP_SETPCAP across the exec as ambient capabilities, which the command
// never gets.
func namespaceAttr(newNet bool) (*syscall.SysProcAttr, error) {
	attr := &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID, Setsid: true}
	if newNet {
		attr.Cloneflags |= unix.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		uids, err := identityMap("/proc/self/uid_map")
		if err != nil {
			return nil, err
		}
		gids, err := identityMap("/proc/self/gid_map")
		if err != nil {
			return nil, err
		}
		attr.UidMappings, attr.GidMappings = uids, gids
		attr.GidMappingsEnableSetgroups = true
		return attr, nil
	}
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}
	return attr, nil
}

func identityMap(path string) ([]syscall.SysProcIDMap, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	var maps []syscall.SysProcIDMap
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			continue
		}
		inside, err1 := strconv.ParseUint(fields[0], 10, 32)
		count, err2 := strconv.ParseUint(fields[2], 10, 32)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("parse %s: %q", path, sc.Text())
		}
		maps = append(maps, syscall.SysProcIDMap{ContainerID: int(inside), HostID: int(inside), Size: int(count)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return maps, nil
}

func landlockMissing(opts Options) string {
	if opts.DisableLandlock {
		return "disabled by option"
	}
	return "not enabled in this kernel (it needs Linux 5.13+ with landlock in the lsm= boot list)"
}
