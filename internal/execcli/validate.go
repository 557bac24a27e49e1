package execcli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"unicode/utf8"

	"github.com/gocodex/gocodex/internal/iostreams"
)

// checkArgs refuses, before anything starts, what Codex 0.169's exec refuses: a prompt
// argument that is not UTF-8 (clap's usage error, exit 2) and a -C directory that does not
// exist (exit 1).
func checkArgs(opts RunOptions, s *iostreams.IOStreams) error {
	if !utf8.ValidString(opts.Prompt) {
		fmt.Fprint(s.ErrOut, "error: invalid UTF-8 was detected in one or more arguments\n\n"+
			"Usage: gocodex exec [OPTIONS] [PROMPT]\n       gocodex exec [OPTIONS] <COMMAND> [ARGS]\n\n"+
			"For more information, try '--help'.\n")
		return exitStatus(2)
	}
	if opts.Cd != "" {
		st, err := os.Stat(opts.Cd)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("-C %s: No such file or directory (os error 2)", opts.Cd)
		case err != nil:
			return fmt.Errorf("-C %s: %w", opts.Cd, err)
		case !st.IsDir():
			return fmt.Errorf("-C %s: Not a directory (os error 20)", opts.Cd)
		}
	}
	return nil
}

// checkStdinUTF8 refuses a prompt on stdin that is not UTF-8 with Codex 0.169's message,
// rather than sending replacement characters to the model.
func checkStdinUTF8(data []byte, s *iostreams.IOStreams) error {
	if utf8.Valid(data) {
		return nil
	}
	off := 0
	for off < len(data) {
		r, n := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		off += n
	}
	fmt.Fprintf(s.ErrOut, "Failed to read prompt from stdin: input is not valid UTF-8 (invalid byte at offset %d). "+
		"Convert it to UTF-8 and retry (e.g., `iconv -f <ENC> -t UTF-8 prompt.txt`).\n", off)
	return exitStatus(1)
}
