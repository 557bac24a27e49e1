package layering

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoHeavyPackageInit guards start-up time, which every face pays on every spawn: no
// package linked into the binary may spend more than a few milliseconds in its init
// (a dependency once cost 23 ms building tables nobody had asked for). It reads the
// runtime's own init trace, so it counts work, not wall-clock noise: the bound is far above
// what any of our packages needs.
func TestNoHeavyPackageInit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "gocodex")
	build := exec.Command("go", "build", "-o", bin, module+"/cmd/gocodex")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// The least of three runs per package: a busy machine may pause a process mid-init.
	least := map[string]float64{}
	for run := 0; run < 3; run++ {
		cmd := exec.Command(bin, "--version")
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("gocodex --version: %v", err)
		}
		sc := bufio.NewScanner(&stderr)
		for sc.Scan() {
			// init github.com/x/y @0.5 ms, 12 ms clock, 100 bytes, 2 allocs
			f := strings.Fields(sc.Text())
			if len(f) < 7 || f[0] != "init" || f[6] != "clock," {
				continue
			}
			ms, err := strconv.ParseFloat(f[4], 64)
			if err != nil {
				continue
			}
			if prev, ok := least[f[1]]; !ok || ms < prev {
				least[f[1]] = ms
			}
		}
	}
	if len(least) == 0 {
		t.Fatal("no init trace read")
	}
	const limitMS = 5.0
	for pkg, ms := range least {
		if ms > limitMS && pkg != "runtime" {
			t.Errorf("package %s spends %.1f ms in init (bound %.0f ms): every command pays it", pkg, ms, limitMS)
		}
	}
}
