package safety

import (
	"path/filepath"
	"strings"
)

// IsKnownSafe reports whether argv only reads: one of the always-safe programs, a safe use of
// a conditionally safe one, or a `bash -lc` plain sequence of such commands (§5.1). Codex
// 0.169 no longer lets this list skip a prompt (under untrusted it asks even for `ls`), so
// DecideExec does not consult it; it remains for callers that describe commands.
func IsKnownSafe(argv []string) bool {
	if len(argv) > 0 && argv[0] == "zsh" {
		argv = append([]string{"bash"}, argv[1:]...)
	}
	if isSafeToExec(argv) {
		return true
	}
	cmds, ok := ParseShellPlainCommands(argv)
	if !ok {
		return false
	}
	for _, c := range cmds {
		if !isSafeToExec(c) {
			return false
		}
	}
	return true
}

// execName is the lookup key of a program: its basename, so `/bin/ls` is ls.
func execName(p string) string {
	if p == "" {
		return ""
	}
	return filepath.Base(p)
}

var alwaysSafe = map[string]bool{
	"cat": true, "cd": true, "cut": true, "echo": true, "expr": true, "false": true,
	"grep": true, "head": true, "id": true, "ls": true, "nl": true, "paste": true,
	"pwd": true, "rev": true, "seq": true, "stat": true, "tail": true, "tr": true,
	"true": true, "uname": true, "uniq": true, "wc": true, "which": true, "whoami": true,
	// GNU-only tools Codex lists for Linux.
	"numfmt": true, "tac": true,
}

func isSafeToExec(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	name := execName(argv[0])
	if alwaysSafe[name] {
		return true
	}
	args := argv[1:]
	switch name {
	case "base64":
		for _, a := range args {
			if a == "-o" || a == "--output" || strings.HasPrefix(a, "--output=") ||
				(strings.HasPrefix(a, "-o") && a != "-o") {
				return false
			}
		}
		return true
	case "find":
		for _, a := range args {
			switch a {
			case "-exec", "-execdir", "-ok", "-okdir", "-delete",
				"-fls", "-fprint", "-fprint0", "-fprintf":
				return false
			}
		}
		return true
	case "rg":
		for _, a := range args {
			switch {
			case a == "--search-zip" || a == "-z":
				return false
			case a == "--pre" || strings.HasPrefix(a, "--pre="):
				return false
			case a == "--hostname-bin" || strings.HasPrefix(a, "--hostname-bin="):
				return false
			}
		}
		return true
	case "git":
		return isSafeGit(argv)
	case "sed":
		return len(argv) <= 4 && len(argv) >= 3 && argv[1] == "-n" && isSedPrintRange(argv[2])
	}
	return false
}

// isSedPrintRange matches `Np` and `N,Mp`.
func isSedPrintRange(s string) bool {
	core, ok := strings.CutSuffix(s, "p")
	if !ok {
		return false
	}
	a, b, two := strings.Cut(core, ",")
	if !allDigits(a) {
		return false
	}
	return !two || allDigits(b)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Git global options that point git at other repositories, configs or helper programs; any
// of them makes a read-only subcommand unsafe.
func isUnsafeGitGlobal(a string) bool {
	switch a {
	case "-c", "--config-env", "--exec-path", "--git-dir", "--namespace", "--super-prefix", "--work-tree":
		return true
	}
	for _, p := range []string{"--config-env=", "--exec-path=", "--git-dir=", "--namespace=", "--super-prefix=", "--work-tree="} {
		if strings.HasPrefix(a, p) {
			return true
		}
	}
	return strings.HasPrefix(a, "-c") && len(a) > 2
}

// Options of the read-only subcommands that write files or run helper programs.
func isUnsafeGitSubOption(a string) bool {
	switch a {
	case "--output", "--ext-diff", "--textconv", "--exec", "--paginate":
		return true
	}
	return strings.HasPrefix(a, "--output=") || strings.HasPrefix(a, "--exec=")
}

var gitBranchListing = map[string]bool{
	"--list": true, "-l": true, "--show-current": true, "-a": true, "--all": true,
	"-r": true, "--remotes": true, "-v": true, "-vv": true, "--verbose": true,
}

func isSafeGit(argv []string) bool {
	// The subcommand is the first word that is not an option; `-C dir` takes a value.
	idx := -1
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if isUnsafeGitGlobal(a) {
			return false
		}
		if a == "-C" {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		idx = i
		break
	}
	if idx < 0 {
		return false
	}
	sub, rest := argv[idx], argv[idx+1:]
	switch sub {
	case "status", "log", "diff", "show", "branch":
	default:
		return false
	}
	for _, a := range rest {
		if isUnsafeGitSubOption(a) {
			return false
		}
	}
	if sub == "branch" {
		for _, a := range rest {
			if !gitBranchListing[a] && !strings.HasPrefix(a, "--format=") {
				return false
			}
		}
	}
	return true
}
