package tui

import (
	. "github.com/alecthomas/chroma/v2" //nolint:revive // chroma's rule vocabulary, as its lexers write them
)

// goLexer is chroma's Go lexer (lexers/go.go, MIT, see syntax/LICENSE), which chroma writes
// in Go rather than XML; raw strings are plain strings here, without Go template colouring.
func goLexer() Lexer {
	return MustNewLexer(&Config{
		Name:      "Go",
		Aliases:   []string{"go", "golang"},
		Filenames: []string{"*.go"},
		MimeTypes: []string{"text/x-gosrc"},
	}, goRules)
}

func goRule(pattern string, emit Emitter) Rule { return Rule{Pattern: pattern, Type: emit} }

func goRules() Rules {
	return Rules{
		"root": {
			goRule(`\n`, TextWhitespace),
			goRule(`\s+`, TextWhitespace),
			goRule(`//[^\s\n\r][^\n\r]*`, CommentPreproc),
			goRule(`//[^\n\r]*`, CommentSingle),
			goRule(`/(\\\n)?[*](.|\n)*?[*](\\\n)?/`, CommentMultiline),
			goRule(`(import|package)\b`, KeywordNamespace),
			goRule(`(var|func|struct|map|chan|type|interface|const)\b`, KeywordDeclaration),
			goRule(Words(``, `\b`, `break`, `default`, `select`, `case`, `defer`, `go`, `else`, `goto`, `switch`, `fallthrough`, `if`, `range`, `continue`, `for`, `return`), Keyword),
			goRule(`(true|false|iota|nil)\b`, KeywordConstant),
			goRule(Words(``, `\b(\()`, `uint`, `uint8`, `uint16`, `uint32`, `uint64`, `int`, `int8`, `int16`, `int32`, `int64`, `float`, `float32`, `float64`, `complex64`, `complex128`, `byte`, `rune`, `string`, `bool`, `error`, `uintptr`, `print`, `println`, `panic`, `recover`, `close`, `complex`, `real`, `imag`, `len`, `cap`, `append`, `copy`, `delete`, `new`, `make`, `clear`, `min`, `max`), ByGroups(NameBuiltin, Punctuation)),
			goRule(Words(``, `\b`, `uint`, `uint8`, `uint16`, `uint32`, `uint64`, `int`, `int8`, `int16`, `int32`, `int64`, `float`, `float32`, `float64`, `complex64`, `complex128`, `byte`, `rune`, `string`, `bool`, `error`, `uintptr`, `any`), KeywordType),
			goRule(`\d+i`, LiteralNumber),
			goRule(`\d+\.\d*([Ee][-+]\d+)?i`, LiteralNumber),
			goRule(`\.\d+([Ee][-+]\d+)?i`, LiteralNumber),
			goRule(`\d+[Ee][-+]\d+i`, LiteralNumber),
			goRule(`\d+(\.\d+[eE][+\-]?\d+|\.\d*|[eE][+\-]?\d+)`, LiteralNumberFloat),
			goRule(`\.\d+([eE][+\-]?\d+)?`, LiteralNumberFloat),
			goRule(`0[0-7]+`, LiteralNumberOct),
			goRule(`0[xX][0-9a-fA-F_]+`, LiteralNumberHex),
			goRule(`0b[01_]+`, LiteralNumberBin),
			goRule(`(0|[1-9][0-9_]*)`, LiteralNumberInteger),
			goRule(`'(\\['"\\abfnrtv]|\\x[0-9a-fA-F]{2}|\\[0-7]{1,3}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|[^\\])'`, LiteralStringChar),
			goRule("`[^`]*`", LiteralString),
			goRule(`"(\\\\|\\"|[^"])*"`, LiteralString),
			goRule(`(<<=|>>=|<<|>>|<=|>=|&\^=|&\^|\+=|-=|\*=|/=|%=|&=|\|=|&&|\|\||<-|\+\+|--|==|!=|:=|\.\.\.|[+\-*/%&])`, Operator),
			goRule(`([a-zA-Z_]\w*)(\s*)(\()`, ByGroups(NameFunction, UsingSelf("root"), Punctuation)),
			goRule(`[|^<>=!()\[\]{}.,;:~]`, Punctuation),
			goRule(`[^\W\d]\w*`, NameOther),
		},
	}
}
