package patch

import (
	"fmt"
	"strings"
	"unicode"
)

// The markers of the format. Hunk headers are recognised after trimming the line.
const (
	beginPatchMarker   = "*** Begin Patch"
	endPatchMarker     = "*** End Patch"
	addFileMarker      = "*** Add File: "
	deleteFileMarker   = "*** Delete File: "
	updateFileMarker   = "*** Update File: "
	moveToMarker       = "*** Move to: "
	endOfFileMarker    = "*** End of File"
	contextMarker      = "@@ "
	emptyContextMarker = "@@"
)

// HunkKind says what a hunk does to its file.
type HunkKind int

const (
	// AddFile creates (or overwrites) a file with Contents.
	AddFile HunkKind = iota
	// DeleteFile removes a file.
	DeleteFile
	// UpdateFile edits a file in place by Chunks, optionally moving it to MovePath.
	UpdateFile
)

// Hunk is one file operation of a patch. Paths are as spelled in the patch (relative to the
// working directory unless absolute).
type Hunk struct {
	Kind     HunkKind
	Path     string
	Contents string  // AddFile: every `+` line with a newline appended
	MovePath string  // UpdateFile: destination, empty when not moved
	Chunks   []Chunk // UpdateFile: at least one
}

// Chunk is one `@@` section of an update hunk.
type Chunk struct {
	// Context is the text after `@@ `, a line the chunk must come after; HasContext is false
	// for a bare `@@` (or an omitted one on the first chunk).
	Context    string
	HasContext bool
	OldLines   []string
	NewLines   []string
	// Origin has, for each NewLines entry, the index in OldLines of the context line it
	// repeats, or -1 for an added line. A context line keeps the file's own text and line
	// ending when applied, even when it matched only loosely.
	Origin []int
	// EndOfFile anchors OldLines to the end of the file (`*** End of File`).
	EndOfFile bool
}

// Patch is a parsed patch.
type Patch struct {
	Hunks []Hunk
	// Text is the patch as parsed: the inner lines joined by "\n", without any heredoc
	// wrapper, used when the patch is passed on to another process.
	Text string
}

// ParseError is a patch that does not follow the grammar. Its Error is the text Codex's core
// reports to the model (`invalid hunk at line 3, ...`); Report is what the standalone
// apply_patch command prints (`Invalid patch hunk on line 3: ...`).
type ParseError struct {
	// Line is the 1-based line of the offending hunk; zero for a whole-patch error.
	Line    int
	Message string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return "invalid patch: " + e.Message
	}
	return fmt.Sprintf("invalid hunk at line %d, %s", e.Line, e.Message)
}

// Report is the standalone command's wording of the error.
func (e *ParseError) Report() string {
	if e.Line == 0 {
		return "Invalid patch: " + e.Message
	}
	return fmt.Sprintf("Invalid patch hunk on line %d: %s", e.Line, e.Message)
}

func patchErr(msg string) *ParseError { return &ParseError{Message: msg} }

func hunkErr(line int, format string, args ...any) *ParseError {
	return &ParseError{Line: line, Message: fmt.Sprintf(format, args...)}
}

// Parse parses a patch leniently, the way Codex does by default: surrounding whitespace is
// ignored, the Begin/End markers may be padded, and a body wrapped in a heredoc
// (`<<'EOF'` … `EOF`) is unwrapped.
func Parse(text string) (*Patch, error) {
	lines := splitLines(strings.TrimSpace(text))
	if err := checkBoundaries(lines); err != nil {
		inner, ok := unwrapHeredoc(lines)
		if !ok {
			return nil, err
		}
		if err := checkBoundaries(inner); err != nil {
			return nil, err
		}
		lines = inner
	}
	p := &Patch{Text: strings.Join(lines, "\n")}
	body := lines[1 : len(lines)-1]
	lineNo := 2
	for len(body) > 0 {
		if strings.TrimSpace(body[0]) == endPatchMarker {
			// An early End Patch ends the patch; only blank lines may follow it.
			for _, l := range body[1:] {
				if strings.TrimSpace(l) != "" {
					return nil, patchErr("The last line of the patch must be '*** End Patch'")
				}
			}
			break
		}
		h, n, err := parseHunk(body, lineNo)
		if err != nil {
			return nil, err
		}
		p.Hunks = append(p.Hunks, h)
		lineNo += n
		body = body[n:]
	}
	return p, nil
}

// splitLines splits on "\n", dropping any "\r" before it (a patch that went through CRLF
// conversion twice still parses), and does not produce an empty last line for a trailing
// newline.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, "\r")
	}
	return lines
}

func checkBoundaries(lines []string) *ParseError {
	var first, last string
	if len(lines) > 0 {
		first = strings.TrimSpace(lines[0])
		last = strings.TrimSpace(lines[len(lines)-1])
	}
	switch {
	case len(lines) > 0 && first == beginPatchMarker && last == endPatchMarker:
		return nil
	case len(lines) > 0 && first != beginPatchMarker:
		return patchErr("The first line of the patch must be '*** Begin Patch'")
	default:
		return patchErr("The last line of the patch must be '*** End Patch'")
	}
}

// unwrapHeredoc returns the lines inside `<<EOF` … `EOF`, which models sometimes send when
// they confuse the tool with its shell form.
func unwrapHeredoc(lines []string) ([]string, bool) {
	if len(lines) < 4 {
		return nil, false
	}
	switch lines[0] {
	case "<<EOF", "<<'EOF'", `<<"EOF"`:
	default:
		return nil, false
	}
	if !strings.HasSuffix(lines[len(lines)-1], "EOF") {
		return nil, false
	}
	return lines[1 : len(lines)-1], true
}

func trimRight(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }

// parseHunk parses the hunk starting at lines[0] (line number lineNo) and returns it with
// the number of lines it used.
func parseHunk(lines []string, lineNo int) (Hunk, int, error) {
	header := strings.TrimSpace(lines[0])
	if path, ok := strings.CutPrefix(header, addFileMarker); ok {
		var b strings.Builder
		n := 1
		for _, l := range lines[1:] {
			text, ok := strings.CutPrefix(l, "+")
			if !ok {
				break
			}
			b.WriteString(text)
			b.WriteByte('\n')
			n++
		}
		return Hunk{Kind: AddFile, Path: path, Contents: b.String()}, n, nil
	}
	if path, ok := strings.CutPrefix(header, deleteFileMarker); ok {
		return Hunk{Kind: DeleteFile, Path: path}, 1, nil
	}
	if path, ok := strings.CutPrefix(header, updateFileMarker); ok {
		return parseUpdate(lines, lineNo, path)
	}
	return Hunk{}, 0, hunkErr(lineNo, "'%s' is not a valid hunk header. Valid hunk headers: "+
		"'*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'", header)
}

func parseUpdate(lines []string, lineNo int, path string) (Hunk, int, error) {
	h := Hunk{Kind: UpdateFile, Path: path}
	rest := lines[1:]
	n := 1
	if len(rest) > 0 {
		if dest, ok := strings.CutPrefix(trimRight(rest[0]), moveToMarker); ok {
			h.MovePath = dest
			rest = rest[1:]
			n++
		}
	}
	for len(rest) > 0 {
		// Blank lines between chunks are skipped; before the first chunk a blank line is an
		// empty context line.
		if len(h.Chunks) > 0 && strings.TrimSpace(rest[0]) == "" {
			rest = rest[1:]
			n++
			continue
		}
		if startsNextHunk(rest[0]) {
			break
		}
		if len(h.Chunks) == 0 && trimRight(rest[0]) == endOfFileMarker {
			// An End of File marker before any change line anchors nothing; Codex skips it.
			rest = rest[1:]
			n++
			continue
		}
		c, used, err := parseChunk(rest, lineNo+n, len(h.Chunks) == 0)
		if err != nil {
			return Hunk{}, 0, err
		}
		h.Chunks = append(h.Chunks, c)
		rest = rest[used:]
		n += used
	}
	if len(h.Chunks) == 0 {
		return Hunk{}, 0, hunkErr(lineNo, "Update file hunk for path '%s' is empty", path)
	}
	return h, n, nil
}

func (c *Chunk) addContext(line string) {
	c.Origin = append(c.Origin, len(c.OldLines))
	c.OldLines = append(c.OldLines, line)
	c.NewLines = append(c.NewLines, line)
}

// startsNextHunk reports whether an unindented line ends an update hunk: another hunk's
// header or the End Patch marker. Anything else there must be a chunk.
func startsNextHunk(line string) bool {
	for _, marker := range []string{addFileMarker, deleteFileMarker, updateFileMarker, endPatchMarker} {
		if strings.HasPrefix(line, marker) {
			return true
		}
	}
	return false
}

// parseChunk parses one chunk starting at lines[0] (line number lineNo). Only the first chunk
// of a hunk may omit its `@@` line.
func parseChunk(lines []string, lineNo int, allowMissingContext bool) (Chunk, int, error) {
	var c Chunk
	start := 0
	head := trimRight(lines[0])
	switch {
	case head == emptyContextMarker:
		start = 1
	case strings.HasPrefix(head, contextMarker):
		c.Context, c.HasContext = head[len(contextMarker):], true
		start = 1
	case !allowMissingContext:
		return Chunk{}, 0, hunkErr(lineNo, "Expected update hunk to start with a @@ context marker, got: '%s'", lines[0])
	}
	if start >= len(lines) {
		return Chunk{}, 0, hunkErr(lineNo+1, "Update hunk does not contain any lines")
	}
	used := 0
	for _, l := range lines[start:] {
		if trimRight(l) == endOfFileMarker {
			if used == 0 {
				return Chunk{}, 0, hunkErr(lineNo+start, "Update hunk does not contain any lines")
			}
			c.EndOfFile = true
			used++
			break
		}
		if l == "" {
			// A blank line is an empty context line whose leading space was lost.
			c.addContext("")
			used++
			continue
		}
		switch l[0] {
		case ' ':
			c.addContext(l[1:])
		case '+':
			c.NewLines = append(c.NewLines, l[1:])
			c.Origin = append(c.Origin, -1)
		case '-':
			c.OldLines = append(c.OldLines, l[1:])
		default:
			if used == 0 {
				if startsNextHunk(l) {
					l = trimRight(l) // Codex reports a misplaced hunk header trimmed
				}
				return Chunk{}, 0, hunkErr(lineNo+start, "Unexpected line found in update hunk: '%s'. "+
					"Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)", l)
			}
			// Anything else starts the next chunk or hunk.
			return c, used + start, nil
		}
		used++
	}
	return c, used + start, nil
}
