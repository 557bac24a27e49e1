package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// ParseError is a malformed or ill-typed configuration value. It always names
// where the problem is so a user sharing config.toml with Codex can fix it.
// File is a path for file layers, or a description such as
// "-c model_context_window=abc" for command-line overrides (Line and Column
// are then 0).
type ParseError struct {
	File    string
	Line    int
	Column  int
	Key     []string
	Message string
}

// Error renders the error the way Codex does: "path:line:col: message".
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Message)
	if len(e.Key) > 0 && !strings.Contains(e.Message, "`"+strings.Join(e.Key, ".")+"`") {
		fmt.Fprintf(&b, "\nin `%s`", strings.Join(e.Key, "."))
	}
	return b.String()
}

// Warning is a problem that does not stop loading: an unknown key (users
// share config.toml with Codex, which knows more keys than we do), a profile
// that does not exist, a provider id that shadows a built-in.
type Warning struct {
	File    string
	Line    int // 0 when unknown
	Column  int
	Key     []string
	Message string
	// Unknown marks a key gocodex does not know (the app-server reports these together, in
	// Codex's words).
	Unknown bool
}

func (w Warning) String() string {
	loc := w.File
	if w.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", w.File, w.Line, w.Column)
	}
	if loc == "" {
		return w.Message
	}
	return loc + ": " + w.Message
}

// fromTOMLError converts a go-toml error into a ParseError for file, keeping
// the line and column go-toml found.
func fromTOMLError(file string, err error) *ParseError {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		return &ParseError{
			File:    file,
			Line:    line,
			Column:  col,
			Key:     []string(de.Key()),
			Message: strings.TrimPrefix(de.Error(), "toml: "),
		}
	}
	var sme *toml.StrictMissingError
	if errors.As(err, &sme) && len(sme.Errors) > 0 {
		return fromTOMLError(file, &sme.Errors[0])
	}
	// go-toml reports every syntax and type problem as a DecodeError; this
	// branch keeps the promise of a position for anything else.
	return &ParseError{File: file, Line: 1, Column: 1, Message: err.Error()}
}
