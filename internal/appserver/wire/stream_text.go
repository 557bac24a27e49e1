package wire

// streamText collects the text of the reasoning being streamed, in growing byte buffers,
// and writes it into the item only when it is read (completed): each delta costs its own
// length, not the length of the text so far. (An agent message's text comes whole with the
// engine's agent_message.)
type streamText struct {
	// summary holds r.Summary[summaryIdx] while it streams (summaryOn).
	summary    []byte
	summaryIdx int
	summaryOn  bool
	// content holds the last r.Content entry while it streams.
	content       []byte
	contentActive bool
}

// keepCap is the most buffer a finished stream keeps for the next one.
const keepCap = 64 << 10

func trimmed(b []byte) []byte {
	if cap(b) > keepCap {
		return nil
	}
	return b[:0]
}

func (s *streamText) resetReasoning() {
	s.summary, s.summaryOn = trimmed(s.summary), false
	s.content, s.contentActive = trimmed(s.content), false
}

func (s *streamText) appendSummary(r *V2Reasoning, idx int, delta string) {
	if !s.summaryOn || s.summaryIdx != idx {
		s.flushSummary(r)
		s.summaryIdx, s.summaryOn = idx, true
		s.summary = append(s.summary[:0], r.Summary[idx]...)
	}
	s.summary = append(s.summary, delta...)
}

func (s *streamText) appendContent(r *V2Reasoning, delta string) {
	if !s.contentActive {
		s.content = append(s.content[:0], r.Content[len(r.Content)-1]...)
		s.contentActive = true
	}
	s.content = append(s.content, delta...)
}

func (s *streamText) flushSummary(r *V2Reasoning) {
	if s.summaryOn && s.summaryIdx < len(r.Summary) {
		r.Summary[s.summaryIdx] = string(s.summary)
	}
	s.summary, s.summaryOn = trimmed(s.summary), false
}

// flushReasoning writes the streamed summary part and content into r.
func (s *streamText) flushReasoning(r *V2Reasoning) {
	s.flushSummary(r)
	if s.contentActive && len(r.Content) > 0 {
		r.Content[len(r.Content)-1] = string(s.content)
	}
	s.content, s.contentActive = trimmed(s.content), false
}
