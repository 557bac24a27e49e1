package cli

import (
	"strings"
	"testing"
)

func TestCheckSandboxPlatform(t *testing.T) {
	for _, tc := range []struct{ sub, goos, want string }{
		{"linux", "linux", ""},
		{"macos", "darwin", ""},
		{"windows", "windows", ""},
		{"macos", "linux", "the macOS sandbox only exists on macOS, not on linux; use `gocodex sandbox linux` here"},
		{"linux", "darwin", "the Linux sandbox only exists on Linux, not on darwin; use `gocodex sandbox macos` here"},
		{"linux", "windows", "the Linux sandbox only exists on Linux, not on windows; use `gocodex sandbox windows` here"},
		{"windows", "freebsd", "the Windows sandbox only exists on Windows, not on freebsd"},
	} {
		err := CheckSandboxPlatform(tc.sub, tc.goos)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckSandboxPlatform(%q, %q) = %q, want %q", tc.sub, tc.goos, got, tc.want)
		}
	}
}

func TestDoctorSandboxFixByPlatform(t *testing.T) {
	for goos, want := range map[string]string{
		"windows": "--sandbox danger-full-access -a untrusted, or run gocodex inside WSL",
		"darwin":  "/usr/bin/sandbox-exec",
		"linux":   "Landlock",
	} {
		if got := sandboxFix(goos); !strings.Contains(got, want) {
			t.Errorf("sandboxFix(%q) = %q, want it to mention %q", goos, got, want)
		}
	}
}
