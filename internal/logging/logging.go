package logging

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sync"
)

// Options say where a face logs.
type Options struct {
	// Dir is the log directory: config's log_dir, which defaults to CODEX_HOME/log.
	Dir string
	// Face names the file: gocodex-<face>.log.
	Face string
	// Getenv reads the level variables; nil means os.Getenv.
	Getenv func(string) string
	// Stderr receives a copy of the lines at StderrLevel and above (warnings, for the servers
	// whose stderr is free), or of every logged line when Verbose is set.
	Stderr      io.Writer
	StderrLevel slog.Level
	Verbose     bool
}

// Log is an open log. A nil *Log logs nothing.
type Log struct {
	logger    *slog.Logger
	file      *os.File
	closeOnce sync.Once
	closeErr  error
}

// Open opens (appending, 0600) the face's log file. When the file cannot be opened the face
// still gets a working logger (stderr when verbose, else discarded) and the error, to show as
// a warning: logging never stops a face. A GOCODEX_LOG that is not a level is such a warning too.
func Open(o Options) (*Log, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	level := Level(getenv)
	var handlers []slog.Handler
	if o.Stderr != nil {
		stderrLevel := max(level, o.StderrLevel)
		if o.Verbose {
			stderrLevel = level
		}
		handlers = append(handlers, slog.NewTextHandler(o.Stderr, &slog.HandlerOptions{Level: stderrLevel}))
	}
	l := &Log{}
	f, openErr := openFile(o.Dir, o.Face)
	if f != nil {
		l.file = f
		handlers = append(handlers, slog.NewTextHandler(f, &slog.HandlerOptions{Level: level}))
	}
	// Masking wraps every sink, so neither the file nor stderr can see a secret.
	l.logger = slog.New(newRedactHandler(slog.NewMultiHandler(handlers...))).With("face", o.Face, "pid", os.Getpid())
	return l, errors.Join(openErr, levelProblem(getenv))
}

// faceName keeps a face's name usable inside a file name (no separators, no dots).
var faceName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]*$`) })

// FileName is the file a face logs to: gocodex-<face>.log.
func FileName(face string) (string, error) {
	if !faceName().MatchString(face) {
		return "", fmt.Errorf("log: face %q is not a face name (lower-case letters, digits, dashes)", face)
	}
	return "gocodex-" + face + ".log", nil
}

func openFile(dir, face string) (*os.File, error) {
	if dir == "" {
		return nil, fmt.Errorf("log: no log directory")
	}
	name, err := FileName(face)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	// A file left by an older version with wider permissions is narrowed; logs hold prompts.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return nil, fmt.Errorf("log: %s cannot be made private: %w", path, err)
	}
	return f, nil
}

// Logger is the face's logger.
func (l *Log) Logger() *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l.logger
}

// Path is the log file's path, or "" when this run has no log file.
func (l *Log) Path() string {
	if l == nil || l.file == nil {
		return ""
	}
	return l.file.Name()
}

// Close closes the file; lines logged afterwards are dropped. Calling it twice is harmless.
func (l *Log) Close() error {
	if l == nil || l.file == nil {
		return nil
	}
	l.closeOnce.Do(func() { l.closeErr = l.file.Close() })
	return l.closeErr
}
