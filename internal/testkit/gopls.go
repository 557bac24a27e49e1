package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// GoplsVersion is the gopls the tests use; scripts/test.sh installs it into GoplsCacheDir.
const GoplsVersion = "v0.23.0"

// GoplsCacheDir is where scripts/test.sh installs gopls: ~/.cache/gocodex-ci/gopls, or
// $GOCODEX_CI_CACHE/gopls.
func GoplsCacheDir() string {
	if d := os.Getenv("GOCODEX_CI_CACHE"); d != "" {
		return filepath.Join(d, "gopls")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "gocodex-ci", "gopls")
}

// Gopls returns the gopls binary for tests that run a real language server: $GOCODEX_GOPLS,
// the one scripts/test.sh installs, or one on PATH. Without one the test is skipped, except in
// CI (CI=true), where it fails: CI must run them.
func Gopls(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("GOCODEX_GOPLS"); p != "" {
		return p
	}
	if p := filepath.Join(GoplsCacheDir(), "gopls"); fileExists(p) {
		return p
	}
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	msg := "gopls is not installed: run scripts/test.sh (it installs gopls " + GoplsVersion + " into " + GoplsCacheDir() + ") or set GOCODEX_GOPLS"
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s", msg)
	}
	t.Skip(msg)
	return ""
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
