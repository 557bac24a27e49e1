//go:build windows

package proctree

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

type treeSys struct {
	mu  sync.Mutex
	job windows.Handle
}

func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP
}

// attach puts the suspended process into a new Job Object, then resumes it: whatever it
// starts from then on belongs to the job too.
func attach(t *Tree) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("create job object: %w", err)
	}
	const access = windows.PROCESS_SET_QUOTA | windows.PROCESS_TERMINATE | windows.PROCESS_SUSPEND_RESUME
	h, err := windows.OpenProcess(access, false, uint32(t.pid))
	if err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("open process %d: %w", t.pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("assign process %d to a job object: %w", t.pid, err)
	}
	t.sys.job = job
	if err := resumeProcess(h); err != nil {
		t.release()
		return fmt.Errorf("resume process %d: %w", t.pid, err)
	}
	return nil
}

var procNtResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

// resumeProcess resumes every thread of a process created suspended (os/exec keeps the
// handle of its main thread to itself).
func resumeProcess(h windows.Handle) error {
	if err := procNtResumeProcess.Find(); err != nil {
		return err
	}
	status, _, _ := procNtResumeProcess.Call(uintptr(h))
	if status != 0 {
		return windows.NTStatus(status)
	}
	return nil
}

func (t *Tree) kill() error {
	t.sys.mu.Lock()
	defer t.sys.mu.Unlock()
	if t.sys.job == 0 {
		return errors.New("proctree: tree released")
	}
	return windows.TerminateJobObject(t.sys.job, 1)
}

func (t *Tree) release() {
	t.sys.mu.Lock()
	defer t.sys.mu.Unlock()
	if t.sys.job != 0 {
		windows.CloseHandle(t.sys.job)
		t.sys.job = 0
	}
}

func prepareGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

// killGroup terminates pid and its descendants, children first found from a snapshot of
// every process's parent id (a process started by the tree after the snapshot escapes).
func killGroup(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return fmt.Errorf("process snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	children := map[uint32][]uint32{}
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		children[e.ParentProcessID] = append(children[e.ParentProcessID], e.ProcessID)
	}
	var first error
	var end func(uint32)
	seen := map[uint32]bool{}
	end = func(p uint32) {
		if seen[p] {
			return
		}
		seen[p] = true
		if h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, p); err == nil {
			if err := windows.TerminateProcess(h, 1); err != nil && first == nil {
				first = err
			}
			windows.CloseHandle(h)
		}
		for _, c := range children[p] {
			end(c)
		}
	}
	end(uint32(pid))
	return first
}
