// Package diagreport is the shape of the language servers' diagnostics block gocodex appends
// to a patch's output: its header line, written by internal/lsp and read by the faces (which
// show the block, or count it) without depending on the language servers themselves.
package diagreport

import (
	"strconv"
	"strings"
)

// Header starts every diagnostics block; the faces find it in a patch's output (CountIn).
const Header = "Language server diagnostics: "

// HeaderLine is the block's first line: the header and the counts, "1 error, 2 warnings".
func HeaderLine(errors, warnings int) string {
	return Header + counted(errors, "error") + ", " + counted(warnings, "warning") + "\n"
}

func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Block is the diagnostics block of a tool's output (a patch's), from its header to the end;
// ok is false when there is none.
func Block(output string) (block string, ok bool) {
	_, rest, ok := strings.Cut(output, Header)
	if !ok {
		return "", false
	}
	return Header + rest, true
}

// CountIn finds the diagnostics block in a tool's output (a patch's) and returns its counts;
// ok is false when there is none.
func CountIn(output string) (errors, warnings int, ok bool) {
	_, rest, found := strings.Cut(output, Header)
	if !found {
		return 0, 0, false
	}
	line, _, _ := strings.Cut(rest, "\n")
	e, w, found := strings.Cut(line, ", ")
	if !found {
		return 0, 0, false
	}
	var err1, err2 error
	errors, err1 = strconv.Atoi(strings.Fields(e + " x")[0])
	warnings, err2 = strconv.Atoi(strings.Fields(w + " x")[0])
	return errors, warnings, err1 == nil && err2 == nil
}
