package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// Issue 35: the language servers' diagnostics reach the model after every edit. These tests run
// the built binary with a real gopls (installed by scripts/test.sh; skipped without it outside
// CI) against the scripted model.

const (
	cleanMain  = "package main\n\nfunc main() {}\n"
	brokenEdit = "*** Begin Patch\n*** Update File: main.go\n@@\n-func main() {}\n+func main() {\n+\tundefinedThing()\n+}\n*** End Patch"
	fixEdit    = "*** Begin Patch\n*** Update File: main.go\n@@\n-\tundefinedThing()\n+\tprintln(\"fixed\")\n*** End Patch"
	goplsError = "main.go:4:2 error undefined: undefinedThing (compiler)"
)

// lspEnv is an env whose workspace is a Go module and whose PATH finds gopls first.
func lspEnv(t *testing.T, gopls string, opts tk.ConfigOptions) *env {
	t.Helper()
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), opts)
	writeFile(t, filepath.Join(e.Workdir, "go.mod"), "module example.com/m\n\ngo 1.22\n")
	writeFile(t, filepath.Join(e.Workdir, "main.go"), cleanMain)
	if gopls != "" {
		e.ExtraEnv = append(e.ExtraEnv, "PATH="+filepath.Dir(gopls)+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	return e
}

func applyPatch(id, patch string) tk.Response {
	return tk.SSE(tk.Created(), tk.CustomToolCall(id, "apply_patch", patch), tk.Completed(tk.Usage{}))
}

// A patch that calls an undefined function: the next request to the model carries gopls's
// diagnostic in the patch's output; the patch that fixes it adds no diagnostics. Under
// workspace-write, so gopls runs in the sandbox; it ends with the session.
func TestLspPatchDiagnosticsReachTheModel(t *testing.T) {
	gopls := tk.Gopls(t)
	e := lspEnv(t, gopls, tk.ConfigOptions{SandboxMode: "workspace-write"})
	e.Model.Enqueue(applyPatch("call_bad", brokenEdit), applyPatch("call_fix", fixEdit), answer("done"))
	r := e.run("", "exec", "--json", "edit main.go")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	reqs := e.Model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	bad := customOutput(t, reqs[1].JSON, "call_bad")
	if !strings.Contains(bad, "Success. Updated the following files:\nM main.go\n\nLanguage server diagnostics: 1 error, 0 warnings\n"+goplsError+"\n") {
		t.Errorf("the broken patch's output to the model:\n%s", bad)
	}
	if fixed := customOutput(t, reqs[2].JSON, "call_fix"); strings.Contains(fixed, "diagnostics") || !strings.HasSuffix(fixed, "M main.go\n") {
		t.Errorf("the clean patch's output to the model:\n%s", fixed)
	}
	if pids := serverProcesses(t, e.CodexHome); len(pids) != 0 {
		t.Errorf("gopls processes outlived the session: %v", pids)
	}
}

// The diagnostics tool returns the current error, for a path and for the whole workspace.
func TestLspDiagnosticsTool(t *testing.T) {
	gopls := tk.Gopls(t)
	e := lspEnv(t, gopls, tk.ConfigOptions{})
	writeFile(t, filepath.Join(e.Workdir, "main.go"), "package main\n\nfunc main() {\n\tundefinedThing()\n}\n")
	e.Model.Enqueue(
		tk.SSE(tk.Created(), tk.FunctionCall("call_path", "diagnostics", `{"path":"main.go"}`), tk.Completed(tk.Usage{})),
		tk.SSE(tk.Created(), tk.FunctionCall("call_all", "diagnostics", `{}`), tk.Completed(tk.Usage{})),
		answer("done"))
	r := e.run("", "exec", "--json", "check")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.Code, r.Stderr)
	}
	reqs := e.Model.Requests()
	if names := toolNames(t, reqs[0].Body); !contains(names, "diagnostics") {
		t.Errorf("tools offered: %v", names)
	}
	for i, id := range []string{"call_path", "call_all"} {
		if out := functionOutput(t, reqs[i+1].JSON, id); out != "Language server diagnostics: 1 error, 0 warnings\n"+goplsError+"\n" {
			t.Errorf("%s: %q", id, out)
		}
	}
	// Unconfined (danger-full-access) too, nothing gopls started outlives the session.
	if pids := serverProcesses(t, e.CodexHome); len(pids) != 0 {
		t.Errorf("gopls processes outlived the session: %v", pids)
	}
}

// With `lsp = false` no server starts (a gopls that records its starts stays silent, where
// the same session with the servers on starts it) and no diagnostics tool is offered.
func TestLspFalseStartsNoServer(t *testing.T) {
	gopls := tk.Gopls(t)
	for _, on := range []bool{true, false} {
		opts := tk.ConfigOptions{}
		if !on {
			opts.Extra = "lsp = false\n"
		}
		bin := t.TempDir()
		marker := filepath.Join(t.TempDir(), "started")
		writeFile(t, filepath.Join(bin, "gopls"), "#!/bin/sh\necho started >> '"+marker+"'\nexec '"+gopls+"' \"$@\"\n")
		if err := os.Chmod(filepath.Join(bin, "gopls"), 0o755); err != nil {
			t.Fatal(err)
		}
		e := lspEnv(t, filepath.Join(bin, "gopls"), opts)
		e.Model.Enqueue(applyPatch("call_bad", brokenEdit), answer("done"))
		if r := e.run("", "exec", "--json", "edit"); r.Code != 0 {
			t.Fatalf("lsp %v: exit %d\nstderr: %s", on, r.Code, r.Stderr)
		}
		reqs := e.Model.Requests()
		out := customOutput(t, reqs[1].JSON, "call_bad")
		_, err := os.Stat(marker)
		started := err == nil
		offered := contains(toolNames(t, reqs[0].Body), "diagnostics")
		if started != on || offered != on || strings.Contains(out, goplsError) != on {
			t.Errorf("lsp %v: server started %v, diagnostics tool offered %v, output %q", on, started, offered, out)
		}
	}
}

// A Go workspace without gopls completes its turn, with one warning naming gopls and how to
// install it, however many edits the turn makes.
func TestLspMissingServerWarnsOnce(t *testing.T) {
	e := lspEnv(t, "", tk.ConfigOptions{})
	// A PATH with git (the session asks it about the work tree) and no gopls.
	bin := t.TempDir()
	git, err := lookPathIn("git", os.Getenv("PATH"))
	if err != nil {
		t.Skip("git not found")
	}
	if err := os.Symlink(git, filepath.Join(bin, "git")); err != nil {
		t.Fatal(err)
	}
	e.ExtraEnv = append(e.ExtraEnv, "PATH="+bin)
	e.Model.Enqueue(applyPatch("call_bad", brokenEdit), applyPatch("call_fix", fixEdit), answer("done"))
	r := e.run("", "exec", "--json", "edit")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.Code, r.Stderr)
	}
	var warnings []string
	for _, l := range jsonl(t, r.Stdout) {
		if item, ok := l["item"].(map[string]any); ok && item["type"] == "error" {
			warnings = append(warnings, item["message"].(string))
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "language server gopls is not installed") || !strings.Contains(warnings[0], "go install golang.org/x/tools/gopls@latest") {
		t.Errorf("warnings: %q", warnings)
	}
	if !strings.Contains(r.Stdout, `"type":"turn.completed"`) {
		t.Errorf("turn did not complete:\n%s", r.Stdout)
	}
	if got := readFile(t, filepath.Join(e.Workdir, "main.go")); !strings.Contains(got, "fixed") {
		t.Errorf("main.go = %q", got)
	}
}

func lookPathIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}

// serverProcesses lists the pids of the gopls processes (by their executable's name) whose
// environment names codexHome: those of the test's sessions, however deep in a sandbox.
func serverProcesses(t *testing.T, codexHome string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	var out []string
	for _, d := range entries {
		pid := d.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		exe, _ := os.Readlink(filepath.Join("/proc", pid, "exe"))
		if filepath.Base(exe) != "gopls" {
			continue
		}
		status, _ := os.ReadFile(filepath.Join("/proc", pid, "status"))
		if strings.Contains(string(status), "State:\tZ") {
			continue // exited, not yet reaped
		}
		environ, _ := os.ReadFile(filepath.Join("/proc", pid, "environ"))
		if strings.Contains(string(environ), "CODEX_HOME="+codexHome+"\x00") {
			out = append(out, pid)
		}
	}
	return out
}

// Under read-only, gopls runs confined (no_new_privs and seccomp, seen from outside through
// /proc, and in namespaces of its own where the machine has them), yet works: its private
// cache is the one place it writes. It ends with the session.
func TestLspServerConfinedUnderReadOnly(t *testing.T) {
	gopls := tk.Gopls(t)
	e := lspEnv(t, gopls, tk.ConfigOptions{SandboxMode: "read-only"})
	writeFile(t, filepath.Join(e.Workdir, "main.go"), "package main\n\nfunc main() {\n\tundefinedThing()\n}\n")
	e.Model.Enqueue(tk.SSE(tk.Created(), tk.FunctionCall("call_path", "diagnostics", `{"path":"main.go"}`), tk.Completed(tk.Usage{})), answer("done"))
	p := e.startProto()
	p.until("session_configured")
	p.send("1", userInput("check"))
	p.until("task_complete")
	if out := functionOutput(t, e.Model.Requests()[1].JSON, "call_path"); !strings.Contains(out, goplsError) {
		t.Fatalf("diagnostics under read-only: %q", out)
	}
	pids := serverProcesses(t, e.CodexHome)
	if len(pids) != 1 {
		t.Fatalf("gopls processes of the session: %v", pids)
	}
	status := readFile(t, filepath.Join("/proc", pids[0], "status"))
	for _, want := range []string{"NoNewPrivs:\t1\n", "Seccomp:\t2\n"} {
		if !strings.Contains(status, want) {
			t.Errorf("gopls is not confined: /proc/%s/status lacks %q:\n%s", pids[0], want, status)
		}
	}
	ours, _ := os.Readlink("/proc/self/ns/mnt")
	if theirs, _ := os.Readlink(filepath.Join("/proc", pids[0], "ns", "mnt")); theirs == ours && namespacesWork(t) {
		t.Errorf("gopls shares the mount namespace of the test (%s)", ours)
	}
	if out, err := exec.Command("git", "-C", e.Workdir, "status", "--porcelain", "--untracked-files=all").Output(); err != nil || string(out) != "?? go.mod\n?? main.go\n" {
		t.Errorf("the workspace changed under read-only: %q %v", out, err)
	}
	p.stdin.Close()
	for range p.events {
	}
	_ = p.cmd.Wait()
	if left := serverProcesses(t, e.CodexHome); len(left) != 0 {
		t.Errorf("gopls outlived the session: %v", left)
	}
}

// namespacesWork tells whether this machine gives the sandbox user namespaces (as
// `gocodex sandbox --explain` would say); without them the helper confines in place.
func namespacesWork(t *testing.T) bool {
	t.Helper()
	out, err := exec.Command(binary, "sandbox", "--explain").CombinedOutput()
	return err == nil && strings.Contains(string(out), "mechanism: landlock+namespaces")
}

// gocodex doctor lists the language servers: gopls found on PATH, or, missing in a Go
// workspace, a warning saying how to install it.
func TestLspDoctorListsServers(t *testing.T) {
	gopls := tk.Gopls(t)
	e := lspEnv(t, gopls, tk.ConfigOptions{})
	d, _ := runDoctorJSON(t, e, binary)
	c := d.Checks["lsp.servers"]
	if c.Status != "ok" || c.Details["gopls"] != gopls || !strings.Contains(c.Summary, "gopls") {
		t.Errorf("with gopls: %+v", c)
	}
	e.ExtraEnv = append(e.ExtraEnv, "PATH="+t.TempDir())
	d, _ = runDoctorJSON(t, e, binary)
	c = d.Checks["lsp.servers"]
	if c.Status != "warning" || c.Remediation == nil || !strings.Contains(*c.Remediation, "go install golang.org/x/tools/gopls@latest") {
		t.Errorf("without gopls: %+v", c)
	}
}

// A command that rewrites a file gopls has open (edited earlier in the session) gets the
// diagnostics after its output too.
func TestLspCommandEditReportsDiagnostics(t *testing.T) {
	gopls := tk.Gopls(t)
	e := lspEnv(t, gopls, tk.ConfigOptions{})
	cmd, _ := json.Marshal(map[string]any{"cmd": `printf 'package main\n\nfunc main() {\n\tundefinedThing()\n}\n' > main.go`})
	e.Model.Enqueue(applyPatch("call_fix", "*** Begin Patch\n*** Update File: main.go\n@@\n-func main() {}\n+func main() { println() }\n*** End Patch"),
		tk.SSE(tk.Created(), tk.FunctionCall("call_cmd", "exec_command", string(cmd)), tk.Completed(tk.Usage{})),
		answer("done"))
	if r := e.run("", "exec", "--json", "edit"); r.Code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.Code, r.Stderr)
	}
	reqs := e.Model.Requests()
	if out := customOutput(t, reqs[1].JSON, "call_fix"); strings.Contains(out, "diagnostics") {
		t.Errorf("the clean patch: %q", out)
	}
	if out := functionOutput(t, reqs[2].JSON, "call_cmd"); !strings.HasSuffix(out, "\nLanguage server diagnostics: 1 error, 0 warnings\n"+goplsError+"\n") {
		t.Errorf("the command's output to the model:\n%s", out)
	}
}
