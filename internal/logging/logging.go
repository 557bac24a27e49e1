// Package logging gives every face one log a person can read: log/slog text lines appended to
// a file under CODEX_HOME/log (or the configured log_dir), named after the face
// (gocodex-exec.log, gocodex-app-server.log, …; Codex 0.169 keeps its logs in a SQLite
// database, which we do not copy, and names its TUI log codex-tui.log, which we leave to it),
// with secrets redacted, optionally echoed to stderr.
//
// The level comes from GOCODEX_LOG (debug, info, warn or error); when it is unset a plain
// level word in RUST_LOG (Codex's variable, e.g. RUST_LOG=debug or RUST_LOG=codex=warn) is
// honoured; the default is info.
package logging

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// LevelEnv is the variable that sets the level.
const LevelEnv = "GOCODEX_LOG"

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

// Log is an open log.
type Log struct {
	logger *slog.Logger
	file   *os.File
}

// Open opens (appending, 0600) the face's log file. When the file cannot be opened the face
// still gets a working logger (stderr when verbose, else discarded) and the error, to show as
// a warning: logging never stops a face.
func Open(o Options) (*Log, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	hopts := &slog.HandlerOptions{Level: Level(getenv), ReplaceAttr: redactAttr}
	var handlers []slog.Handler
	if o.Stderr != nil {
		sopts := *hopts
		if !o.Verbose {
			sopts.Level = max(hopts.Level.Level(), o.StderrLevel)
		}
		handlers = append(handlers, slog.NewTextHandler(o.Stderr, &sopts))
	}
	l := &Log{}
	var openErr error
	if f, err := openFile(o.Dir, o.Face); err != nil {
		openErr = err
	} else {
		l.file = f
		handlers = append(handlers, slog.NewTextHandler(f, hopts))
	}
	switch len(handlers) {
	case 0:
		l.logger = slog.New(slog.DiscardHandler)
	case 1:
		l.logger = slog.New(handlers[0])
	default:
		l.logger = slog.New(slog.NewMultiHandler(handlers...))
	}
	l.logger = l.logger.With("face", o.Face, "pid", os.Getpid())
	return l, openErr
}

func openFile(dir, face string) (*os.File, error) {
	if dir == "" {
		return nil, fmt.Errorf("log: no log directory")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	path := filepath.Join(dir, "gocodex-"+face+".log")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	// A file left by an older version with wider permissions is narrowed.
	_ = f.Chmod(0o600)
	return f, nil
}

// Logger is the face's logger.
func (l *Log) Logger() *slog.Logger { return l.logger }

// Close closes the file.
func (l *Log) Close() error {
	if l == nil || l.file == nil {
		return nil
	}
	return l.file.Close()
}

// Level reads GOCODEX_LOG, else a level word in RUST_LOG; info by default.
func Level(getenv func(string) string) slog.Level {
	if lv, ok := parseLevel(getenv(LevelEnv)); ok {
		return lv
	}
	// RUST_LOG directives look like "warn" or "codex_core=debug,info": take the last word.
	directives := strings.Split(getenv("RUST_LOG"), ",")
	for i := len(directives) - 1; i >= 0; i-- {
		d := directives[i]
		if _, after, ok := strings.Cut(d, "="); ok {
			d = after
		}
		if lv, ok := parseLevel(d); ok {
			return lv
		}
	}
	return slog.LevelInfo
}

func parseLevel(s string) (slog.Level, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "trace", "debug":
		return slog.LevelDebug, true
	case "info":
		return slog.LevelInfo, true
	case "warn", "warning":
		return slog.LevelWarn, true
	case "error":
		return slog.LevelError, true
	}
	return 0, false
}
