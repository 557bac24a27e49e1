package patch

import (
	_ "embed"
	"strings"
)

//go:embed apply_patch.lark
var larkGrammar string

// LarkGrammar is the grammar of the format in Lark syntax, the definition of the freeform
// apply_patch tool (comment lines stripped: they would only cost the model tokens).
func LarkGrammar() string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(larkGrammar, "\n") {
		if strings.HasPrefix(line, "//") {
			continue
		}
		b.WriteString(line)
	}
	return strings.TrimLeft(b.String(), "\n")
}
