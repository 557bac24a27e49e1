package safety

import "strings"

// IsDangerous reports whether argv force-removes files: `rm -f`, `rm -rf`, `rm --force` and
// any flag cluster holding f, also behind `sudo` and anywhere inside a `bash -lc` script
// (including inside control flow and substitutions). A dangerous command is never run without
// a person saying yes, unless nothing at all is sandboxed.
func IsDangerous(argv []string) bool {
	if dangerousExec(argv) {
		return true
	}
	script, ok := ShellScript(argv)
	if !ok {
		return false
	}
	for _, c := range literalCommands(script) {
		if dangerousExec(c) {
			return true
		}
	}
	return false
}

func dangerousExec(argv []string) bool {
	for len(argv) > 0 && execName(argv[0]) == "sudo" {
		argv = argv[1:]
	}
	if len(argv) == 0 || execName(argv[0]) != "rm" {
		return false
	}
	for _, a := range argv[1:] {
		if a == "--" {
			return false
		}
		if a == "--force" {
			return true
		}
		if flags, ok := strings.CutPrefix(a, "-"); ok && !strings.HasPrefix(flags, "-") && strings.ContainsRune(flags, 'f') {
			return true
		}
	}
	return false
}
