package patch

import (
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// RunAsApplyPatchArg is the hidden first argument that makes the binary the apply_patch
// command (Codex's --codex-run-as-apply-patch): the apply_patch tool re-executes the binary
// with it inside the sandbox, the patch on stdin, so that the kernel confines the writes.
const RunAsApplyPatchArg = "--codex-run-as-apply-patch"

// DispatchStandalone runs the apply_patch command when args (os.Args) start with
// RunAsApplyPatchArg; the rest of args are the command's. Test binaries whose tests apply
// patches through the sandbox call it first thing in TestMain, next to
// sandbox.DispatchHelper.
func DispatchStandalone(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, bool) {
	if len(args) < 2 || args[1] != RunAsApplyPatchArg {
		return 0, false
	}
	return RunStandalone(append([]string{"apply_patch"}, args[2:]...), stdin, stdout, stderr), true
}

const usageText = "Usage: apply_patch 'PATCH'\n       echo 'PATCH' | apply_patch\n"

// RunStandalone is the `apply_patch` command: the patch is argv[1] or, without arguments,
// all of stdin; the working directory is the process's. It returns the exit code: 0 when the
// patch applied, 1 when it did not, 2 for a usage error. args[0] is the program name.
func RunStandalone(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runStandalone(".", args, stdin, stdout, stderr)
}

func runStandalone(cwd string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var text string
	switch {
	case len(args) > 2:
		fmt.Fprint(stderr, "Error: apply_patch accepts exactly one argument.\n")
		return 2
	case len(args) == 2:
		if !utf8.ValidString(args[1]) {
			fmt.Fprint(stderr, "Error: apply_patch requires a UTF-8 PATCH argument.\n")
			return 1
		}
		text = args[1]
	default:
		data, err := io.ReadAll(stdin)
		if err == nil && !utf8.Valid(data) {
			err = errors.New("stream did not contain valid UTF-8")
		}
		if err != nil {
			fmt.Fprintf(stderr, "Error: Failed to read PATCH from stdin.\n%v\n", err)
			return 1
		}
		if len(data) == 0 {
			fmt.Fprint(stderr, usageText)
			return 2
		}
		text = string(data)
	}
	p, err := Parse(text)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			fmt.Fprintln(stderr, pe.Report())
		}
		return 1
	}
	abs, err := absDir(cwd)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	affected, err := Apply(abs, p)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprint(stdout, affected.Summary())
	return 0
}
