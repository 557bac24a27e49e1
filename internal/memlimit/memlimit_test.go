package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// The limit starts at the floor while the live heap is small, follows twice the live heap
// plus the headroom once it grows (after a collection), and is lifted by Stop.
func TestLimitFollowsTheLiveHeap(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	const floor, headroom = 64 << 20, 8 << 20
	tu := Tune(floor, headroom)
	if tu == nil {
		t.Fatal("Tune did nothing with GOMEMLIMIT unset")
	}
	defer tu.Stop()
	if got := debug.SetMemoryLimit(-1); got != floor || tu.Limit() != floor {
		t.Fatalf("limit %d (tuner says %d), want the floor %d", got, tu.Limit(), floor)
	}
	live := make([][]byte, 0, 64)
	for range 64 {
		live = append(live, make([]byte, 1<<20))
	}
	// The finalizer that adjusts runs after a collection, on the runtime's own goroutine:
	// collect until it has.
	for tu.Limit() < 2*64<<20 {
		runtime.GC()
		runtime.Gosched()
	}
	if got := debug.SetMemoryLimit(-1); got < 2*64<<20+headroom {
		t.Errorf("limit %d with 64 MiB live, want at least %d", got, 2*64<<20+headroom)
	}
	runtime.KeepAlive(live)
	tu.Stop()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit %d after Stop, want none", got)
	}
}

// A GOMEMLIMIT in the environment is the user's: Tune leaves the limit alone.
func TestGOMEMLIMITWins(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "100MiB")
	before := debug.SetMemoryLimit(-1)
	if tu := Tune(1<<20, 0); tu != nil {
		tu.Stop()
		t.Fatal("Tune ran with GOMEMLIMIT set")
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit changed from %d to %d", before, got)
	}
}
