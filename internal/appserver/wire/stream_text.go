package wire

import "strings"

// streamText collects the text of the agent message and the reasoning being streamed, in
// growing byte buffers, and writes it into the items only when they are read (completed):
// each delta costs its own length, not the length of the text so far.
type streamText struct {
	agent chunkedText
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

func (s *streamText) resetAgent() { s.agent.reset() }

// flushAgent sets the message's text from the streamed deltas.
func (s *streamText) flushAgent(a *V2AgentMessage) {
	if s.agent.len() > 0 {
		a.Text = s.agent.String()
	}
	s.resetAgent()
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

// textChunk is the size of chunkedText's chunks after the first.
const textChunk = 64 << 10

// chunkedText is an answer's text as it streams (it can be megabytes): appended into chunks
// of textChunk bytes, so it is never copied whole to grow, and joined once, into a string
// of its exact size, if it is ever read.
type chunkedText struct {
	chunks [][]byte
	n      int
}

func (t *chunkedText) len() int { return t.n }

func (t *chunkedText) append(s string) {
	t.n += len(s)
	for len(s) > 0 {
		k := len(t.chunks) - 1
		if k < 0 || len(t.chunks[k]) >= textChunk {
			var c []byte // the first chunk grows as needed: most answers are short
			if k >= 0 {
				c = make([]byte, 0, textChunk)
			}
			t.chunks = append(t.chunks, c)
			k++
		}
		part := s[:min(len(s), textChunk-len(t.chunks[k]))]
		t.chunks[k] = append(t.chunks[k], part...)
		s = s[len(part):]
	}
}

// String joins the chunks.
func (t *chunkedText) String() string {
	var b strings.Builder
	b.Grow(t.n)
	for _, c := range t.chunks {
		b.Write(c)
	}
	return b.String()
}

// reset empties the text, keeping a small first chunk for the next one.
func (t *chunkedText) reset() {
	if len(t.chunks) > 0 {
		t.chunks = [][]byte{trimmed(t.chunks[0])}
		if t.chunks[0] == nil {
			t.chunks = nil
		}
	}
	t.n = 0
}
