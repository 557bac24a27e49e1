package diagreport

import "testing"

func TestCountInReadsTheHeaderLine(t *testing.T) {
	out := "Success. Updated the following files:\nM a.go\n" + HeaderLine(1, 2) + "a.go:1:1 error boom\n"
	if e, w, ok := CountIn(out); !ok || e != 1 || w != 2 {
		t.Errorf("CountIn = %d, %d, %v; want 1, 2, true", e, w, ok)
	}
	if block, ok := Block(out); !ok || block != HeaderLine(1, 2)+"a.go:1:1 error boom\n" {
		t.Errorf("Block = %q, %v", block, ok)
	}
	if _, _, ok := CountIn("Success.\n"); ok {
		t.Error("CountIn found a block in output without one")
	}
	if _, ok := Block("Success.\n"); ok {
		t.Error("Block found a block in output without one")
	}
}
