package process

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestTruncateMiddle(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		policy TruncationPolicy
		want   string
	}{
		{"empty", "", Bytes(10), ""},
		{"within bytes budget", "hello", Bytes(5), "hello"},
		{"bytes mode counts removed chars", "abcdefghij", Bytes(4), "ab…6 chars truncated…ij"},
		{"odd budget gives the tail the extra byte", "abcdefghij", Bytes(5), "ab…5 chars truncated…hij"},
		{"tokens mode counts removed tokens", strings.Repeat("x", 100), Tokens(5), strings.Repeat("x", 10) + "…20 tokens truncated…" + strings.Repeat("x", 10)},
		{"zero budget bytes", "héllo", Bytes(0), "…5 chars truncated…"},
		{"zero budget tokens", "hello", Tokens(0), "…2 tokens truncated…"},
		// "é" is two bytes: a head of 3 bytes fits "aé", a tail of 3 bytes may not start
		// inside "é", so it starts at the next rune.
		{"utf8 boundaries", "aéééé", Bytes(6), "aé…2 chars truncated…é"},
		{"multibyte runes counted as chars", "日本語テキスト", Bytes(6), "日…5 chars truncated…ト"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TruncateMiddle(tt.in, tt.policy)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("TruncateMiddle(%q, %+v) mismatch (-want +got):\n%s", tt.in, tt.policy, diff)
			}
		})
	}
}

// The real Codex 0.169 binary answered exec_command `seq 1 3000` with max_output_tokens 100
// with exactly this header, marker and cut points.
func TestFormattedTruncateMatchesCodex(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteString("\n")
	}
	got := FormattedTruncate(b.String(), Tokens(100))
	wantPrefix := "Warning: truncated output (original token count: 3474)\nTotal output lines: 3000\n\n1\n2\n3\n"
	if !strings.HasPrefix(got, wantPrefix) {
		t.Fatalf("prefix: got %q", got[:120])
	}
	if !strings.Contains(got, "\n69\n70…3374 tokens truncated…2961\n2962\n") {
		t.Errorf("marker: got %q", got)
	}
	if !strings.HasSuffix(got, "2999\n3000\n") {
		t.Errorf("suffix: got %q", got[len(got)-40:])
	}
	if short := FormattedTruncate("a\nb\n", Tokens(100)); short != "a\nb\n" {
		t.Errorf("under budget changed: %q", short)
	}
}

func TestTruncateMiddleTokens(t *testing.T) {
	out, orig, cut := TruncateMiddleTokens(strings.Repeat("a", 41), 10)
	if !cut || orig != 11 || out != strings.Repeat("a", 20)+"…1 tokens truncated…"+strings.Repeat("a", 20) {
		t.Errorf("got %q %d %v", out, orig, cut)
	}
	if _, _, cut := TruncateMiddleTokens("short", 10); cut {
		t.Error("short text reported as cut")
	}
}

func TestCountLines(t *testing.T) {
	for in, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "\n\n": 2, "a\r\nb\r\n": 2} {
		if got := CountLines(in); got != want {
			t.Errorf("CountLines(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestLossyString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"a\xffb", "a\uFFFDb"},
		{"a\xe2\x82b", "a\uFFFDb"},         // truncated 3-byte sequence is one replacement
		{"\xe0\x80", "\uFFFD\uFFFD"},       // overlong: E0 needs A0..BF next
		{"\xf0\x9f\x98", "\uFFFD"},         // truncated emoji
		{"\xf0\x9f\x98\x80", "\U0001F600"}, // complete emoji
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
	}
	for _, tt := range tests {
		if got := LossyString([]byte(tt.in)); got != tt.want {
			t.Errorf("LossyString(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzTruncateMiddle(f *testing.F) {
	f.Add("hello world", 4, false)
	f.Add("日本語テキスト", 7, true)
	f.Add("a\xffb\xe2\x82", 2, false)
	f.Fuzz(func(t *testing.T, s string, limit int, tokens bool) {
		if limit < 0 || limit > 1<<16 {
			return
		}
		p := Bytes(limit)
		if tokens {
			p = Tokens(limit)
		}
		out := TruncateMiddle(s, p)
		if len(s) <= p.ByteBudget() && s != "" && out != s {
			t.Fatalf("within budget but changed: %q -> %q", s, out)
		}
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("valid input produced invalid output: %q -> %q", s, out)
		}
		if out != s && !strings.Contains(out, " truncated…") {
			t.Fatalf("changed without marker: %q -> %q", s, out)
		}
		if l := LossyString([]byte(s)); !utf8.ValidString(l) {
			t.Fatalf("LossyString invalid: %q", l)
		}
	})
}

func BenchmarkFormattedTruncate(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString("a line of command output, ünïcödé included\n")
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = FormattedTruncate(text, Tokens(10_000))
	}
}
