package lsp

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/gocodex/gocodex/internal/sandbox"
)

// TestMain makes the test binary the sandbox helper (servers run inside it) and checks that
// no goroutine outlives the tests.
func TestMain(m *testing.M) {
	if os.Getenv("GORACE") == "" {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	if code, ok := sandbox.DispatchHelper(os.Args); ok {
		os.Exit(code)
	}
	if len(os.Args) > 1 && os.Args[1] == fakeServerArg {
		os.Exit(runFakeServer())
	}
	goleak.VerifyTestMain(m)
}
