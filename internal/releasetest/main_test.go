// Package releasetest checks what a user installs and reads: the archives scripts/release.sh
// writes, `go install github.com/gocodex/gocodex/cmd/gocodex@latest` from a module proxy, and
// the user guide's lists of configuration keys and environment variables. The first two
// build gocodex for several targets or from scratch, minutes on a cold cache, so they run
// only when GOCODEX_RELEASE_TESTS=1 (scripts/test.sh sets it for its release step, after
// the main suite).
package releasetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const modulePath = "github.com/gocodex/gocodex"

// needReleaseTests skips t unless the release tests were asked for.
func needReleaseTests(t *testing.T) {
	t.Helper()
	if os.Getenv("GOCODEX_RELEASE_TESTS") != "1" {
		t.Skip("builds release binaries: set GOCODEX_RELEASE_TESTS=1 (scripts/test.sh does, in its release step)")
	}
}

// repoRoot is the module's root: go test runs a package's tests in its directory, two
// levels below it.
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Clean(filepath.Join(wd, "..", ".."))
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root %s: %v", root, err)
	}
	return root
}

// git runs git in the repository and returns its trimmed output.
func git(t *testing.T, root string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}
