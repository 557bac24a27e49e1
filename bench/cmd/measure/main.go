// Command measure runs a program and writes what it cost to a report file:
//
//	measure REPORT BIN [ARGS...]
//
// The report is one line: "start_unix_ns wall_ns user_ns sys_ns maxrss_kib exit_code".
//
// Why a launcher: Linux counts the memory of the process that calls exec into the peak RSS
// (ru_maxrss) of the program it starts, and Go starts programs with vfork, so a program
// started by the 20 MiB benchmark process would report at least 20 MiB. Started from this
// small static program, a figure is exact once it is above this program's own ~1 MiB.
// It uses the syscall package alone to stay that small; the program inherits its standard
// input, output and error, and is killed if this launcher dies.
package main

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		os.Stderr.WriteString("usage: measure REPORT BIN [ARGS...]\n")
		os.Exit(2)
	}
	report, argv := os.Args[1], os.Args[2:]
	start := time.Now()
	pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		os.Stderr.WriteString("measure: " + argv[0] + ": " + err.Error() + "\n")
		os.Exit(127)
	}
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	for {
		_, err = syscall.Wait4(pid, &ws, 0, &ru)
		if err != syscall.EINTR {
			break
		}
	}
	wall := time.Since(start)
	code := ws.ExitStatus()
	if ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	line := strconv.FormatInt(start.UnixNano(), 10) + " " + strconv.FormatInt(int64(wall), 10) + " " +
		strconv.FormatInt(syscall.TimevalToNsec(ru.Utime), 10) + " " + strconv.FormatInt(syscall.TimevalToNsec(ru.Stime), 10) + " " +
		strconv.FormatInt(ru.Maxrss, 10) + " " + strconv.Itoa(code) + "\n"
	if err := os.WriteFile(report, []byte(line), 0o644); err != nil {
		os.Stderr.WriteString("measure: " + err.Error() + "\n")
		os.Exit(125)
	}
	os.Exit(code)
}
