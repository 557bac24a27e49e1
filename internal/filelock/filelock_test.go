package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Two opens of one file are two lock owners (as two processes are), on Unix and Windows.
func openTwice(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "guarded")
	a, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.OpenFile(path, os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

func TestExclusiveExcludesEveryOtherLock(t *testing.T) {
	a, b := openTwice(t)
	if err := Lock(a, ModeExclusive); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{ModeShared, ModeExclusive} {
		if err := TryLock(b, mode); !errors.Is(err, ErrBusy) {
			t.Errorf("TryLock(%d) under an exclusive lock = %v, want ErrBusy", mode, err)
		}
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := TryLock(b, ModeExclusive); err != nil {
		t.Errorf("TryLock after Unlock = %v", err)
	}
}

func TestSharedLocksCoexistAndLeaveTheDataWritable(t *testing.T) {
	a, b := openTwice(t)
	if err := Lock(a, ModeShared); err != nil {
		t.Fatal(err)
	}
	if err := TryLock(b, ModeShared); err != nil {
		t.Fatalf("second shared lock = %v", err)
	}
	if err := TryLock(b, ModeExclusive); !errors.Is(err, ErrBusy) {
		t.Errorf("exclusive under a shared lock = %v, want ErrBusy", err)
	}
	// The locks are advisory: the holder (a rollout recorder) still writes and reads.
	if _, err := a.WriteString("line\n"); err != nil {
		t.Errorf("write under a shared lock: %v", err)
	}
	if _, err := b.ReadAt(make([]byte, 4), 0); err != nil {
		t.Errorf("read under a shared lock: %v", err)
	}
}

func TestExclusiveWaitsForTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Exclusive(path)
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := TryLock(other, ModeExclusive); !errors.Is(err, ErrBusy) {
		t.Fatalf("TryLock while Exclusive holds = %v, want ErrBusy", err)
	}
	unlock()
	if err := TryLock(other, ModeExclusive); err != nil {
		t.Errorf("TryLock after unlock = %v", err)
	}
	if fi, err := os.Stat(path); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Errorf("lock file = %v, %v; want mode 0600", fi, err)
	}
}
