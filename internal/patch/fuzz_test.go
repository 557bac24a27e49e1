package patch

import (
	"strings"
	"testing"
)

// FuzzUpdateContents feeds arbitrary files and patches to the matcher and applier: they must
// not panic, and a result is empty or ends with a line terminator.
func FuzzUpdateContents(f *testing.F) {
	f.Add("a\nb\nc\n", "*** Begin Patch\n*** Update File: f\n@@ a\n-b\n+B\n*** End Patch")
	f.Add("a\r\nb", "*** Begin Patch\n*** Update File: f\n@@\n+x\n*** End of File\n*** End Patch")
	f.Add("x\n\n", "*** Begin Patch\n*** Update File: f\n \n-x\n \n+y\n@@\n-\n*** End Patch")
	f.Fuzz(func(t *testing.T, file, text string) {
		p, err := Parse(text)
		if err != nil {
			return
		}
		for _, h := range p.Hunks {
			if h.Kind != UpdateFile {
				continue
			}
			out, err := updatedContents(file, "f", h.Chunks)
			if err != nil {
				continue
			}
			if out != "" && !strings.HasSuffix(out, "\n") && !strings.HasSuffix(out, "\r") {
				t.Fatalf("result %q does not end with a line terminator", out)
			}
		}
	})
}

// FuzzParseInvocation: any argv is classified without panicking, and a recognised heredoc
// script yields a parsed patch.
func FuzzParseInvocation(f *testing.F) {
	f.Add("bash", "-lc", "cd d && apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n")
	f.Add("sh", "-c", "apply_patch <<EOF\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nEOF")
	f.Add("apply_patch", "*** Begin Patch\n*** Delete File: a\n*** End Patch", "")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		for _, argv := range [][]string{{a, b, c}, {a, b}, {a}} {
			inv, err := ParseInvocation(argv)
			if err == nil && inv != nil && inv.Patch == nil {
				t.Fatalf("invocation without a patch for %q", argv)
			}
		}
	})
}
