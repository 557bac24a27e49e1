package lsp

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gocodex/gocodex/internal/lsp/diagreport"
)

// Severity is a diagnostic's severity as gocodex reports it.
type Severity string

// The severities reported; hints and information are left out.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Diagnostic is one error or warning a server published.
type Diagnostic struct {
	// Line and Column are 1-based (Column counts UTF-16 units, as LSP does).
	Line, Column int
	Severity     Severity
	Message      string
	// Source is the tool that found it ("compiler", "go vet"...), when the server says.
	Source string
}

// FileDiagnostics are the diagnostics of one file.
type FileDiagnostics struct {
	// Path is absolute.
	Path  string
	Items []Diagnostic
}

// MaxReported caps the diagnostics listed in one block; the rest are counted.
const MaxReported = 20

// Format writes files' diagnostics compactly, one per line (path:line:col severity message),
// paths relative to cwd, errors first, at most limit lines and a count of the rest. It is ""
// when there is nothing to report.
func Format(files []FileDiagnostics, cwd string, limit int) string {
	type line struct {
		path string
		d    Diagnostic
	}
	var lines []line
	errors, warnings := 0, 0
	for _, f := range files {
		p := f.Path
		if rel, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
			p = rel
		}
		for _, d := range f.Items {
			lines = append(lines, line{p, d})
			if d.Severity == SeverityError {
				errors++
			} else {
				warnings++
			}
		}
	}
	if len(lines) == 0 {
		return ""
	}
	sort.SliceStable(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		if (a.d.Severity == SeverityError) != (b.d.Severity == SeverityError) {
			return a.d.Severity == SeverityError
		}
		if a.path != b.path {
			return a.path < b.path
		}
		if a.d.Line != b.d.Line {
			return a.d.Line < b.d.Line
		}
		return a.d.Column < b.d.Column
	})
	var b strings.Builder
	b.WriteString(diagreport.HeaderLine(errors, warnings))
	for i, l := range lines {
		if i == limit {
			fmt.Fprintf(&b, "... and %d more\n", len(lines)-limit)
			break
		}
		msg := strings.ReplaceAll(strings.TrimSpace(l.d.Message), "\n", " ")
		fmt.Fprintf(&b, "%s:%d:%d %s %s", l.path, l.d.Line, l.d.Column, l.d.Severity, msg)
		if l.d.Source != "" {
			fmt.Fprintf(&b, " (%s)", l.d.Source)
		}
		b.WriteString("\n")
	}
	return b.String()
}
