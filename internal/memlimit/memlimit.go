// Package memlimit keeps a long-running process's memory close to what it uses. The Go
// collector lets the heap grow to twice the live data before it collects, and keeps the
// pages it freed until its scavenger returns them, slowly: a burst of large transient
// allocations (a multi-MB answer decoded, recorded and sent) can leave the process with
// several times its live data resident. Tune sets a soft memory limit
// (runtime/debug.SetMemoryLimit) of twice the live heap plus some headroom, never under a
// floor, and moves it after every collection: the collector then works as before (the
// limit sits at or above its own goal), but freed memory over the limit is returned at once
// and a burst cannot push the heap past the floor while the live data is small.
//
// A GOMEMLIMIT set in the environment wins: Tune then does nothing.
package memlimit

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Tuner adjusts the limit until Stop.
type Tuner struct {
	floor, headroom int64
	mu              sync.Mutex // one adjustment or Stop at a time
	stopped         atomic.Bool
	limit           atomic.Int64
}

// Tune starts adjusting the memory limit to max(floor, 2×live heap + headroom) after each
// garbage collection. It returns nil (and changes nothing) when GOMEMLIMIT is set.
func Tune(floor, headroom int64) *Tuner {
	if os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	t := &Tuner{floor: floor, headroom: headroom}
	t.adjust()
	t.armAfterNextGC()
	return t
}

// Limit is the limit set last.
func (t *Tuner) Limit() int64 { return t.limit.Load() }

// Stop stops adjusting and lifts the limit.
func (t *Tuner) Stop() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped.Swap(true) {
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// sentinel is garbage as soon as it is made: its finalizer runs after the next collection.
type sentinel struct{ _ [16]byte }

func (t *Tuner) armAfterNextGC() {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		if t.stopped.Load() {
			return
		}
		t.adjust()
		t.armAfterNextGC()
	})
}

func (t *Tuner) adjust() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	var live int64
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = int64(min(s[0].Value.Uint64(), math.MaxInt64/4))
	}
	limit := max(t.floor, 2*live+t.headroom)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped.Load() {
		return
	}
	t.limit.Store(limit)
	debug.SetMemoryLimit(limit)
}
