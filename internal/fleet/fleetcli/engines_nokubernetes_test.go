//go:build !kubernetes

package fleetcli

import (
	"strings"
	"testing"
)

// TestKubernetesNeedsTheTag: the default binary names the build tag rather than failing
// obscurely.
func TestKubernetesNeedsTheTag(t *testing.T) {
	_, _, err := runFleet(t, "run", "--engine", "kubernetes", "--tasks", tasksFile(t), "--out", t.TempDir(), "--image", "i", "--claim", "c", "--dry-run")
	if err == nil || !strings.Contains(err.Error(), "-tags kubernetes") {
		t.Fatalf("err = %v", err)
	}
}
