package tui

import "strings"

// scroller shows a window of the transcript's lines. The lines are already wrapped to the
// terminal width, so unlike a general viewport it never measures them: a streaming delta
// costs a split, not a width computation over the whole conversation.
type scroller struct {
	lines  []string
	off    int
	height int
}

func (s *scroller) maxOffset() int { return max(0, len(s.lines)-s.height) }

// atBottom reports whether the last line is visible.
func (s *scroller) atBottom() bool { return s.off >= s.maxOffset() }

func (s *scroller) setContent(content string) {
	s.lines = strings.Split(content, "\n")
	s.off = min(s.off, s.maxOffset())
}

func (s *scroller) setHeight(h int) {
	s.height = max(1, h)
	s.off = min(s.off, s.maxOffset())
}

func (s *scroller) gotoBottom() { s.off = s.maxOffset() }

func (s *scroller) pageUp() { s.off = max(0, s.off-max(1, s.height-1)) }

func (s *scroller) pageDown() { s.off = min(s.maxOffset(), s.off+max(1, s.height-1)) }

// view is exactly height lines.
func (s *scroller) view() string {
	end := min(len(s.lines), s.off+s.height)
	shown := s.lines[min(s.off, end):end]
	var b strings.Builder
	for i := range s.height {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(shown) {
			b.WriteString(shown[i])
		}
	}
	return b.String()
}
