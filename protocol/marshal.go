package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync/atomic"
)

// Marshal encodes v the way Codex's serde_json does: like json.Marshal, but without
// escaping <, > and & (serde never does; Go does by default, which would turn
// "<environment_context>" into "\u003cenvironment_context\u003e").
//
// Use it (or a json.Encoder with SetEscapeHTML(false)) for every value that leaves the
// process: json.Marshal re-escapes the output of MarshalJSON methods, so calling it on an
// Event would undo the care taken here.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return b[:len(b)-1], nil // Encode appends a newline
}

// longText is the length from which MarshalWithTexts keeps a text out of encoding/json.
const longText = 64 << 10

// MarshalWithText is Marshal(build(text)) for a value that carries one long text (an answer
// of megabytes, in an event or a thread item); see AppendWithTexts.
func MarshalWithText(text string, build func(text string) any) ([]byte, error) {
	return AppendWithTexts(nil, []string{text}, func(marks []string) any { return build(marks[0]) })
}

// MarshalWithTexts is AppendWithTexts(nil, texts, build).
func MarshalWithTexts(texts []string, build func(texts []string) any) ([]byte, error) {
	return AppendWithTexts(nil, texts, build)
}

// AppendWithTexts appends Marshal(build(texts)) to dst, written without encoding/json ever
// holding the long ones among texts: encoding/json encodes into pooled buffers it keeps,
// whatever their size, for two garbage collections, so each long value encoded would pin
// twice its size for a while and raise the heap the collector aims for. build gets texts
// with each long one replaced by a short mark; that value is encoded, then each encoded mark
// is replaced by its encoded text as it is appended. Texts under 64 KiB stay as they are.
func AppendWithTexts(dst []byte, texts []string, build func(texts []string) any) ([]byte, error) {
	marked := make([]string, len(texts))
	prefix := fmt.Sprintf("\x00gocodex-text-%d-%d-", markSeq.Add(1), rand.Uint64())
	long := false
	for i, t := range texts {
		marked[i] = t
		if len(t) >= longText {
			marked[i] = prefix + strconv.Itoa(i) + "\x00"
			long = true
		}
	}
	small, err := Marshal(build(marked))
	if err != nil {
		return nil, err
	}
	if !long {
		return append(dst, small...), nil
	}
	encPrefix := appendString(nil, prefix)
	encPrefix = encPrefix[:len(encPrefix)-1] // without the closing quote
	size := len(small)
	for i, t := range texts {
		if marked[i] != t {
			size += bytes.Count(small, appendString(nil, marked[i])) * (len(t) + 2)
		}
	}
	out := slices.Grow(dst, size+size/64)
	for {
		before, after, found := bytes.Cut(small, encPrefix)
		out = append(out, before...)
		if !found {
			return out, nil
		}
		// after is "<i>\u0000\"...": the mark's number, then its end.
		end := bytes.Index(after, []byte(`\u0000"`))
		i, err := strconv.Atoi(string(after[:max(end, 0)]))
		if end < 0 || err != nil || i >= len(texts) {
			return nil, fmt.Errorf("protocol: a text mark was cut short in %.40q", after)
		}
		out = appendString(out, texts[i])
		small = after[end+len(`\u0000"`):]
	}
}

var markSeq atomic.Uint64
