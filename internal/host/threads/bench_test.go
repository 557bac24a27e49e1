package threads

import (
	"bytes"
	"os"
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
