package patch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"unicode/utf8"
)

// resolve turns a path as spelled in a patch into the absolute, cleaned path it names.
func resolve(cwd, path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(cwd, path)
}

// readForUpdate reads a file an update hunk edits. Errors carry Codex's wording, including
// the Rust-style cause, because models key their retries on these texts.
func readForUpdate(abs string) (string, error) {
	fail := func(cause string) error {
		return &ApplyError{Message: fmt.Sprintf("Failed to read file to update %s: %s", abs, cause)}
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", fail(ioCause(err))
	}
	if !info.Mode().IsRegular() {
		return "", fail(fmt.Sprintf("path `%s` is not a file", abs))
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return "", fail(ioCause(err))
	}
	if err := checkUTF8(data); err != "" {
		return "", fail(err)
	}
	return string(data), nil
}

// checkUTF8 describes the first invalid UTF-8 sequence the way Rust's Utf8Error does.
func checkUTF8(data []byte) string {
	if utf8.Valid(data) {
		return ""
	}
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r != utf8.RuneError || size > 1 {
			i += size
			continue
		}
		if !utf8.FullRune(data[i:]) {
			return fmt.Sprintf("incomplete utf-8 byte sequence from index %d", i)
		}
		return fmt.Sprintf("invalid utf-8 sequence of %d bytes from index %d", invalidLen(data[i:]), i)
	}
	return ""
}

// invalidLen is how many bytes Rust reports as the invalid sequence: the lead byte plus the
// continuation bytes that were acceptable before the sequence broke.
func invalidLen(b []byte) int {
	n := 1
	want := 0
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		want = 2
	case c >= 0xE0 && c <= 0xEF:
		want = 3
	case c >= 0xF0 && c <= 0xF4:
		want = 4
	}
	for n < want && n < len(b) && b[n]&0xC0 == 0x80 {
		n++
	}
	return n
}

// errnoText is musl's strerror for the errors a patch is likely to meet; Codex (a musl
// build) prints them as "<text> (os error N)".
var errnoText = map[syscall.Errno]string{
	syscall.EPERM:        "Operation not permitted",
	syscall.ENOENT:       "No such file or directory",
	syscall.EIO:          "I/O error",
	syscall.EACCES:       "Permission denied",
	syscall.EEXIST:       "File exists",
	syscall.ENOTDIR:      "Not a directory",
	syscall.EISDIR:       "Is a directory",
	syscall.ENOSPC:       "No space left on device",
	syscall.EROFS:        "Read-only file system",
	syscall.ENAMETOOLONG: "Filename too long",
	syscall.ELOOP:        "Symbolic link loop",
	syscall.ENOTEMPTY:    "Directory not empty",
}

func ioCause(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		text, ok := errnoText[errno]
		if !ok {
			text = errno.Error()
			if text != "" {
				text = strings.ToUpper(text[:1]) + text[1:]
			}
		}
		return fmt.Sprintf("%s (os error %d)", text, int(errno))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// replacement replaces oldLen lines at start with lines.
type replacement struct {
	start, oldLen int
	lines         []string
}

// updatedContents applies chunks to a file's text. display is the path named in errors.
func updatedContents(original, display string, chunks []Chunk) (string, error) {
	lines := strings.Split(original, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	reps, err := computeReplacements(lines, display, chunks)
	if err != nil {
		return "", err
	}
	lines = applyReplacements(lines, reps)
	if len(lines) == 0 || lines[len(lines)-1] != "" {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n"), nil
}

func computeReplacements(lines []string, display string, chunks []Chunk) ([]replacement, error) {
	var reps []replacement
	index := 0
	for _, c := range chunks {
		if c.HasContext {
			i := seekSequence(lines, []string{c.Context}, index, false)
			if i < 0 {
				return nil, &ApplyError{Message: fmt.Sprintf("Failed to find context '%s' in %s", c.Context, display)}
			}
			index = i + 1
		}
		if len(c.OldLines) == 0 {
			// A pure insertion goes at the end of the file.
			at := len(lines)
			if at > 0 && lines[at-1] == "" {
				at--
			}
			reps = append(reps, replacement{start: at, lines: c.NewLines})
			continue
		}
		pattern, repl := c.OldLines, c.NewLines
		found := seekSequence(lines, pattern, index, c.EndOfFile)
		if found < 0 && pattern[len(pattern)-1] == "" {
			// The model often ends a chunk with a blank line the file does not have there.
			pattern = pattern[:len(pattern)-1]
			if len(repl) > 0 && repl[len(repl)-1] == "" {
				repl = repl[:len(repl)-1]
			}
			found = seekSequence(lines, pattern, index, c.EndOfFile)
		}
		if found < 0 {
			return nil, &ApplyError{Message: fmt.Sprintf("Failed to find expected lines in %s:\n%s",
				display, strings.Join(c.OldLines, "\n"))}
		}
		reps = append(reps, replacement{start: found, oldLen: len(pattern), lines: repl})
		index = found + len(pattern)
	}
	sort.SliceStable(reps, func(i, j int) bool { return reps[i].start < reps[j].start })
	return reps, nil
}

// applyReplacements applies sorted replacements. Codex splices them from the last to the
// first; when they do not overlap, building the result front to back gives the same lines
// in one pass, which matters for large files.
func applyReplacements(lines []string, reps []replacement) []string {
	disjoint := true
	for i := 1; i < len(reps); i++ {
		if reps[i-1].start+reps[i-1].oldLen > reps[i].start {
			disjoint = false
			break
		}
	}
	if disjoint {
		out := make([]string, 0, len(lines)+8)
		at := 0
		for _, r := range reps {
			if r.start > len(lines) {
				break
			}
			out = append(out, lines[at:r.start]...)
			out = append(out, r.lines...)
			at = min(r.start+r.oldLen, len(lines))
		}
		return append(out, lines[at:]...)
	}
	lines = append([]string(nil), lines...)
	for i := len(reps) - 1; i >= 0; i-- {
		r := reps[i]
		start := min(r.start, len(lines))
		end := min(start+r.oldLen, len(lines))
		lines = append(lines[:start], append(append([]string(nil), r.lines...), lines[end:]...)...)
	}
	return lines
}

// absDir makes a working directory absolute, so error texts name absolute paths as Codex's do.
func absDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve working directory: %w", err)
	}
	return abs, nil
}
