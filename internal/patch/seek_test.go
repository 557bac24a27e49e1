package patch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSeekSequencePasses(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		pattern []string
		start   int
		eof     bool
		want    int
	}{
		{"exact", []string{"a", "b", "c"}, []string{"b", "c"}, 0, false, 1},
		{"exact wins over a looser earlier match", []string{"b ", "c", "b", "c"}, []string{"b", "c"}, 0, false, 2},
		{"trailing whitespace", []string{"a", "b  \t", "c"}, []string{"b", "c   "}, 0, false, 1},
		{"surrounding whitespace", []string{"a", "    b", "c"}, []string{"b  ", " c"}, 0, false, 1},
		{"unicode punctuation", []string{"x", "say \u201chi\u201d \u2014 it\u2019s\u00a0ok"}, []string{`say "hi" - it's ok`}, 0, false, 1},
		{"from start", []string{"a", "b", "a"}, []string{"a"}, 1, false, 2},
		{"not before start", []string{"a", "b"}, []string{"a"}, 1, false, -1},
		{"eof anchors at the end", []string{"a", "b", "a", "b"}, []string{"a", "b"}, 0, true, 2},
		{"eof falls back to later match only", []string{"a", "b", "c"}, []string{"a", "b"}, 0, true, -1},
		{"eof never before start", []string{"a", "b", "b"}, []string{"b"}, 3, true, -1},
		{"empty pattern matches at start", []string{"a"}, nil, 1, false, 1},
		{"pattern longer than file", []string{"a"}, []string{"a", "b"}, 0, false, -1},
		{"no match", []string{"a"}, []string{"z"}, 0, false, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := seekSequence(tt.lines, tt.pattern, tt.start, tt.eof); got != tt.want {
				t.Errorf("seekSequence = %d, want %d", got, tt.want)
			}
		})
	}
	if got, want := normalise(" x\u2010\u2011\u2015\u2212\u00a0\u2002\u200a\u202f\u205f\u3000\u2018\u201b\u201c\u201f\u2016 "), "x----      ''\"\"\u2016"; got != want {
		t.Errorf("normalise = %q, want %q", got, want)
	}
}

func TestUpdatedContents(t *testing.T) {
	tests := []struct {
		name, original string
		chunks         []Chunk
		want           string
	}{
		{"adds trailing newline", "a\nb", []Chunk{{OldLines: []string{"b"}, NewLines: []string{"c"}}}, "a\nc\n"},
		{"pure insertion goes at end", "a\nb\n", []Chunk{{NewLines: []string{"x", "y"}}}, "a\nb\nx\ny\n"},
		{"context line chosen first", "f\nx\ng\nx\n", []Chunk{{Context: "g", HasContext: true, OldLines: []string{"x"}, NewLines: []string{"X"}}}, "f\nx\ng\nX\n"},
		{"retry without trailing empty line", "a\nb\n", []Chunk{{OldLines: []string{"b", ""}, NewLines: []string{"c", ""}}}, "a\nc\n"},
		{"end of file anchor", "a\nb\na\nb\n", []Chunk{{OldLines: []string{"a", "b"}, NewLines: []string{"a", "B"}, EndOfFile: true}}, "a\nb\na\nB\n"},
		{"chunks in order", "1\n2\n3\n4\n", []Chunk{{OldLines: []string{"2"}, NewLines: []string{"two"}}, {OldLines: []string{"4"}, NewLines: []string{"four", "4b"}}}, "1\ntwo\n3\nfour\n4b\n"},
		{"delete everything", "a\n", []Chunk{{OldLines: []string{"a"}}}, ""},
		{"insertion then earlier edit", "a\nb\n", []Chunk{{NewLines: []string{"z"}}, {OldLines: []string{"a"}, NewLines: []string{"A"}}}, "A\nb\nz\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := updatedContents(tt.original, "f", tt.chunks)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// bigPatch builds a file of n lines and a patch with hunks chunks editing it evenly.
func bigPatch(n, hunks int) (file, patchText string) {
	var f, p strings.Builder
	for i := range n {
		fmt.Fprintf(&f, "line %d of the file\n", i)
	}
	p.WriteString("*** Begin Patch\n*** Update File: big.txt\n")
	for h := range hunks {
		at := (h + 1) * n / (hunks + 1)
		fmt.Fprintf(&p, "@@ line %d of the file\n line %d of the file\n-line %d of the file\n+changed %d\n line %d of the file\n",
			at-2, at-1, at, at, at+1)
	}
	p.WriteString("*** End Patch\n")
	return f.String(), p.String()
}

func TestBigPatch(t *testing.T) {
	file, text := bigPatch(1000, 40)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(dir, p); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "big.txt"))
	if got := strings.Count(string(data), "changed "); got != 40 {
		t.Errorf("%d lines changed, want 40", got)
	}
}

// BenchmarkApply40Hunks applies a 40-hunk patch to a 100,000-line file (parse, read, match,
// write). The target is under 20 ms per operation.
func BenchmarkApply40Hunks(b *testing.B) {
	file, text := bigPatch(100_000, 40)
	dir := b.TempDir()
	path := filepath.Join(dir, "big.txt")
	b.SetBytes(int64(len(file)))
	for b.Loop() {
		b.StopTimer()
		if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		p, err := Parse(text)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Apply(dir, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify40Hunks computes the change (with its unified diff) the approval request
// and patch_apply_begin carry, for the same patch.
func BenchmarkVerify40Hunks(b *testing.B) {
	file, text := bigPatch(100_000, 40)
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(file), 0o644); err != nil {
		b.Fatal(err)
	}
	p, err := Parse(text)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Verify(dir, p); err != nil {
			b.Fatal(err)
		}
	}
}
