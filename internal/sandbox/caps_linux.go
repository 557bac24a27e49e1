package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// capabilityDrop says how far dropAllCapabilities got.
type capabilityDrop struct {
	// boundingKept is set when the bounding set could not be emptied (no CAP_SETPCAP: an
	// unprivileged user without a user namespace). Under no_new_privs with every other set
	// empty it grants nothing at exec.
	boundingKept bool
}

// dropAllCapabilities empties every capability set of the calling thread: the bounding set
// (so a command running as root regains nothing at exec), ambient, inheritable, permitted and
// effective. The thread must be locked; capabilities are per thread.
func dropAllCapabilities() (capabilityDrop, error) {
	var d capabilityDrop
	last := lastCapability()
	for c := 0; c <= last; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if err == nil || errors.Is(err, unix.EINVAL) {
			continue
		}
		if errors.Is(err, unix.EPERM) {
			if in, _ := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0); in == 0 {
				continue
			}
			if unix.Geteuid() != 0 {
				d.boundingKept = true
				break
			}
		}
		return d, fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return d, fmt.Errorf("clear ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return d, fmt.Errorf("drop capabilities: %w", err)
	}
	return d, nil
}

// lastCapability is the highest capability this kernel knows (CAP_LAST_CAP).
func lastCapability() int {
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 && n < 64 {
			return n
		}
	}
	return 63 // every drop past the last one fails with EINVAL, which is skipped
}
