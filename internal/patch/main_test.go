package patch

import (
	"os"
	"testing"
)

// runAsApplyPatchEnv makes the test binary act as the apply_patch command, so tests (and
// differential runs against the Codex binary) can exercise it as a real process.
const runAsApplyPatchEnv = "GOCODEX_PATCH_TEST_RUN_AS_APPLY_PATCH"

func TestMain(m *testing.M) {
	if os.Getenv(runAsApplyPatchEnv) == "1" {
		os.Exit(RunStandalone(os.Args, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
