package usershell

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDetectKind(t *testing.T) {
	for in, want := range map[string]Kind{
		"zsh": Zsh, "/bin/zsh": Zsh, "/usr/local/bin/bash": Bash, "sh": Sh, "/bin/sh": Sh,
		"pwsh": PowerShell, "pwsh.exe": PowerShell, "powershell.exe": PowerShell, "/usr/local/bin/pwsh": PowerShell,
		`C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`: PowerShell,
		`C:\Program Files\PowerShell\7\PWSH.EXE`:                    PowerShell,
		"cmd":                                                       Cmd, "cmd.exe": Cmd, `C:\Windows\System32\cmd.exe`: Cmd,
	} {
		if got, ok := DetectKind(in); !ok || got != want {
			t.Errorf("DetectKind(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"fish", "/usr/bin/fish", "nu.exe", ""} {
		if got, ok := DetectKind(in); ok {
			t.Errorf("DetectKind(%q) = %q, want unknown", in, got)
		}
	}
}

func TestArgv(t *testing.T) {
	for _, tc := range []struct {
		shell Shell
		login bool
		want  []string
	}{
		{Shell{Zsh, "/bin/zsh"}, true, []string{"/bin/zsh", "-lc", "ls"}},
		{Shell{Bash, "/bin/bash"}, false, []string{"/bin/bash", "-c", "ls"}},
		{Shell{PowerShell, "pwsh.exe"}, false, []string{"pwsh.exe", "-NoProfile", "-Command", "ls"}},
		{Shell{PowerShell, "pwsh.exe"}, true, []string{"pwsh.exe", "-Command", "ls"}},
		{Shell{Cmd, "cmd.exe"}, true, []string{"cmd.exe", "/c", "ls"}},
	} {
		if diff := cmp.Diff(tc.want, tc.shell.Argv("ls", tc.login)); diff != "" {
			t.Errorf("%v login=%v (-want +got):\n%s", tc.shell, tc.login, diff)
		}
	}
}

// lookup is a machine with the given programs on PATH and files on disk.
func lookup(goos, userShell string, onPath map[string]string, files ...string) Lookup {
	return Lookup{
		GOOS:      goos,
		UserShell: userShell,
		LookPath: func(name string) (string, error) {
			if p, ok := onPath[name]; ok {
				return p, nil
			}
			return "", errors.New("not found")
		},
		IsFile: func(p string) bool { return slices.Contains(files, p) },
	}
}

func TestDefault(t *testing.T) {
	unixPath := map[string]string{"bash": "/usr/bin/bash", "zsh": "/usr/bin/zsh", "sh": "/usr/bin/sh"}
	for _, tc := range []struct {
		name string
		l    Lookup
		want Shell
	}{
		{"macOS: the user's zsh", lookup("darwin", "/bin/zsh", unixPath), Shell{Zsh, "/bin/zsh"}},
		{"macOS: an unknown shell falls back to zsh", lookup("darwin", "/opt/homebrew/bin/fish", unixPath), Shell{Zsh, "/usr/bin/zsh"}},
		{"macOS: no $SHELL, zsh from /bin", lookup("darwin", "", nil, "/bin/zsh", "/bin/bash"), Shell{Zsh, "/bin/zsh"}},
		{"macOS: the user's bash is kept", lookup("darwin", "/usr/local/bin/bash", unixPath), Shell{Bash, "/usr/local/bin/bash"}},
		{"Linux: bash before zsh", lookup("linux", "/usr/bin/fish", unixPath), Shell{Bash, "/usr/bin/bash"}},
		{"Linux: the user's zsh", lookup("linux", "/usr/bin/zsh", unixPath), Shell{Zsh, "/usr/bin/zsh"}},
		{"Linux: nothing but sh", lookup("linux", "", nil), Shell{Sh, "/bin/sh"}},
		{"Windows: pwsh first", lookup("windows", "", map[string]string{"pwsh": `C:\Program Files\PowerShell\7\pwsh.exe`, "powershell": `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`}),
			Shell{PowerShell, `C:\Program Files\PowerShell\7\pwsh.exe`}},
		{"Windows: Windows PowerShell", lookup("windows", "", map[string]string{"powershell": `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`}),
			Shell{PowerShell, `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`}},
		{"Windows: $SHELL from Git Bash is not taken", lookup("windows", "/usr/bin/bash", map[string]string{"powershell": `powershell.exe`}),
			Shell{PowerShell, `powershell.exe`}},
		{"Windows: cmd.exe last", lookup("windows", "", nil), Shell{Cmd, "cmd.exe"}},
	} {
		if got := Default(tc.l); got != tc.want {
			t.Errorf("%s: Default = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
