package patch

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Hunk
	}{
		{
			name: "all hunk kinds",
			text: "*** Begin Patch\n*** Add File: a.txt\n+one\n+\n*** Delete File: b.txt\n*** Update File: c.txt\n*** Move to: d/c.txt\n@@ func f\n ctx\n-old\n+new\n@@\n-x\n*** End of File\n*** End Patch\n",
			want: []Hunk{
				{Kind: AddFile, Path: "a.txt", Contents: "one\n\n"},
				{Kind: DeleteFile, Path: "b.txt"},
				{Kind: UpdateFile, Path: "c.txt", MovePath: "d/c.txt", Chunks: []Chunk{
					{Context: "func f", HasContext: true, OldLines: []string{"ctx", "old"}, NewLines: []string{"ctx", "new"}, Origin: []int{0, -1}},
					{OldLines: []string{"x"}, EndOfFile: true},
				}},
			},
		},
		{
			name: "first chunk without @@, blank lines in a chunk are context, skipped between chunks",
			text: "*** Begin Patch\n*** Update File: f\n a\n\n-b\n+c\n\n\n@@ x\n-y\n*** End of File\n\n  \n@@\n+z\n*** End Patch",
			want: []Hunk{{Kind: UpdateFile, Path: "f", Chunks: []Chunk{
				{OldLines: []string{"a", "", "b", "", ""}, NewLines: []string{"a", "", "c", "", ""}, Origin: []int{0, 1, -1, 3, 4}},
				{Context: "x", HasContext: true, OldLines: []string{"y"}, EndOfFile: true},
				{NewLines: []string{"z"}, Origin: []int{-1}},
			}}},
		},
		{
			name: "padded markers, CRLF, heredoc",
			text: "<<\"EOF\"\r\n  *** Begin Patch  \r\n *** Add File: z  \r\n+1\r\n*** End Patch \r\nEOF\r\n",
			want: []Hunk{{Kind: AddFile, Path: "z", Contents: "1\n"}},
		},
		{
			name: "blank line before the first chunk is context; End of File there is skipped",
			text: "*** Begin Patch\n*** Update File: f\n*** End of File\n\n-a\n*** End Patch",
			want: []Hunk{{Kind: UpdateFile, Path: "f", Chunks: []Chunk{{OldLines: []string{"", "a"}, NewLines: []string{""}, Origin: []int{0}}}}},
		},
		{
			name: "early End Patch followed by blank lines",
			text: "*** Begin Patch\n*** Delete File: f\n*** End Patch\n \n\n*** End Patch",
			want: []Hunk{{Kind: DeleteFile, Path: "f"}},
		},
		{
			name: "@@ with only spaces is a bare marker",
			text: "*** Begin Patch\n*** Update File: f\n@@   \n-a\n*** End Patch",
			want: []Hunk{{Kind: UpdateFile, Path: "f", Chunks: []Chunk{{OldLines: []string{"a"}}}}},
		},
		{
			name: "empty add file",
			text: "*** Begin Patch\n*** Add File: e\n*** End Patch",
			want: []Hunk{{Kind: AddFile, Path: "e"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, p.Hunks); diff != "" {
				t.Errorf("hunks differ (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseHeredocText(t *testing.T) {
	p, err := Parse("<<EOF\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "*** Begin Patch\n*** Delete File: x\n*** End Patch"; p.Text != want {
		t.Errorf("Text = %q, want %q", p.Text, want)
	}
}

// TestParseErrorTexts pins both wordings of every parse error: the one Codex's core gives
// the model (Error) and the standalone command's (Report).
func TestParseErrorTexts(t *testing.T) {
	const headers = "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'"
	const every = "Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)"
	tests := []struct {
		text, core, report string
	}{
		{"", "invalid patch: The last line of the patch must be '*** End Patch'",
			"Invalid patch: The last line of the patch must be '*** End Patch'"},
		{"bad\n*** End Patch", "invalid patch: The first line of the patch must be '*** Begin Patch'",
			"Invalid patch: The first line of the patch must be '*** Begin Patch'"},
		{"*** Begin Patch\nfoo\n*** End Patch", "invalid hunk at line 2, 'foo' is not a valid hunk header. " + headers,
			"Invalid patch hunk on line 2: 'foo' is not a valid hunk header. " + headers},
		{"*** Begin Patch\n*** Update File: a\n*** End Patch", "invalid hunk at line 2, Update file hunk for path 'a' is empty",
			"Invalid patch hunk on line 2: Update file hunk for path 'a' is empty"},
		{"*** Begin Patch\n*** Update File: a\n-x\n@@\n*** End Patch", "invalid hunk at line 5, Update hunk does not contain any lines",
			"Invalid patch hunk on line 5: Update hunk does not contain any lines"},
		{"*** Begin Patch\n*** Update File: a\n-x\nzz\n*** End Patch", "invalid hunk at line 4, Expected update hunk to start with a @@ context marker, got: 'zz'",
			"Invalid patch hunk on line 4: Expected update hunk to start with a @@ context marker, got: 'zz'"},
		{"*** Begin Patch\n*** Update File: a\n@@ c\nzz\n*** End Patch", "invalid hunk at line 4, Unexpected line found in update hunk: 'zz'. " + every,
			"Invalid patch hunk on line 4: Unexpected line found in update hunk: 'zz'. " + every},
	}
	for _, tt := range tests {
		_, err := Parse(tt.text)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q) error = %v, want a *ParseError", tt.text, err)
			continue
		}
		if got := pe.Error(); got != tt.core {
			t.Errorf("Parse(%q).Error() = %q, want %q", tt.text, got, tt.core)
		}
		if got := pe.Report(); got != tt.report {
			t.Errorf("Parse(%q).Report() = %q, want %q", tt.text, got, tt.report)
		}
	}
}

func FuzzParsePatch(f *testing.F) {
	for _, seed := range []string{
		"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch",
		"*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@ c\n a\n-b\n+c\n*** End of File\n*** End Patch",
		"<<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF",
		"*** Begin Patch\n*** Update File: a\n\n\n@@\n*** End Patch",
		" *** Begin Patch\r\n*** End Patch ",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := Parse(text)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Error() == "" || pe.Report() == "" {
				t.Fatalf("error %v is not a well-formed *ParseError", err)
			}
			return
		}
		for _, h := range p.Hunks {
			if h.Kind == UpdateFile && len(h.Chunks) == 0 {
				t.Fatalf("update hunk without chunks: %+v", h)
			}
			for _, c := range h.Chunks {
				if len(c.OldLines) == 0 && len(c.NewLines) == 0 {
					t.Fatalf("empty chunk: %+v", c)
				}
			}
		}
		// The normalised text parses to the same hunks.
		again, err := Parse(p.Text)
		if err != nil {
			t.Fatalf("re-parse of %q: %v", p.Text, err)
		}
		if diff := cmp.Diff(p.Hunks, again.Hunks); diff != "" {
			t.Fatalf("re-parse differs:\n%s", diff)
		}
	})
}
