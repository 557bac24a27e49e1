package patch

import (
	"fmt"
	"sort"
	"strings"
)

// fileLines is a file cut into lines, with the terminator each line had. Line endings are
// kept per line so that an edit touches only the lines it changes. The two slices run in
// parallel (rather than one slice of pairs) to halve what a large file costs.
type fileLines struct {
	text []string
	eol  []eol
}

// eol is a line terminator; noEOL marks a last line without one.
type eol uint8

const (
	noEOL eol = iota
	lf
	crlf
	cr
)

var eolText = [...]string{noEOL: "", lf: "\n", crlf: "\r\n", cr: "\r"}

func (f *fileLines) add(text string, e eol) {
	f.text = append(f.text, text)
	f.eol = append(f.eol, e)
}

// splitFileLines splits on "\r\n", "\n" and a lone "\r"; a trailing terminator does not
// start another line.
func splitFileLines(s string) fileLines {
	n := strings.Count(s, "\n") + 1
	f := fileLines{text: make([]string, 0, n), eol: make([]eol, 0, n)}
	if strings.IndexByte(s, '\r') < 0 {
		// The common case, without a CR anywhere: cut at each LF.
		for len(s) > 0 {
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				f.add(s, noEOL)
				break
			}
			f.add(s[:i], lf)
			s = s[i+1:]
		}
		return f
	}
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			f.add(s[start:i], lf)
			start = i + 1
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				f.add(s[start:i], crlf)
				i++
			} else {
				f.add(s[start:i], cr)
			}
			start = i + 1
		}
	}
	if start < len(s) {
		f.add(s[start:], noEOL)
	}
	return f
}

// preferredEOL is the terminator new lines get: the file's first one, else "\n".
func (f *fileLines) preferredEOL() eol {
	for _, e := range f.eol {
		if e != noEOL {
			return e
		}
	}
	return lf
}

// replacement replaces oldLen lines at start with the chunk's new lines; origin maps each
// new line to the replaced line it keeps (an index below oldLen) or -1.
type replacement struct {
	start, oldLen int
	lines         []string
	origin        []int
}

// updatedContents applies chunks to a file's text. display is the path named in errors.
// The result always ends with a line terminator (unless it is empty).
func updatedContents(original, display string, chunks []Chunk) (string, error) {
	f := splitFileLines(original)
	reps, err := computeReplacements(f.text, display, chunks)
	if err != nil {
		return "", err
	}
	end := f.preferredEOL()
	f = applyReplacements(f, reps, end)
	var b strings.Builder
	b.Grow(len(original) + 64)
	for i, text := range f.text {
		b.WriteString(text)
		if e := f.eol[i]; e == noEOL {
			b.WriteString(eolText[end])
		} else {
			b.WriteString(eolText[e])
		}
	}
	return b.String(), nil
}

func computeReplacements(lines []string, display string, chunks []Chunk) ([]replacement, error) {
	var reps []replacement
	index := 0
	for _, c := range chunks {
		if c.HasContext {
			i := seekSequence(lines, []string{c.Context}, index, false)
			if i < 0 {
				return nil, &ApplyError{Message: fmt.Sprintf("Failed to find context '%s' in %s", c.Context, display)}
			}
			index = i + 1
		}
		if len(c.OldLines) == 0 {
			// A pure insertion goes at the end of the file.
			reps = append(reps, replacement{start: len(lines), lines: c.NewLines, origin: c.Origin})
			continue
		}
		pattern, repl, origin := c.OldLines, c.NewLines, c.Origin
		found := seekSequence(lines, pattern, index, c.EndOfFile)
		if found < 0 && pattern[len(pattern)-1] == "" {
			// The model often ends a chunk with a blank line the file does not have there.
			pattern = pattern[:len(pattern)-1]
			if len(repl) > 0 && repl[len(repl)-1] == "" {
				repl = repl[:len(repl)-1]
				if len(origin) > len(repl) {
					origin = origin[:len(repl)]
				}
			}
			found = seekSequence(lines, pattern, index, c.EndOfFile)
		}
		if found < 0 {
			return nil, &ApplyError{Message: fmt.Sprintf("Failed to find expected lines in %s:\n%s",
				display, strings.Join(c.OldLines, "\n"))}
		}
		reps = append(reps, replacement{start: found, oldLen: len(pattern), lines: repl, origin: origin})
		index = found + len(pattern)
	}
	sort.SliceStable(reps, func(i, j int) bool { return reps[i].start < reps[j].start })
	return reps, nil
}

// appendNew appends what r puts in place of f's lines [r.start, r.start+r.oldLen): context
// lines as they are in the file, added lines with the file's preferred terminator.
func (r replacement) appendNew(out *fileLines, f fileLines, e eol) {
	for i, text := range r.lines {
		if i < len(r.origin) {
			if o := r.origin[i]; o >= 0 && o < r.oldLen && r.start+o < len(f.text) {
				out.add(f.text[r.start+o], f.eol[r.start+o])
				continue
			}
		}
		out.add(text, e)
	}
}

// applyReplacements applies sorted replacements. Codex splices them from the last to the
// first; when they do not overlap, building the result front to back gives the same lines
// in one pass, which matters for large files.
func applyReplacements(f fileLines, reps []replacement, e eol) fileLines {
	disjoint := true
	for i := 1; i < len(reps); i++ {
		if reps[i-1].start+reps[i-1].oldLen > reps[i].start {
			disjoint = false
			break
		}
	}
	if disjoint {
		n := len(f.text) + 8
		out := fileLines{text: make([]string, 0, n), eol: make([]eol, 0, n)}
		at := 0
		for _, r := range reps {
			out.text = append(out.text, f.text[at:r.start]...)
			out.eol = append(out.eol, f.eol[at:r.start]...)
			r.appendNew(&out, f, e)
			at = min(r.start+r.oldLen, len(f.text))
		}
		out.text = append(out.text, f.text[at:]...)
		out.eol = append(out.eol, f.eol[at:]...)
		return out
	}
	for i := len(reps) - 1; i >= 0; i-- {
		r := reps[i]
		start := min(r.start, len(f.text))
		end := min(start+r.oldLen, len(f.text))
		var out fileLines
		out.text = append(out.text, f.text[:start]...)
		out.eol = append(out.eol, f.eol[:start]...)
		r.appendNew(&out, f, e)
		out.text = append(out.text, f.text[end:]...)
		out.eol = append(out.eol, f.eol[end:]...)
		f = out
	}
	return f
}
