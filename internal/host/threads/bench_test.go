package threads

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoad10kLines is the service's one load of a 10,000-line rollout as a resume uses
// it (bench/'s resume workload, in process): read the file, rebuild the model's history and
// decode the events the faces replay. The rollout is a recorded Codex 0.169 turn repeated.
func BenchmarkLoad10kLines(b *testing.B) {
	home, base, _ := codexHome(b)
	s := New(home)
	path, _, err := s.Find(base)
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	benchLoad(b, s, path, data)
}

// BenchmarkLoad10kLinesGocodex is the same with a recorded gocodex exec turn repeated: the
// rollout bench/'s resume workload makes for gocodex.
func BenchmarkLoad10kLinesGocodex(b *testing.B) {
	home := b.TempDir()
	data, err := os.ReadFile("testdata/gocodex-turn.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(home, "sessions", "2026", "12", "07", "rollout-2026-12-07T23-14-22-01a252c9-6fbd-731d-9a69-9e1f00ead3b0.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		b.Fatal(err)
	}
	benchLoad(b, New(home), path, data)
}

// benchLoad writes data's first line and then its other lines repeated to 10,000 at path,
// and measures the service's load of it.
func benchLoad(b *testing.B, s *Service, path string, data []byte) {
	lines := bytes.SplitAfter(bytes.TrimRight(data, "\n"), []byte("\n"))
	var out bytes.Buffer
	out.Write(lines[0])
	for n := 0; n < 10_000; {
		for _, l := range lines[1:] {
			out.Write(bytes.TrimRight(l, "\n"))
			out.WriteByte('\n')
			n++
		}
	}
	if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(out.Len()))
	for b.Loop() {
		ro, err := s.Read(path)
		if err != nil {
			b.Fatal(err)
		}
		if res := ro.Reconstruct(); len(res.History) == 0 || len(ro.InitialMessages()) == 0 {
			b.Fatal("nothing loaded")
		}
	}
}
