package patch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/gocodex/gocodex/internal/pathstyle"
)

// resolve turns a path as spelled in a patch into the absolute, cleaned path it names.
// Drive letters and backslashes count on Windows (pathstyle).
func resolve(cwd, path string) string { return pathstyle.Host().Resolve(cwd, path) }

// readForUpdate reads a file an update hunk edits. Errors carry Codex's wording, including
// the Rust-style cause, because models key their retries on these texts.
func readForUpdate(abs string) (string, error) {
	return readText(abs, "Failed to read file to update")
}

// readText reads a regular UTF-8 file; errors read "<what> <abs>: <cause>".
func readText(abs, what string) (string, error) {
	fail := func(cause string) error {
		return &ApplyError{Message: fmt.Sprintf("%s %s: %s", what, abs, cause)}
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

// absDir makes a working directory absolute, so error texts name absolute paths as Codex's do.
func absDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve working directory: %w", err)
	}
	return abs, nil
}
