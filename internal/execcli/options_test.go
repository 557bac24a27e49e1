package execcli

import "testing"

func TestSandboxFlag(t *testing.T) {
	for _, ok := range []string{"read-only", "workspace-write", "danger-full-access"} {
		if mode, err := SandboxFlag(ok); err != nil || string(mode) != ok {
			t.Errorf("SandboxFlag(%q) = %q, %v", ok, mode, err)
		}
	}
	for _, bad := range []string{"", "readOnly", "full"} {
		if _, err := SandboxFlag(bad); err == nil {
			t.Errorf("SandboxFlag(%q) accepted", bad)
		}
	}
}
