package tui

import "strings"

// scroller shows a window of the transcript's lines. The lines are already wrapped to the
// terminal width, so unlike a general viewport it never measures them: a streaming delta
// costs a split, not a width computation over the whole conversation.
type scroller struct {
	// The lines are head then tail: head is the finished part of the transcript (the
	// transcript's own lines, appended to); tail (the cells still open) is split per frame.
	head   []string
	tail   []string
	off    int
	height int
}

func (s *scroller) count() int { return len(s.head) + len(s.tail) }

func (s *scroller) line(i int) string {
	if i < len(s.head) {
		return s.head[i]
	}
	return s.tail[i-len(s.head)]
}

func (s *scroller) maxOffset() int { return max(0, s.count()-s.height) }

// atBottom reports whether the last line is visible.
func (s *scroller) atBottom() bool { return s.off >= s.maxOffset() }

func (s *scroller) setContent(content string) {
	s.head = nil
	s.tail = strings.Split(content, "\n")
	s.off = min(s.off, s.maxOffset())
}

// setSplit shows the lines of head then those of tail (either may be empty); head is
// the transcript's own slice, only read.
func (s *scroller) setSplit(head []string, tail string) {
	s.head = head
	s.tail = nil
	if tail != "" || len(head) == 0 {
		s.tail = strings.Split(tail, "\n")
	}
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
	end := min(s.count(), s.off+s.height)
	var b strings.Builder
	for i := range s.height {
		if i > 0 {
			b.WriteByte('\n')
		}
		if j := s.off + i; j < end {
			b.WriteString(s.line(j))
		}
	}
	return b.String()
}
