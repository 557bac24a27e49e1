package model

import (
	"context"
	"time"
)

// Clock is the time source of the client, injected so tests never wait real seconds.
type Clock interface {
	// Sleep waits d or until ctx ends (returning ctx.Err()).
	Sleep(ctx context.Context, d time.Duration) error
	// AfterFunc calls f in its own goroutine after d (the SSE idle timeout).
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the subset of *time.Timer the client uses.
type Timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// RealClock is the wall clock.
type RealClock struct{}

// Sleep waits d or until ctx ends.
func (RealClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// AfterFunc wraps time.AfterFunc.
func (RealClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
