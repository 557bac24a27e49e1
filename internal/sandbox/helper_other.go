//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
)

// LandlockABI is 0: Landlock is Linux-only.
func LandlockABI() int { return 0 }

// HelperMain always fails: only Linux confines commands through the helper (macOS has
// sandbox-exec, Windows no sandbox).
func HelperMain([]string) int {
	fmt.Fprintf(os.Stderr, "%s: the sandbox helper only runs on Linux\n", HelperArg0)
	return 1
}

// Reclaim has nothing to do: only Linux's helper leaves placeholders.
func Reclaim(*exec.Cmd) {}
