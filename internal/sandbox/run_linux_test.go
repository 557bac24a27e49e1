package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
)

func TestNetwork(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan struct{})
	defer func() { ln.Close(); <-accepted }()
	go func() {
		defer close(accepted)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	probe := probeFor(t, Options{}, MechanismLandlockNamespaces)
	exe := testExe(t)
	ops := []string{"tcp-connect=" + ln.Addr().String(), "udp-send=" + udp.LocalAddr().String(), "socketpair", "socketpair-send", "socketpair-dgram", "ptrace"}
	// Datagram sockets are refused unless Landlock keeps pathname sockets in the roots.
	dgram := "EPERM"
	if confinesUnixSockets(probe.Mechanism, probe.LandlockABI, true) {
		dgram = "ok"
	}
	for _, tc := range []struct {
		network bool
		want    string
	}{
		{false, "tcp-connect EPERM\nudp-send EPERM\nsocketpair ok\nsocketpair-send ok\nsocketpair-dgram " + dgram + "\nptrace EPERM"},
		{true, "tcp-connect ok\nudp-send ok\nsocketpair ok\nsocketpair-send ok\nsocketpair-dgram ok\nptrace EPERM"},
	} {
		t.Run(fmt.Sprintf("network_access=%v", tc.network), func(t *testing.T) {
			pol := protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, NetworkAccess: tc.network}
			r := runIn(t, probe, Options{}, pol, t.TempDir(), baseEnv(""), append([]string{exe, toolArg}, ops...)...)
			if diff := cmp.Diff(tc.want, strings.TrimSpace(r.stdout)); diff != "" {
				t.Errorf("results (-want +got):\n%s\nstderr %q", diff, r.stderr)
			}
		})
	}
	// The same operations succeed unsandboxed, so the denials above are the sandbox's.
	r := runIn(t, nil, Options{}, protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}, t.TempDir(), nil, append([]string{exe, toolArg}, ops...)...)
	if strings.TrimSpace(r.stdout) != "tcp-connect ok\nudp-send ok\nsocketpair ok\nsocketpair-send ok\nsocketpair-dgram ok\nptrace ok" {
		t.Errorf("ptrace unsandboxed: %q %q", r.stdout, r.stderr)
	}
}

// TestProcessTree checks that the command is started by the helper as the first process of
// its own PID namespace (its parent is pid 1 there, and is not the command itself) and that
// danger-full-access never involves the helper.
func TestProcessTree(t *testing.T) {
	exe, err := filepath.EvalSymlinks(testExe(t))
	if err != nil {
		t.Fatal(err)
	}
	probe := probeFor(t, Options{}, MechanismLandlockNamespaces)
	script := `echo $PPID; readlink /proc/$$/exe`
	for _, p := range []protocol.SandboxPolicy{{Mode: protocol.SandboxDangerFullAccess}, {Mode: protocol.SandboxWorkspaceWrite}, {Mode: protocol.SandboxReadOnly}} {
		t.Run(string(p.Mode), func(t *testing.T) {
			cmd, err := Command(context.Background(), Request{Policy: p, Cwd: t.TempDir(), Argv: []string{"/bin/sh", "-c", script}, Probe: probe, Options: Options{Executable: exe}})
			if err != nil {
				t.Fatal(err)
			}
			isHelper := cmd.Path == exe
			if p.Mode == protocol.SandboxDangerFullAccess && (isHelper || cmd.SysProcAttr != nil) {
				t.Errorf("danger-full-access goes through the helper: %v", cmd.Args)
			}
			if p.Mode != protocol.SandboxDangerFullAccess && !isHelper {
				t.Errorf("%s does not go through the helper: %v", p.Mode, cmd.Args)
			}
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Fields(string(out))
			wantParent := "1"
			if p.Mode == protocol.SandboxDangerFullAccess {
				wantParent = strconv.Itoa(os.Getpid())
			}
			if len(lines) != 2 || lines[0] != wantParent || lines[1] == exe {
				t.Errorf("process tree: parent/exe = %q, want parent %s and the command's own executable", lines, wantParent)
			}
		})
	}
}

func TestRefusesWithoutMechanism(t *testing.T) {
	opts := Options{DisableLandlock: true, DisableUserNamespaces: true, Executable: testExe(t)}
	r := Probe(context.Background(), opts)
	if r.Mechanism != MechanismNone || !errors.Is(r.Err, ErrNoSandbox) {
		t.Fatalf("probe = %+v, want none", r)
	}
	for _, want := range []string{"Landlock", "user namespaces", "--sandbox danger-full-access"} {
		if !strings.Contains(r.Err.Error(), want) {
			t.Errorf("error %q does not mention %q", r.Err, want)
		}
	}
	for _, p := range []protocol.SandboxPolicy{{Mode: protocol.SandboxWorkspaceWrite}, {Mode: protocol.SandboxReadOnly}} {
		_, err := Command(context.Background(), Request{Policy: p, Cwd: t.TempDir(), Argv: []string{"true"}, Options: opts})
		if !errors.Is(err, ErrNoSandbox) {
			t.Errorf("%s: Command error = %v, want ErrNoSandbox", p.Mode, err)
		}
	}
	// The user chose no sandbox: that still runs.
	if _, err := Command(context.Background(), Request{Policy: protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}, Argv: []string{"true"}, Options: opts}); err != nil {
		t.Errorf("danger-full-access: %v", err)
	}
}

// TestHelperRefusesMissingLandlock checks the helper never runs a command unconfined when the
// mechanism it was told to use is not there.
func TestHelperRefusesBadArgs(t *testing.T) {
	exe := testExe(t)
	for _, args := range [][]string{
		{HelperArg, "--sandbox-policy", `{"type":"workspace-write"}`, "--mechanism", "bogus", "--", "true"},
		{HelperArg, "--sandbox-policy", `{"type":"danger-full-access"}`, "--", "true"},
		{HelperArg, "--sandbox-policy", `{"type":"nope"}`, "--", "true"},
		{HelperArg, "--", "true"},
	} {
		out, err := exec.Command(exe, args...).CombinedOutput()
		if err == nil {
			t.Errorf("%v ran: %s", args, out)
		}
	}
}

// TestDenialIsDetected runs real denials through LikelyDenied, as the engine will.
func TestDenialIsDetected(t *testing.T) {
	for _, m := range mechanisms {
		t.Run(m.name, func(t *testing.T) {
			probe := probeFor(t, m.opts, m.want)
			cwd := outsideTmp(t)
			for _, argv := range [][]string{
				{"/bin/sh", "-c", "echo x > /etc/gocodex-denial-probe"},
				{"/bin/sh", "-c", "mkdir /gocodex-denial-probe"},
				{"bash", "-c", "echo x > /dev/tcp/127.0.0.1/9"},
			} {
				r := runIn(t, probe, Options{}, protocol.NewWorkspaceWritePolicy(), cwd, baseEnv(""), argv...)
				if !LikelyDenied(r.code, r.stdout, r.stderr) {
					t.Errorf("%v: exit %d, %q %q not seen as a denial", argv, r.code, r.stdout, r.stderr)
				}
			}
			os.Remove("/etc/gocodex-denial-probe")
			os.Remove("/gocodex-denial-probe")
			r := runIn(t, probe, Options{}, protocol.NewWorkspaceWritePolicy(), cwd, baseEnv(""), "/bin/sh", "-c", "exit 1")
			if LikelyDenied(r.code, r.stdout, r.stderr) {
				t.Errorf("a plain failure was taken for a denial")
			}
		})
	}
}

// TestUnprivileged reruns the confinement tests as an ordinary user (nobody), the way most
// people run gocodex: the namespace path then relies on an ambient CAP_SYS_ADMIN instead of
// root's identity mapping. It needs root to switch users, which CI has.
func TestUnprivileged(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("already unprivileged, or cannot switch users")
	}
	if os.Getenv("GOCODEX_SANDBOX_TEST_NESTED") != "" {
		t.Skip("nested run")
	}
	dir := nobodyDir(t)
	bin := copyForNobody(t, dir)
	cmd := exec.Command(bin, "-test.run", "^(TestWorkspaceWriteFileSystem|TestNetwork|TestReadOnlyAllowsNoWrites)$", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(baseEnv(""), "GOCODEX_SANDBOX_TEST_NESTED=1", "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tests as nobody: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestWorkspaceWriteFileSystem/landlock+namespaces") {
		t.Errorf("the namespace path did not run as nobody:\n%s", out)
	}
}

// TestSpawnerWithProcessGroup checks the wrapped command starts as the leader of a session of
// its own, which internal/process takes as its process group (it adds Setpgid only when
// Setsid is not set), and that the group can be signalled as a whole.
func TestSpawnerWithProcessGroup(t *testing.T) {
	probe := probeFor(t, Options{}, MechanismLandlockNamespaces)
	cwd := outsideTmp(t)
	if err := os.Mkdir(filepath.Join(cwd, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	spawn := Spawner(protocol.NewWorkspaceWritePolicy(), cwd, probe, Options{Executable: testExe(t)})
	cmd, err := spawn(context.Background(), []string{"/bin/sh", "-c", "echo x > f && ! echo y > .git/x"}, cwd, baseEnv(""))
	if err != nil {
		t.Fatal(err)
	}
	if cmd.SysProcAttr == nil || !cmd.SysProcAttr.Setsid || cmd.SysProcAttr.Setpgid {
		t.Fatalf("the helper does not start in a session of its own: %+v", cmd.SysProcAttr)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
}

// TestTerminal runs a command on a pty, as the agent's TTY mode does: the terminal must stay
// usable (including /dev/tty and /dev/stderr) while files stay protected.
func TestTerminal(t *testing.T) {
	for _, m := range mechanisms {
		t.Run(m.name, func(t *testing.T) {
			probe := probeFor(t, m.opts, m.want)
			cwd := outsideTmp(t)
			if err := os.Mkdir(filepath.Join(cwd, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd, err := Command(context.Background(), Request{
				Policy: protocol.NewWorkspaceWritePolicy(), Cwd: cwd, Env: baseEnv(""), Probe: probe, Options: Options{Executable: testExe(t)},
				Argv: []string{"/bin/sh", "-c", "echo tty > /dev/tty && echo err > /dev/stderr && echo out > /dev/stdout && ! (echo x > /etc/gocodex-tty-probe) 2>/dev/null && echo done"},
			})
			if err != nil {
				t.Fatal(err)
			}
			f, err := pty.Start(cmd)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			out, _ := io.ReadAll(f) // ends with EIO once the command exits
			if err := cmd.Wait(); err != nil {
				t.Errorf("%v: %q", err, out)
			}
			if got := strings.ReplaceAll(string(out), "\r", ""); !strings.HasSuffix(got, "tty\nerr\nout\ndone\n") {
				t.Errorf("terminal output %q", got)
			}
		})
	}
}

// TestHelperByArgv0 runs the helper under Codex's argv[0] convention, as a person or a
// symlink on PATH would.
func TestHelperByArgv0(t *testing.T) {
	probeFor(t, Options{DisableUserNamespaces: true}, MechanismLandlock)
	link := filepath.Join(t.TempDir(), HelperArg0)
	if err := os.Symlink(testExe(t), link); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(link, "--sandbox-policy", `{"type":"read-only"}`, "--", "/bin/sh", "-c", "echo hi; echo x > /etc/gocodex-argv0-probe").CombinedOutput()
	os.Remove("/etc/gocodex-argv0-probe")
	if err == nil || !strings.HasPrefix(string(out), "hi\n") || !strings.Contains(string(out), "Permission denied") {
		t.Errorf("err %v, output %q", err, out)
	}
}
