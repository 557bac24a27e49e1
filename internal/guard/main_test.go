package guard

import (
	"os"
	"testing"

	"github.com/gocodex/gocodex/internal/patch"
	"github.com/gocodex/gocodex/internal/sandbox"
)

// TestMain makes the test binary the sandbox helper and the apply_patch command too, since
// the guard re-executes its own binary as both to write a patch inside the sandbox.
func TestMain(m *testing.M) {
	// A race-enabled binary otherwise sleeps a second at each exit of the helper and the
	// apply_patch it runs.
	if os.Getenv("GORACE") == "" {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	if code, ok := sandbox.DispatchHelper(os.Args); ok {
		os.Exit(code)
	}
	if code, ok := patch.DispatchStandalone(os.Args, os.Stdin, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
