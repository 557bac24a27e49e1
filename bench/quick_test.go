package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuickMode runs the whole suite at its -quick sizes, one run, against the real binaries:
// every workload measures gocodex, the files are written and the README section is
// rewritten. The reference takes part when it is installed (nothing is installed here).
func TestQuickMode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gocodex and runs every workload; skipped under -short")
	}
	out := t.TempDir()
	readme := filepath.Join(out, "README.md")
	if err := os.WriteFile(readme, []byte("# x\n"+readmeBegin+"\n"+readmeEnd+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-quick", "-runs", "1", "-no-install", "-out", out, "-readme", readme}); err != nil {
		t.Fatal(err)
	}
	res, err := loadResults(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Errorf("runs failed:\n%s", strings.Join(res.Errors, "\n"))
	}
	for _, w := range workloads() {
		if len(res.Samples[w.Key][Gocodex]) == 0 {
			t.Errorf("%s: no figures for gocodex", w.Key)
		}
	}
	if got := res.summary("exec-turn", Floor, "wall_ms"); got.N != 1 {
		t.Errorf("the floor program did not run: %+v", got)
	}
	if got := res.summary("version", Hello, "rss_mib"); got.N != 1 || got.Median > 8 {
		t.Errorf("hello-world peak RSS %+v: the launcher should keep it at a few MiB", got)
	}
	for _, f := range []string{"results.md", "startup-and-turns.png", "server.png", "memory.png"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	b, _ := os.ReadFile(readme)
	if !strings.Contains(string(b), "| exec one-message turn, wall time (ms) |") {
		t.Errorf("README section not written:\n%s", b)
	}
	// The figures can be written again from results.json alone.
	if err := run([]string{"-regen", "-out", out}); err != nil {
		t.Fatal(err)
	}
}

func TestUnknownWorkloadIsAnError(t *testing.T) {
	err := run([]string{"-quick", "-no-reference", "-only", "nonesuch", "-out", t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "nonesuch") {
		t.Errorf("err = %v", err)
	}
}
