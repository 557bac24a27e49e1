package wire

import (
	"strings"
	"testing"
)

// chunkedText gives back what was appended, across chunk boundaries, and starts afresh
// after reset.
func TestChunkedText(t *testing.T) {
	var c chunkedText
	for round := range 2 {
		var want strings.Builder
		for i := range 3000 {
			d := strings.Repeat(string(rune('a'+i%26)), 1+i%211)
			c.append(d)
			want.WriteString(d)
		}
		if c.len() != want.Len() || c.String() != want.String() {
			t.Fatalf("round %d: %d bytes back, want %d", round, c.len(), want.Len())
		}
		for _, ch := range c.chunks[1:] {
			if cap(ch) != textChunk {
				t.Fatalf("round %d: a chunk of capacity %d, want %d", round, cap(ch), textChunk)
			}
		}
		c.reset()
		if c.len() != 0 || c.String() != "" {
			t.Fatalf("after reset: %q", c.String())
		}
	}
}
