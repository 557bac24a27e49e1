package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

type ev struct{ Type, Data string }

func readAll(t testing.TB, r io.Reader) ([]ev, error) {
	t.Helper()
	return readAllFrom(t, NewReader(r))
}

// tinyReader has a 4-byte buffer that sets lines aside as soon as it is full, so that short
// inputs take the long-line path.
func tinyReader(r io.Reader) *Reader {
	return &Reader{r: r, buf: make([]byte, 4), maxLine: DefaultMaxLine, spillAt: 4}
}

func readAllFrom(t testing.TB, rd *Reader) ([]ev, error) {
	t.Helper()
	var out []ev
	for {
		e, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev{string(e.Type), string(e.Data)})
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []ev
	}{
		{"single", "event: a\ndata: {\"x\":1}\n\n", []ev{{"a", `{"x":1}`}}},
		{"no space after colon", "event:a\ndata:x\n\n", []ev{{"a", "x"}}},
		{"only one space dropped", "data:  x\n\n", []ev{{"", " x"}}},
		{"multi-line data", "data: a\ndata: b\ndata:\n\n", []ev{{"", "a\nb\n"}}},
		{"comments ignored", ": keep-alive\nevent: a\n: mid\ndata: x\n\n", []ev{{"a", "x"}}},
		{"crlf", "event: a\r\ndata: x\r\n\r\n", []ev{{"a", "x"}}},
		{"lone cr", "event: a\rdata: x\r\r", []ev{{"a", "x"}}},
		{"type resets after dispatch", "event: a\ndata: 1\n\ndata: 2\n\n", []ev{{"a", "1"}, {"", "2"}}},
		{"blank line without data dispatches nothing", "event: a\n\ndata: 2\n\n", []ev{{"", "2"}}},
		{"field without colon", "data\n\n", []ev{{"", ""}}},
		{"unknown fields ignored", "id: 7\nretry: 10\nfoo: bar\ndata: x\n\n", []ev{{"", "x"}}},
		{"trailing partial event dropped", "data: a\n\ndata: b\n", []ev{{"", "a"}}},
		{"trailing partial line dropped", "data: a\n\ndata: b", []ev{{"", "a"}}},
		{"empty", "", nil},
		{"several", "event: x\ndata: 1\n\nevent: y\ndata: 2\n\n\n\nevent: z\ndata: 3\n\n", []ev{{"x", "1"}, {"y", "2"}, {"z", "3"}}},
	}
	readers := map[string]func(string) io.Reader{
		"whole":    func(s string) io.Reader { return strings.NewReader(s) },
		"one byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"half":     func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
	}
	for _, tt := range tests {
		for rn, mk := range readers {
			for sn, reader := range map[string]func(io.Reader) *Reader{"": NewReader, ", lines set aside": tinyReader} {
				t.Run(tt.name+"/"+rn+sn, func(t *testing.T) {
					got, err := readAllFrom(t, reader(mk(tt.in)))
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(tt.want, got); diff != "" {
						t.Errorf("events (-want +got):\n%s", diff)
					}
				})
			}
		}
	}
}

// A line longer than the buffer is set aside in pieces and joined once: the data arrives
// whole, a CRLF cut between two pieces ends the line once, and the buffer never grows past
// spillAbove.
func TestLongLineSetAside(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", spillAbove/16*5+3)
	for _, in := range []string{
		"data: " + big + "\r\n\r\ndata: y\n\n",
		"data: " + big[:spillAbove-len("data: ")-1] + "\r\ndata: z\n\n",
		"event: big\ndata: " + big + "\ndata: " + big + "\n\n",
	} {
		rd := NewReader(iotest.HalfReader(strings.NewReader(in)))
		got, err := readAllFrom(t, rd)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(refParse(in), got); diff != "" {
			t.Errorf("%.40q…: events differ (-want +got):\n%.400s", in, diff)
		}
		if len(rd.buf) > spillAbove {
			t.Errorf("the buffer grew to %d bytes", len(rd.buf))
		}
	}
}

func TestLongLineGrowsBuffer(t *testing.T) {
	big := strings.Repeat("x", 3*initialBufSize+17)
	got, err := readAll(t, iotest.HalfReader(strings.NewReader("data: "+big+"\r\n\r\ndata: y\n\n")))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]ev{{"", big}, {"", "y"}}, got); diff != "" {
		t.Error(diff)
	}
}

func TestMaxLine(t *testing.T) {
	rd := NewReader(strings.NewReader("data: " + strings.Repeat("x", 2*initialBufSize) + "\n\n"))
	rd.SetMaxLine(initialBufSize)
	if _, err := rd.Next(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("err = %v, want ErrLineTooLong", err)
	}
}

func TestReadErrorPassesThrough(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	got, err := readAll(t, r)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if diff := cmp.Diff([]ev{{"", "a"}}, got); diff != "" {
		t.Error(diff)
	}
}

// refParse is a deliberately simple reading of the standard, used as the oracle for fuzzing.
func refParse(in string) []ev {
	var lines []string
	for len(in) > 0 {
		i := strings.IndexAny(in, "\r\n")
		if i < 0 {
			break // unterminated final line is not a line
		}
		lines = append(lines, in[:i])
		if in[i] == '\r' && i+1 < len(in) && in[i+1] == '\n' {
			i++
		}
		in = in[i+1:]
	}
	var out []ev
	typ, data, has := "", "", false
	for _, l := range lines {
		if l == "" {
			if has {
				out = append(out, ev{typ, data})
			}
			typ, data, has = "", "", false
			continue
		}
		if l[0] == ':' {
			continue
		}
		name, value, _ := strings.Cut(l, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "data":
			if has {
				data += "\n"
			}
			data += value
			has = true
		case "event":
			typ = value
		}
	}
	return out
}

func FuzzSSEParse(f *testing.F) {
	for _, s := range []string{
		"event: a\ndata: {\"x\":1}\n\n",
		"data: a\r\ndata: b\r\n\r\n",
		": c\revent:x\rdata:y\r\r",
		"data\n\nevent: q\n\n",
		"data: a\r",
	} {
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, in string, chunk uint8) {
		want := refParse(in)
		var r io.Reader = strings.NewReader(in)
		if chunk%4 == 1 {
			r = iotest.OneByteReader(r)
		} else if chunk%4 == 2 {
			r = iotest.HalfReader(r)
		}
		mk := NewReader
		if chunk&4 != 0 {
			mk = tinyReader
		}
		got, err := readAllFrom(t, mk(r))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("input %q (-ref +got):\n%s", in, diff)
		}
	})
}

func benchStream(events int) []byte {
	var b bytes.Buffer
	for i := 0; i < events; i++ {
		b.WriteString("event: response.output_text.delta\n")
		b.WriteString(`data: {"type":"response.output_text.delta","item_id":"msg_0123456789","output_index":0,"content_index":0,"delta":"hello world ","sequence_number":12}`)
		b.WriteString("\n\n")
	}
	return b.Bytes()
}

// BenchmarkParse reports throughput of the reader over typical Responses text-delta events.
func BenchmarkParse(b *testing.B) {
	const n = 10000
	data := benchStream(n)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	rd := bytes.NewReader(data)
	for b.Loop() {
		rd.Reset(data)
		r := NewReader(rd)
		count := 0
		for {
			_, err := r.Next()
			if err != nil {
				break
			}
			count++
		}
		if count != n {
			b.Fatalf("got %d events", count)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
