package safety

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ShellScript returns the script of a `bash|zsh|sh -lc|-c SCRIPT` invocation. Codex only looks
// through exactly three-word invocations: anything else (extra arguments, other flags) is
// treated as an opaque program.
func ShellScript(argv []string) (string, bool) {
	if len(argv) != 3 {
		return "", false
	}
	if argv[1] != "-lc" && argv[1] != "-c" {
		return "", false
	}
	switch shellName(argv[0]) {
	case "bash", "zsh", "sh":
		return argv[2], true
	}
	return "", false
}

// shellName is the basename of a shell path without an extension, so `/bin/bash` and
// `bash.exe` both read as bash.
func shellName(p string) string {
	base := filepath.Base(p)
	if ext := filepath.Ext(base); ext != "" {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

func parseBash(script string, keepComments bool) (*syntax.File, bool) {
	p := syntax.NewParser(syntax.KeepComments(keepComments), syntax.Variant(syntax.LangBash))
	f, err := p.Parse(strings.NewReader(script), "")
	if err != nil {
		return nil, false
	}
	return f, true
}

// ParseWordOnlyScript splits a shell script into its commands when the script is a plain
// sequence: simple commands made only of literal words (bare, single- or double-quoted
// without expansions) joined by `&&`, `||`, `;`, `|` or newlines. Redirections,
// substitutions, variables, assignments, subshells, groups, control flow, comments and
// background jobs all make the script not plain (ok=false): then nothing can be said about
// what it runs without executing it.
func ParseWordOnlyScript(script string) ([][]string, bool) {
	f, ok := parseBash(script, true)
	if !ok || len(f.Last) > 0 {
		return nil, false
	}
	var cmds [][]string
	for _, st := range f.Stmts {
		if !collectPlainStmt(st, &cmds) {
			return nil, false
		}
	}
	return cmds, true
}

// ParseShellPlainCommands applies ParseWordOnlyScript to the script of a `bash -lc` style
// invocation; ok is false when argv is not such an invocation, the script is not plain, or it
// holds no command.
func ParseShellPlainCommands(argv []string) ([][]string, bool) {
	script, ok := ShellScript(argv)
	if !ok {
		return nil, false
	}
	cmds, ok := ParseWordOnlyScript(script)
	if !ok || len(cmds) == 0 {
		return nil, false
	}
	return cmds, true
}

func collectPlainStmt(st *syntax.Stmt, out *[][]string) bool {
	if st == nil || len(st.Comments) > 0 || len(st.Redirs) > 0 ||
		st.Negated || st.Background || st.Coprocess || st.Disown {
		return false
	}
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(cmd.Assigns) > 0 || len(cmd.Args) == 0 {
			return false
		}
		// The program must be a bare word: a quoted program name such as 'git status' names
		// a program with a space in it, which Codex never treats as known.
		if len(cmd.Args[0].Parts) != 1 {
			return false
		}
		if _, isLit := cmd.Args[0].Parts[0].(*syntax.Lit); !isLit {
			return false
		}
		words := make([]string, 0, len(cmd.Args))
		for _, w := range cmd.Args {
			s, ok := literalWord(w)
			if !ok {
				return false
			}
			words = append(words, s)
		}
		if words[0] == "[" || words[0] == "[[" {
			return false // test expressions are not simple commands in bash's grammar
		}
		*out = append(*out, words)
		return true
	case *syntax.BinaryCmd:
		switch cmd.Op {
		case syntax.AndStmt, syntax.OrStmt, syntax.Pipe:
		default:
			return false
		}
		return collectPlainStmt(cmd.X, out) && collectPlainStmt(cmd.Y, out)
	}
	return false
}

// literalWord returns the value a word has after quote removal when it contains no expansion
// at all. Backslash escapes are resolved as bash would, so `--pr\e` reads as `--pre`: the
// safety rules must see the argv the program will receive. Unquoted braces are refused
// because brace expansion can assemble any flag from harmless-looking pieces.
func literalWord(w *syntax.Word) (string, bool) {
	if len(w.Parts) == 1 {
		if lit, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(lit.Value, "\\{") {
			return lit.Value, true // fast path for the common bare word
		}
	}
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.ContainsRune(p.Value, '{') {
				return "", false
			}
			unescapeBare(&b, p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, inner := range p.Parts {
				lit, ok := inner.(*syntax.Lit)
				if !ok {
					return "", false
				}
				unescapeDouble(&b, lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescapeBare applies bash's unquoted backslash rules: `\x` is x, `\<newline>` vanishes.
func unescapeBare(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
}

// unescapeDouble applies the double-quote rules: a backslash only escapes $ ` " \ and newline.
func unescapeDouble(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
}

// literalCommands returns every simple command anywhere in a script (inside control flow,
// pipelines, substitutions) whose program name is a literal word. Arguments that are not
// literal are replaced by an empty string, which no flag rule matches. Used to spot dangerous
// commands, where looking deeper than the plain-sequence rule is the safe direction.
func literalCommands(script string) [][]string {
	f, ok := parseBash(script, false)
	if !ok {
		return nil
	}
	var cmds [][]string
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		name, ok := literalWord(call.Args[0])
		if !ok {
			return true
		}
		words := []string{name}
		for _, w := range call.Args[1:] {
			s, _ := literalWord(w)
			words = append(words, s)
		}
		cmds = append(cmds, words)
		return true
	})
	return cmds
}
