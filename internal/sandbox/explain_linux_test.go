package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplain pins what `gocodex sandbox --explain` says for each mechanism: every mechanism
// is named, active or not, and a weaker sandbox states what it does not enforce.
func TestExplain(t *testing.T) {
	find := func(gs []Guarantee, name string) Guarantee {
		for _, g := range gs {
			if g.Mechanism == name {
				return g
			}
		}
		t.Fatalf("no line for %s in %+v", name, gs)
		return Guarantee{}
	}
	all := []string{"seccomp", "no_new_privs", "new session", "landlock", "landlock scoping", "user namespace", "mount namespace", "PID namespace", "network namespace", "capabilities",
		"setuid refusal", "nosuid", "placeholders", "credential hiding", "unix datagrams"}

	full := ProbeResult{LandlockABI: 7, UserNamespaces: true, Mechanism: MechanismLandlockNamespaces}.Explain(1000)
	for _, name := range all {
		g := find(full, name)
		if !g.Active && name != "network namespace" {
			t.Errorf("full sandbox: %s inactive: %s", name, g.Detail)
		}
	}
	if g := find(full, "capabilities"); !strings.Contains(g.Detail, "bounding set included") {
		t.Errorf("capabilities: %q", g.Detail)
	}

	old := ProbeResult{LandlockABI: 3, UserNamespaces: true, Mechanism: MechanismLandlockNamespaces}.Explain(1000)
	if g := find(old, "landlock scoping"); g.Active || !strings.Contains(g.Detail, "namespaces stand in") {
		t.Errorf("old kernel scoping: %+v", g)
	}
	if g := find(old, "network namespace"); !g.Active {
		t.Errorf("old kernel: the network namespace stands in for scoping: %+v", g)
	}

	if g := find(full, "unix datagrams"); !strings.Contains(g.Detail, "no AF_UNIX datagram socket") {
		t.Errorf("ABI 7: datagram sockets are refused: %q", g.Detail)
	}
	if g := find(ProbeResult{LandlockABI: 9, UserNamespaces: true, Mechanism: MechanismLandlockNamespaces}.Explain(1000), "unix datagrams"); !g.Active || !strings.Contains(g.Detail, "RESOLVE_UNIX") {
		t.Errorf("ABI 9: Landlock confines pathname sockets: %+v", g)
	}
	if g := find(ProbeResult{LandlockABI: 9, UserNamespaces: true, Mechanism: MechanismNamespaces}.Explain(1000), "unix datagrams"); strings.Contains(g.Detail, "RESOLVE_UNIX") {
		t.Errorf("without Landlock the ABI does not count: %+v", g)
	}

	container := ProbeResult{LandlockABI: 7, UserNamespacesError: "operation not permitted", Mechanism: MechanismLandlock}.Explain(1000)
	for name, says := range map[string]string{
		"user namespace":    "operation not permitted",
		"mount namespace":   "chmod, chown, utime, xattr",
		"PID namespace":     "daemons",
		"capabilities":      "bounding set stays",
		"nosuid":            "host's mount flags",
		"placeholders":      "can create it",
		"credential hiding": "stay readable",
		"setuid refusal":    "EPERM",
		"unix datagrams":    "no AF_UNIX datagram socket",
	} {
		g := find(container, name)
		if name != "capabilities" && name != "setuid refusal" && name != "unix datagrams" && g.Active {
			t.Errorf("unprivileged container: %s active", name)
		}
		if !strings.Contains(g.Detail, says) {
			t.Errorf("unprivileged container: %s says %q, want it to mention %q", name, g.Detail, says)
		}
	}
	if g := find(ProbeResult{LandlockABI: 7, Mechanism: MechanismLandlock}.Explain(0), "capabilities"); !strings.Contains(g.Detail, "bounding set included") {
		t.Errorf("root without namespaces empties the bounding set: %q", g.Detail)
	}
	msg := ProbeResult{LandlockABI: 7, UserNamespacesError: "EPERM", Mechanism: MechanismLandlock}.Message()
	for _, want := range []string{"user namespaces unavailable (EPERM)", "metadata", ".agents", "credential", "renice", "daemons"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not mention %q", msg, want)
		}
	}

	var b bytes.Buffer
	WriteExplanation(&b, Probe(context.Background(), Options{Executable: testExe(t)}))
	for _, name := range all {
		if !strings.Contains(b.String(), name) {
			t.Errorf("explanation lacks %s:\n%s", name, b.String())
		}
	}
}

// TestHelperFailsClosed starts the helper without the namespaces it was told to use, and with
// a mechanism the kernel is told it lacks: it refuses, naming what is missing, and the command
// never runs.
func TestHelperFailsClosed(t *testing.T) {
	cwd := t.TempDir()
	for _, tc := range []struct {
		mechanism Mechanism
		want      string
	}{
		{MechanismLandlockNamespaces, "needs a new PID namespace"},
		{MechanismNamespaces, "needs a new PID namespace"},
	} {
		cmd := exec.Command(testExe(t), HelperArg, "--sandbox-policy", `{"type":"workspace-write"}`, "--command-cwd", cwd, "--mechanism", string(tc.mechanism), "--", "/bin/sh", "-c", "echo ran")
		out, err := cmd.CombinedOutput()
		if err == nil || strings.Contains(string(out), "ran\n") || !strings.Contains(string(out), tc.want) || !strings.Contains(string(out), "refusing to run the command unconfined") {
			t.Errorf("%s without namespaces: %v: %q", tc.mechanism, err, out)
		}
	}
}

// TestHelperRefusesForeignLifeline: a descriptor 3 that is not the lifeline pipe (a caller
// replaced cmd.ExtraFiles) is refused, not written to.
func TestHelperRefusesForeignLifeline(t *testing.T) {
	cwd := t.TempDir()
	f, err := os.Create(filepath.Join(cwd, "not-a-pipe"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(testExe(t), HelperArg, "--sandbox-policy", `{"type":"workspace-write"}`, "--command-cwd", cwd, "--mechanism", string(MechanismLandlockNamespaces), "--lifeline-fd", "3", "--", "/bin/sh", "-c", "echo ran")
	cmd.ExtraFiles = []*os.File{f}
	out, err := cmd.CombinedOutput()
	if err == nil || strings.Contains(string(out), "ran\n") || !strings.Contains(string(out), "not gocodex's lifeline pipe") {
		t.Errorf("helper with a file as lifeline: %v: %q", err, out)
	}
	if b, _ := os.ReadFile(f.Name()); len(b) != 0 {
		t.Errorf("the helper wrote %q into the file", b)
	}
}
