package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadDotEnv(t *testing.T) {
	home := t.TempDir()
	got, err := ReadDotEnv(home)
	if err != nil || len(got) != 0 {
		t.Fatalf("missing file: %v, %v", got, err)
	}
	text := "# keys\nOPENAI_API_KEY=sk-1\nexport MOCK_KEY = 'a b'\nQUOTED=\"x\\\"y\\nz\"\nTRAIL=v # note\nCODEX_HOME=/evil\ncodex_sandbox=x\n\n"
	if err := os.WriteFile(filepath.Join(home, ".env"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err = ReadDotEnv(home)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"OPENAI_API_KEY": "sk-1", "MOCK_KEY": "a b", "QUOTED": "x\"y\nz", "TRAIL": "v"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := os.WriteFile(filepath.Join(home, ".env"), []byte("A=1\nnot a pair\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadDotEnv(home); err == nil || !strings.Contains(err.Error(), ".env:2: expected KEY=VALUE") {
		t.Errorf("err = %v", err)
	}
}
