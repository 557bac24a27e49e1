package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gocodex/gocodex/internal/safety/execpolicy"
)

const checkUsage = "Usage: gocodex execpolicy check [OPTIONS] --rules <PATH> <COMMAND>..."

// checkHelp is our own wording of the options `execpolicy check` accepts.
const checkHelp = `Check execpolicy files against a command

` + checkUsage + `

Arguments:
  <COMMAND>...  Command tokens to check against the policy

Options:
  -r, --rules <PATH>            Rules file to evaluate (repeatable; files are merged in order)
      --pretty                  Pretty-print the JSON output
      --resolve-host-executables
                                Let absolute program paths match rules written for their
                                basename, limited by any host_executable() entries
  -c, --config <key=value>      Accepted for compatibility; has no effect on the check
      --enable <FEATURE>        Accepted for compatibility
      --disable <FEATURE>       Accepted for compatibility
  -h, --help                    Print help
`

// RunExecpolicyCheck implements `gocodex execpolicy check`; args are the words after "check". It
// returns the process exit code: 0 with the JSON on stdout, 1 when a rules file cannot be
// read or parsed, 2 for a usage error.
func RunExecpolicyCheck(args []string, stdout, stderr io.Writer) int {
	var (
		rules   []string
		pretty  bool
		resolve bool
		command []string
	)
	usageErr := func(msg string) int {
		fmt.Fprintf(stderr, "error: %s\n\n%s\n\nFor more information, try '--help'.\n", msg, checkUsage)
		return 2
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		takeValue := func(flag string) (string, bool) {
			if v, ok := strings.CutPrefix(a, flag+"="); ok {
				return v, true
			}
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return "", false
		}
		switch {
		case a == "--":
			command = append(command, args[i+1:]...)
			i = len(args)
		case a == "-h" || a == "--help":
			fmt.Fprint(stdout, checkHelp)
			return 0
		case a == "--pretty":
			pretty = true
		case a == "--resolve-host-executables":
			resolve = true
		case a == "-r" || a == "--rules" || strings.HasPrefix(a, "--rules="):
			v, ok := takeValue("--rules")
			if !ok {
				return usageErr("a value is required for '--rules <PATH>' but none was supplied")
			}
			rules = append(rules, v)
		case a == "-c" || a == "--config" || strings.HasPrefix(a, "--config="),
			a == "--enable" || strings.HasPrefix(a, "--enable="),
			a == "--disable" || strings.HasPrefix(a, "--disable="):
			flag, _, _ := strings.Cut(a, "=")
			if _, ok := takeValue(flag); !ok {
				return usageErr(fmt.Sprintf("a value is required for '%s' but none was supplied", flag))
			}
		case strings.HasPrefix(a, "-r") && len(a) > 2:
			rules = append(rules, a[2:])
		case strings.HasPrefix(a, "-") && a != "-" && len(command) == 0:
			return usageErr(fmt.Sprintf("unexpected argument '%s' found", a))
		default:
			// The first word of the command ends option parsing: the command's own flags
			// belong to it.
			command = append(command, args[i:]...)
			i = len(args)
		}
	}
	if len(rules) == 0 {
		return usageErr("the following required arguments were not provided:\n  --rules <PATH>")
	}
	if len(command) == 0 {
		return usageErr("the following required arguments were not provided:\n  <COMMAND>...")
	}
	res, err := execpolicy.Check(rules, command, execpolicy.MatchOptions{ResolveHostExecutables: resolve})
	if err != nil {
		var le *execpolicy.LoadError
		verb, path := "parse", ""
		if errors.As(err, &le) {
			path = le.Path
			if _, statErr := os.Stat(le.Path); statErr != nil {
				verb = "read"
			}
		}
		fmt.Fprintf(stderr, "Error: failed to %s policy at %s\n\nCaused by:\n    %v\n", verb, path, err)
		return 1
	}
	out, err := marshalNoEscape(res)
	if err == nil && pretty {
		var buf bytes.Buffer
		err = json.Indent(&buf, out, "", "  ")
		out = buf.Bytes()
	}
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", out)
	return 0
}

// marshalNoEscape is json.Marshal without HTML escaping (Codex writes `<` and `&` as is).
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
