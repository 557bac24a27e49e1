package patch

import (
	"errors"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ErrImplicitInvocation is the answer to a raw patch sent as a command on its own: the model
// must call apply_patch explicitly.
var ErrImplicitInvocation = errors.New(`patch detected without explicit call to apply_patch. Rerun as ["apply_patch", "<patch>"]`)

// Invocation is a command recognised as an apply_patch call.
type Invocation struct {
	Patch *Patch
	// Workdir is the directory of a leading `cd DIR &&`, as written; empty when absent.
	Workdir string
}

// ParseInvocation recognises an apply_patch call in a command's argv: `apply_patch PATCH`
// (or `applypatch`), or a shell script (`bash|zsh|sh -c|-lc SCRIPT`, and the PowerShell and
// cmd forms) that is exactly one `apply_patch <<'EOF' … EOF`, optionally preceded by
// `cd DIR &&`. It returns (nil, nil) for
// any other command. A recognised call whose patch does not parse returns the parse error;
// a bare patch given as the whole command returns ErrImplicitInvocation.
func ParseInvocation(argv []string) (*Invocation, error) {
	if len(argv) == 1 && parses(argv[0]) {
		return nil, ErrImplicitInvocation
	}
	script, isShell := shellScript(argv)
	if isShell && parses(script) {
		return nil, ErrImplicitInvocation
	}
	var body, workdir string
	switch {
	case len(argv) == 2 && (argv[0] == "apply_patch" || argv[0] == "applypatch"):
		body = argv[1]
	case isShell:
		var ok bool
		body, workdir, ok = heredocCall(script)
		if !ok {
			return nil, nil
		}
	default:
		return nil, nil
	}
	p, err := Parse(body)
	if err != nil {
		return nil, err
	}
	return &Invocation{Patch: p, Workdir: workdir}, nil
}

// Dir is the directory the invocation's paths resolve against, given the command's cwd.
func (inv *Invocation) Dir(cwd string) string {
	if inv.Workdir == "" {
		return cwd
	}
	return resolve(cwd, inv.Workdir)
}

func parses(text string) bool {
	_, err := Parse(text)
	return err == nil
}

// shellScript returns the script of `bash -lc SCRIPT` and its relatives: `zsh`/`sh` with
// `-c`/`-lc`, `pwsh`/`powershell [-NoProfile] -Command`, and `cmd /c`.
func shellScript(argv []string) (string, bool) {
	if len(argv) < 3 {
		return "", false
	}
	name := strings.TrimSuffix(strings.ToLower(filepath.Base(argv[0])), ".exe")
	flags, script := argv[1:len(argv)-1], argv[len(argv)-1]
	switch name {
	case "bash", "zsh", "sh":
		return script, len(flags) == 1 && (flags[0] == "-lc" || flags[0] == "-c")
	case "pwsh", "powershell":
		if len(flags) == 2 && strings.EqualFold(flags[0], "-NoProfile") {
			flags = flags[1:]
		}
		return script, len(flags) == 1 && strings.EqualFold(flags[0], "-Command")
	case "cmd":
		return script, len(flags) == 1 && strings.EqualFold(flags[0], "/c")
	}
	return "", false
}

// heredocCall extracts the heredoc body of a script that is exactly `apply_patch <<EOF …`
// or `cd DIR && apply_patch <<EOF …`. Anything more (other commands, pipes, `||`, arguments)
// means the script is not a patch call and runs as an ordinary command.
func heredocCall(script string) (body, workdir string, ok bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil || len(f.Stmts) != 1 {
		return "", "", false
	}
	st := f.Stmts[0]
	if !plainStmt(st) {
		return "", "", false
	}
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		body, ok = applyPatchHeredoc(script, st)
		return body, "", ok
	case *syntax.BinaryCmd:
		if cmd.Op != syntax.AndStmt || !plainStmt(cmd.X) || len(cmd.X.Redirs) != 0 || !plainStmt(cmd.Y) {
			return "", "", false
		}
		workdir, ok = cdTarget(cmd.X)
		if !ok {
			return "", "", false
		}
		body, ok = applyPatchHeredoc(script, cmd.Y)
		return body, workdir, ok
	}
	return "", "", false
}

func plainStmt(st *syntax.Stmt) bool {
	return st != nil && !st.Negated && !st.Background && !st.Coprocess && !st.Disown
}

// applyPatchHeredoc accepts `apply_patch <<DELIM` with no arguments and exactly one
// here-document, whose body is returned verbatim from the script.
func applyPatchHeredoc(script string, st *syntax.Stmt) (string, bool) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) != 0 || len(call.Args) != 1 || len(st.Redirs) != 1 {
		return "", false
	}
	name, ok := literal(call.Args[0], false)
	if !ok || (name != "apply_patch" && name != "applypatch") {
		return "", false
	}
	r := st.Redirs[0]
	if (r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc) || r.N != nil || r.Hdoc == nil {
		return "", false
	}
	start, end := int(r.Hdoc.Pos().Offset()), int(r.Hdoc.End().Offset())
	if start < 0 || end > len(script) || start > end {
		return "", false
	}
	// The body's extent as the parser reports it may run into the closing delimiter line.
	body := script[start:end]
	if delim := unquotedDelimiter(r.Word); delim != "" {
		if rest, ok := strings.CutSuffix(body, delim); ok && (rest == "" || strings.HasSuffix(rest, "\n")) {
			body = rest
		}
	}
	return body, true
}

// unquotedDelimiter is a here-document delimiter word with its quoting removed.
func unquotedDelimiter(w *syntax.Word) string {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if lit, ok := q.(*syntax.Lit); ok {
					b.WriteString(lit.Value)
				}
			}
		}
	}
	return b.String()
}

// cdTarget accepts `cd DIR` with one plain, single-quoted or double-quoted argument.
func cdTarget(st *syntax.Stmt) (string, bool) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) != 0 || len(call.Args) != 2 {
		return "", false
	}
	if name, ok := literal(call.Args[0], false); !ok || name != "cd" {
		return "", false
	}
	return literal(call.Args[1], true)
}

// literal returns the value of a word made of one literal part; with quoted set, a single-
// or double-quoted string without expansions also counts.
func literal(w *syntax.Word, quoted bool) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		if strings.ContainsAny(p.Value, `\`) {
			return "", false
		}
		return p.Value, true
	case *syntax.SglQuoted:
		if quoted && !p.Dollar {
			return p.Value, true
		}
	case *syntax.DblQuoted:
		if !quoted || p.Dollar {
			return "", false
		}
		if len(p.Parts) == 0 {
			return "", true
		}
		if lit, ok := p.Parts[0].(*syntax.Lit); ok && len(p.Parts) == 1 {
			return lit.Value, true
		}
	}
	return "", false
}
