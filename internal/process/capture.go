package process

import "sync"

// MaxRetainedOutput is how much output a command keeps: 1 MiB, as Codex does. Output past it
// still streams to the callback but is only counted.
const MaxRetainedOutput = 1 << 20

// MaxDeltaEvents caps how many output chunks one call streams to its callback, so a chatty
// command cannot flood the client (Codex's limit for exec_command_output_delta).
const MaxDeltaEvents = 10_000

// Capture keeps the first Limit bytes written to it and counts the rest. It is safe for
// concurrent use: stdout and stderr readers write to the same aggregate.
type Capture struct {
	mu      sync.Mutex
	limit   int
	buf     []byte
	dropped int64
}

// NewCapture returns a Capture that keeps at most limit bytes (MaxRetainedOutput when
// limit <= 0).
func NewCapture(limit int) *Capture {
	if limit <= 0 {
		limit = MaxRetainedOutput
	}
	return &Capture{limit: limit}
}

// Write never fails, so a full capture never stalls the process writing to it.
func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	room := c.limit - len(c.buf)
	if room > len(p) {
		room = len(p)
	}
	if room > 0 {
		c.buf = append(c.buf, p[:room]...)
	}
	c.dropped += int64(len(p) - room)
	c.mu.Unlock()
	return len(p), nil
}

// Bytes returns a copy of the retained output.
func (c *Capture) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.buf...)
}

// Dropped is the number of bytes written past the limit.
func (c *Capture) Dropped() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

// Output is a captured stream: the retained head and how much was cut.
type Output struct {
	Bytes   []byte
	Dropped int64
}

// Text is the retained output as text (invalid UTF-8 replaced).
func (o Output) Text() string { return LossyString(o.Bytes) }

func (c *Capture) output() Output {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Output{Bytes: c.buf, Dropped: c.dropped}
}
