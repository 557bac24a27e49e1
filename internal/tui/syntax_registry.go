package tui

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// Code blocks are highlighted by chroma's engine with lexers and styles from chroma's own
// definitions (syntax/, MIT, see syntax/LICENSE): the common languages and every style.
// They are embedded here and parsed on the first code block, not imported from chroma's
// lexers and styles packages, whose package variables parse all 279 lexers and 70 styles at
// start-up (22 ms every gocodex command would pay; TestNoHeavyPackageInit).

//go:embed syntax/lexers/*.xml
var lexerFiles embed.FS

//go:embed syntax/styles/*.xml
var styleFiles embed.FS

// syntaxLexers is the registry of the embedded lexers and Go's, built on first use.
var syntaxLexers = sync.OnceValue(func() *chroma.LexerRegistry {
	reg := chroma.NewLexerRegistry()
	paths, _ := fs.Glob(lexerFiles, "syntax/lexers/*.xml")
	for _, p := range paths {
		if l, err := chroma.NewXMLLexer(lexerFiles, p); err == nil {
			reg.Register(l)
		}
	}
	reg.Register(goLexer())
	return reg
})

// syntaxStyles are the embedded styles by name, parsed on first use.
var syntaxStyles = sync.OnceValue(func() map[string]*chroma.Style {
	out := map[string]*chroma.Style{}
	paths, _ := fs.Glob(styleFiles, "syntax/styles/*.xml")
	for _, p := range paths {
		f, err := styleFiles.Open(p)
		if err != nil {
			continue
		}
		if st, err := chroma.NewXMLStyle(f); err == nil {
			out[strings.ToLower(st.Name)] = st
		}
		f.Close()
	}
	return out
})

// styleNames are the styles' names, sorted.
func styleNames() []string {
	var names []string
	for n := range syntaxStyles() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// styleNamed is the named style, or the default theme's.
func styleNamed(name string) *chroma.Style {
	if st, ok := syntaxStyles()[name]; ok {
		return st
	}
	return syntaxStyles()[defaultTheme]
}

// lexerNamed finds the lexer of a fence's language by name or alias ("go", "py"), then by
// file name ("x.rs").
func lexerNamed(lang string) chroma.Lexer {
	reg := syntaxLexers()
	if l := reg.Get(lang); l != nil {
		return l
	}
	return reg.Match("x." + path.Base(lang))
}
