package execcli

import (
	"testing"

	"github.com/gocodex/gocodex/internal/faceopts"
)

func TestSandboxFlag(t *testing.T) {
	for _, ok := range []string{"read-only", "workspace-write", "danger-full-access"} {
		if mode, err := faceopts.SandboxFlag(ok); err != nil || string(mode) != ok {
			t.Errorf("faceopts.SandboxFlag(%q) = %q, %v", ok, mode, err)
		}
	}
	for _, bad := range []string{"", "readOnly", "full"} {
		if _, err := faceopts.SandboxFlag(bad); err == nil {
			t.Errorf("faceopts.SandboxFlag(%q) accepted", bad)
		}
	}
}
