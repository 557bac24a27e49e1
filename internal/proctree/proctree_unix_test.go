//go:build unix

package proctree

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startTree runs a shell that leaves a background grandchild and writes its pid to a file.
func startTree(t *testing.T, prepare func(*exec.Cmd)) (*exec.Cmd, int) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("/bin/sh", "-c", `sleep 300 & echo $! > "$0"; wait`, pidFile)
	prepare(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	for range 500 {
		data, err := os.ReadFile(pidFile)
		if err == nil && strings.HasSuffix(string(data), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if pid == 0 {
		cmd.Process.Kill()
		t.Fatal("the grandchild never reported its pid")
	}
	return cmd, pid
}

// gone waits (bounded) until pid no longer exists or is a zombie of someone else.
func gone(pid int) bool {
	for range 500 {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(data), ") Z ") {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func TestTreeKillEndsGrandchildren(t *testing.T) {
	cmd, grandchild := startTree(t, Prepare)
	tree, err := Attach(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Release()
	if err := tree.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !gone(grandchild) {
		syscall.Kill(grandchild, syscall.SIGKILL)
		t.Fatal("the grandchild outlived Kill")
	}
	if err := tree.Kill(); err != nil {
		t.Errorf("a second Kill = %v, want nil", err)
	}
}

func TestKillGroupEndsGrandchildren(t *testing.T) {
	cmd, grandchild := startTree(t, PrepareGroup)
	if err := KillGroup(cmd); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !gone(grandchild) {
		syscall.Kill(grandchild, syscall.SIGKILL)
		t.Fatal("the grandchild outlived KillGroup")
	}
}
