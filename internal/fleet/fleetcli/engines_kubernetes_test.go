//go:build kubernetes

package fleetcli

import (
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/fleet"
)

// TestDryRunKubernetes prints the Job manifest, naming the Secret, never a key.
func TestDryRunKubernetes(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-dry-run-secret")
	stdout, _, err := runFleet(t, "run", "--engine", "kubernetes", "--tasks", tasksFile(t), "--out", t.TempDir(),
		"--image", "img:1", "--claim", "results", "--secret", "openai", "--backoff-per-index", "2", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kind: Job", "completionMode: Indexed", "backoffLimitPerIndex: 2", "name: openai", "claimName: results"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("manifest lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "sk-dry-run-secret") {
		t.Fatal("the key is in the manifest")
	}
	if _, _, err := runFleet(t, "run", "--engine", "kubernetes", "--tasks", tasksFile(t), "--out", t.TempDir(), "--claim", "c", "--dry-run"); err == nil || !strings.Contains(err.Error(), "--image") {
		t.Fatalf("no --image: %v", err)
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "s3-dry-run-secret")
	t.Setenv(fleet.EndpointEnv, "") // --s3-endpoint sets it in this process: restored after the test
	stdout, _, err = runFleet(t, "run", "--engine", "kubernetes", "--tasks", tasksFile(t), "--out", "s3://results/x",
		"--image", "img:1", "--secret", "creds", "--s3-endpoint", "https://s3.example.com", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- s3://results/x/", "value: https://s3.example.com", "name: creds"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("bucket manifest lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "claimName") || strings.Contains(stdout, "s3-dry-run-secret") {
		t.Errorf("bucket manifest mounts a claim or holds the key:\n%s", stdout)
	}
}
