// Package usershell picks the shell commands run in, as Codex 0.169 picks it: the user's
// own shell where it is one gocodex knows, else zsh then bash on macOS, bash then zsh on
// other Unix systems, /bin/sh last; PowerShell (pwsh before Windows PowerShell) on Windows,
// cmd.exe last. The choice is plain logic over a Lookup, so every platform's is tested here.
package usershell

import (
	"os"
	"os/exec"
	"path"
	"runtime"
	"strings"
)

// Kind is a family of shells that take scripts the same way.
type Kind string

const (
	Zsh        Kind = "zsh"
	Bash       Kind = "bash"
	Sh         Kind = "sh"
	PowerShell Kind = "powershell"
	Cmd        Kind = "cmd"
)

// Shell is a shell program and its kind.
type Shell struct {
	Kind Kind
	Path string
}

// Name is the kind's name, as the environment context tells the model.
func (s Shell) Name() string { return string(s.Kind) }

// Argv runs script in the shell: `-lc`/`-c` for the Unix shells, `-NoProfile -Command`
// (the profile only for a login run) for PowerShell, `/c` for cmd.
func (s Shell) Argv(script string, login bool) []string {
	switch s.Kind {
	case PowerShell:
		if login {
			return []string{s.Path, "-Command", script}
		}
		return []string{s.Path, "-NoProfile", "-Command", script}
	case Cmd:
		return []string{s.Path, "/c", script}
	}
	flag := "-c"
	if login {
		flag = "-lc"
	}
	return []string{s.Path, flag, script}
}

// DetectKind tells a shell's kind from its path or name (`/bin/zsh`, `pwsh.exe`,
// `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`), whichever separators it uses.
func DetectKind(p string) (Kind, bool) {
	base := path.Base(strings.ReplaceAll(p, `\`, "/"))
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	switch strings.ToLower(base) {
	case "zsh":
		return Zsh, true
	case "bash":
		return Bash, true
	case "sh":
		return Sh, true
	case "pwsh", "powershell":
		return PowerShell, true
	case "cmd":
		return Cmd, true
	}
	return "", false
}

// ForPath is the shell at p (the model's chosen shell, or the configured one); a program of
// no known kind is run as a Unix shell is.
func ForPath(p string) Shell {
	k, ok := DetectKind(p)
	if !ok {
		k = Sh
	}
	return Shell{Kind: k, Path: p}
}

// Lookup is what the choice depends on.
type Lookup struct {
	// GOOS is the system (runtime.GOOS).
	GOOS string
	// UserShell is the user's login shell ($SHELL), empty when unknown.
	UserShell string
	// LookPath finds a program on PATH (exec.LookPath).
	LookPath func(string) (string, error)
	// IsFile reports whether a regular file exists at a path.
	IsFile func(string) bool
}

// Host is the Lookup of this process, with the user's shell from getenv("SHELL").
func Host(getenv func(string) string) Lookup {
	return Lookup{
		GOOS:      runtime.GOOS,
		UserShell: getenv("SHELL"),
		LookPath:  exec.LookPath,
		IsFile: func(p string) bool {
			fi, err := os.Stat(p)
			return err == nil && fi.Mode().IsRegular()
		},
	}
}

// Default is the shell commands run in.
func Default(l Lookup) Shell {
	if l.GOOS == "windows" {
		if s, ok := l.find(PowerShell); ok {
			return s
		}
		return Shell{Kind: Cmd, Path: "cmd.exe"}
	}
	order := []Kind{Bash, Zsh}
	if l.GOOS == "darwin" {
		order = []Kind{Zsh, Bash}
	}
	if k, ok := DetectKind(l.UserShell); ok && l.UserShell != "" {
		if s, ok := l.find(k); ok {
			return s
		}
	}
	for _, k := range order {
		if s, ok := l.find(k); ok {
			return s
		}
	}
	return Shell{Kind: Sh, Path: "/bin/sh"}
}

// programs are the names each kind is found by on PATH, then the files tried when PATH has
// none of them.
var programs = map[Kind]struct{ names, fallbacks []string }{
	Zsh:        {[]string{"zsh"}, []string{"/bin/zsh"}},
	Bash:       {[]string{"bash"}, []string{"/bin/bash"}},
	Sh:         {[]string{"sh"}, []string{"/bin/sh"}},
	PowerShell: {[]string{"pwsh", "powershell"}, nil},
	Cmd:        {[]string{"cmd"}, nil},
}

// find locates a shell of kind k: the user's own when it is of that kind, else the first
// name on PATH, else a fallback file.
func (l Lookup) find(k Kind) (Shell, bool) {
	if uk, ok := DetectKind(l.UserShell); ok && uk == k && l.UserShell != "" {
		return Shell{Kind: k, Path: l.UserShell}, true
	}
	p := programs[k]
	for _, name := range p.names {
		if l.LookPath != nil {
			if found, err := l.LookPath(name); err == nil {
				return Shell{Kind: k, Path: found}, true
			}
		}
	}
	for _, f := range p.fallbacks {
		if l.IsFile != nil && l.IsFile(f) {
			return Shell{Kind: k, Path: f}, true
		}
	}
	return Shell{}, false
}
