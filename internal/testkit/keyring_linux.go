package testkit

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Keyring is a Secret Service of its own: a D-Bus session bus and an unlocked
// gnome-keyring-daemon, both started in a temporary folder (the daemon's keyrings under its
// own HOME) and stopped when the test ends. Programs reach it through Env.
type Keyring struct {
	Dir  string
	bus  string
	home string
}

// Env is what a process needs to use this keyring (and no other).
func (k *Keyring) Env() []string {
	return []string{"DBUS_SESSION_BUS_ADDRESS=" + k.bus}
}

// Lookup is the secret stored under service and account, read from outside the program under
// test with libsecret's secret-tool; "" when there is none.
func (k *Keyring) Lookup(t testing.TB, service, account string) string {
	t.Helper()
	cmd := exec.Command("secret-tool", "lookup", "service", service, "username", account)
	cmd.Env = append(os.Environ(), k.Env()...)
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// StartKeyring starts the keyring. Without dbus-daemon, gnome-keyring-daemon or secret-tool
// the test is skipped, except under CI=true where it fails: CI installs them
// (scripts/test.sh).
func StartKeyring(t testing.TB) *Keyring {
	t.Helper()
	for _, p := range []string{"dbus-daemon", "gnome-keyring-daemon", "secret-tool"} {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("keyring: %s is not installed (apt-get install dbus gnome-keyring libsecret-tools)", p)
			}
			t.Skipf("keyring: %s is not installed (apt-get install dbus gnome-keyring libsecret-tools)", p)
		}
	}
	// Not t.TempDir: the bus socket's path must stay short.
	dir, err := os.MkdirTemp("", "keyring-")
	if err != nil {
		t.Fatal(err)
	}
	k := &Keyring{Dir: dir, bus: "unix:path=" + filepath.Join(dir, "bus"), home: filepath.Join(dir, "home")}
	var procs []*exec.Cmd
	t.Cleanup(func() {
		for i := len(procs) - 1; i >= 0; i-- {
			_ = syscall.Kill(-procs[i].Process.Pid, syscall.SIGTERM)
			_ = procs[i].Wait()
		}
		os.RemoveAll(dir)
	})
	run := filepath.Join(dir, "run")
	for _, d := range []string{k.home, run} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	start := func(stdin string, name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), "HOME="+k.home, "XDG_RUNTIME_DIR="+run, "DBUS_SESSION_BUS_ADDRESS="+k.bus)
		cmd.Stdin = strings.NewReader(stdin)
		var logs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &logs, &logs
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatalf("keyring: %s: %v", name, err)
		}
		procs = append(procs, cmd)
	}
	// A bus of its own that activates no service: the Secret Service is the daemon below, never
	// one D-Bus would start from the system's service files.
	conf := filepath.Join(dir, "session.conf")
	if err := os.WriteFile(conf, []byte(`<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>`+k.bus+`</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`), 0o600); err != nil {
		t.Fatal(err)
	}
	start("", "dbus-daemon", "--config-file="+conf, "--nofork", "--nopidfile")
	waitKeyring(t, "the D-Bus socket", func() bool { _, err := os.Stat(filepath.Join(dir, "bus")); return err == nil })
	// --unlock reads the login keyring's password from standard input and creates the keyring.
	start("test-keyring-password", "gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets")
	waitKeyring(t, "the Secret Service", func() bool {
		probe := exec.Command("secret-tool", "search", "service", "gocodex-probe")
		probe.Env = append(os.Environ(), k.Env()...)
		// secret-tool exits 1 (nothing found) once the service answers; its error text says
		// when it does not.
		out, _ := probe.CombinedOutput()
		return !strings.Contains(string(out), "org.freedesktop.secrets") && !strings.Contains(string(out), "ServiceUnknown")
	})
	return k
}

func waitKeyring(t testing.TB, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("keyring: %s did not come up", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
