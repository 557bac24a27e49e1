package testkit

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SlurmCluster is a one-node Slurm cluster of Debian's slurm-wlm and munge, started in a
// temporary folder: its own munge key and socket, slurmctld and slurmd on free ports, state
// and spool under the folder. The Slurm commands find it through SLURM_CONF (Env).
type SlurmCluster struct {
	Dir  string
	Conf string
	// Node is the node's name (hostname -s).
	Node  string
	procs []*exec.Cmd
}

// Env is what a process needs to reach the cluster with sbatch, squeue, scontrol, scancel.
func (c *SlurmCluster) Env() []string { return []string{"SLURM_CONF=" + c.Conf} }

// StartSlurm starts the cluster and stops it when the test ends. It needs root (slurmd runs
// jobs as their users). Without the programs, or when the cluster does not come up, the test
// is skipped, except under CI=true where it fails: CI installs them (scripts/test.sh).
func StartSlurm(t testing.TB) *SlurmCluster {
	t.Helper()
	unavailable := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf("Slurm cluster: "+format, args...)
		}
		t.Skipf("Slurm cluster: "+format, args...)
	}
	for _, p := range []string{"munged", "slurmctld", "slurmd", "sbatch", "scontrol", "scancel"} {
		if _, err := exec.LookPath(p); err != nil {
			unavailable("%s is not installed (apt-get install slurm-wlm munge)", p)
		}
	}
	if os.Geteuid() != 0 {
		unavailable("slurmd needs root")
	}
	// Not t.TempDir: munged refuses a key or socket folder others may write, and the path
	// of the socket must stay short.
	dir, err := os.MkdirTemp("", "slurm-")
	if err != nil {
		t.Fatal(err)
	}
	c := &SlurmCluster{Dir: dir}
	t.Cleanup(func() {
		c.stop()
		if !t.Failed() {
			os.RemoveAll(dir)
		} else {
			t.Logf("Slurm cluster folder kept: %s", dir)
		}
	})
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	c.Node, _, _ = strings.Cut(host, ".")
	for _, d := range []string{"state", "spool", "munge"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 1024)
	_, _ = rand.Read(key)
	keyFile := filepath.Join(dir, "munge", "munge.key")
	if err := os.WriteFile(keyFile, key, 0o400); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "munge", "socket")
	c.start(t, "munged", "--foreground", "--force", "--socket="+socket, "--key-file="+keyFile,
		"--pid-file="+filepath.Join(dir, "munge", "munged.pid"), "--log-file="+filepath.Join(dir, "munge", "munged.log"),
		"--seed-file="+filepath.Join(dir, "munge", "munged.seed"))
	if !waitFor(func() bool { _, err := os.Stat(socket); return err == nil }) {
		unavailable("munged did not start: %s", readLog(filepath.Join(dir, "munge", "munged.log")))
	}
	cpus, mem := nodeSize()
	c.Conf = filepath.Join(dir, "slurm.conf")
	conf := fmt.Sprintf(`ClusterName=gocodextest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
SlurmctldLogFile=%[5]s/slurmctld.log
SlurmdLogFile=%[5]s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
KillWait=30
MinJobAge=600
MaxArraySize=10001
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=%[6]d RealMemory=%[7]d State=UNKNOWN
PartitionName=debug Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, c.Node, freePort(t), freePort(t), socket, dir, cpus, mem)
	if err := os.WriteFile(c.Conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	c.start(t, "slurmctld", "-D", "-i", "-f", c.Conf)
	c.start(t, "slurmd", "-D", "-f", c.Conf, "-N", c.Node)
	up := waitFor(func() bool {
		out, _ := c.command("sinfo", "--noheader", "--format=%T").CombinedOutput()
		s := strings.TrimSpace(string(out))
		return s == "idle" || s == "mixed" || s == "allocated"
	})
	if !up {
		unavailable("the node did not come up\nslurmctld: %s\nslurmd: %s",
			readLog(filepath.Join(dir, "slurmctld.log")), readLog(filepath.Join(dir, "slurmd.log")))
	}
	return c
}

// command is a Slurm client command against the cluster.
func (c *SlurmCluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), c.Env()...)
	return cmd
}

func (c *SlurmCluster) start(t testing.TB, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), c.Env()...)
	if c.Conf == "" {
		cmd.Env = os.Environ()
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	c.procs = append(c.procs, cmd)
}

// stop ends the daemons, newest first (slurmd ends its jobs' processes with it).
func (c *SlurmCluster) stop() {
	if c.Conf != "" {
		// A test that failed midway may leave jobs: end them while slurmd can (their
		// slurmstepd would outlive it).
		if c.command("scancel", "--partition=debug").Run() == nil {
			waitFor(func() bool {
				out, err := c.command("squeue", "--noheader").Output()
				return err != nil || strings.TrimSpace(string(out)) == ""
			})
		}
	}
	for i := len(c.procs) - 1; i >= 0; i-- {
		p := c.procs[i]
		_ = syscall.Kill(-p.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	c.procs = nil
}

func nodeSize() (cpus, memMB int) {
	out, err := exec.Command("slurmd", "-C").Output()
	cpus, memMB = 1, 1024
	if err != nil {
		return
	}
	for _, f := range strings.Fields(string(out)) {
		k, v, _ := strings.Cut(f, "=")
		n, err := strconv.Atoi(v)
		if err != nil {
			continue
		}
		switch k {
		case "CPUs":
			cpus = n
		case "RealMemory":
			memMB = n
		}
	}
	return
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitFor polls cond for up to 30 seconds.
func waitFor(cond func() bool) bool {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

func readLog(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return string(data)
}
