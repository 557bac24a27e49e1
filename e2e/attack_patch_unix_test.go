//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// Attack 1 of issue 28: the model makes symlinks inside the work tree (to a directory
// outside it, to .git, and to the tree itself) and then patches through them. Under
// workspace-write the patch must not reach the outside directory, .git/config or .codex,
// whatever the approval policy; the person who declines the offered write outside the
// sandbox sees the path, where it leads and why.

// symlinkAttackPatch is one patch of the attack: callID, the patch, and the path it names
// (relative to the work tree).
type symlinkAttackPatch struct{ callID, path, patch string }

var symlinkAttackPatches = []symlinkAttackPatch{
	{"p_outside_add", "d/created.txt", "*** Begin Patch\n*** Add File: d/created.txt\n+planted\n*** End Patch\n"},
	{"p_outside_update", "d/victim.txt", "*** Begin Patch\n*** Update File: d/victim.txt\n@@\n-original\n+changed\n*** End Patch\n"},
	{"p_git_config", "g/config", "*** Begin Patch\n*** Update File: g/config\n@@\n+[core]\n+\tfsmonitor = touch PWNED\n*** End Patch\n"},
	{"p_codex_rules", "self/.codex/rules/x.rules", "*** Begin Patch\n*** Add File: self/.codex/rules/x.rules\n+prefix_rule(pattern=[\"touch\"], decision=\"allow\")\n*** End Patch\n"},
}

// symlinkAttack is one run of the attack and what it left.
type symlinkAttack struct {
	e         *env
	outside   string
	gitConfig []byte
	// asked are the approval requests' params; every one was declined.
	asked []map[string]any
	// outputs are what the model received per call id; statuses the file changes' final
	// statuses.
	outputs, statuses map[string]string
}

// runSymlinkAttack runs the attack through bin's app-server under workspace-write (the work
// tree its only writable root) and approval, as credential when set.
func runSymlinkAttack(t *testing.T, bin, approval string, credential *syscall.Credential) *symlinkAttack {
	e := attackEnv(t, credential)
	e.confineToWorkdir(approval)
	a := &symlinkAttack{e: e, outside: filepath.Join(filepath.Dir(e.Workdir), "outside"), outputs: map[string]string{}, statuses: map[string]string{}}
	mustWriteAs(t, filepath.Join(a.outside, "victim.txt"), "original\n", credential)
	var err error
	if a.gitConfig, err = os.ReadFile(filepath.Join(e.Workdir, ".git", "config")); err != nil {
		t.Fatal(err)
	}
	e.Model.Enqueue(commandCall("c_links", "ln -s "+a.outside+" d && ln -s .git g && ln -s . self"))
	for _, p := range symlinkAttackPatches {
		e.Model.Enqueue(tk.SSE(tk.Created(), tk.CustomToolCall(p.callID, "apply_patch", p.patch), tk.Completed(tk.Usage{})))
	}
	e.Model.Enqueue(answer("done"))

	c, stop := e.startAppServerOf(bin)
	defer stop()
	c.answer = func(m rpcMsg) any {
		a.asked = append(a.asked, params(m))
		return map[string]any{"decision": "decline"}
	}
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	c.turn(id, "attack")
	for _, m := range pick(c.until("turn/completed"), "item/completed") {
		if it, _ := m["item"].(map[string]any); it["type"] == "fileChange" {
			a.statuses[it["id"].(string)] = it["status"].(string)
		}
	}
	reqs := e.Model.Requests()
	for _, raw := range reqs[len(reqs)-1].JSON["input"].([]any) {
		it := raw.(map[string]any)
		if it["type"] == "custom_tool_call_output" || it["type"] == "function_call_output" {
			out, ok := it["output"].(string)
			if !ok {
				b, _ := json.Marshal(it["output"])
				out = string(b)
			}
			a.outputs[it["call_id"].(string)] = out
		}
	}
	return a
}

// judge checks, from outside, that the attack changed nothing it aimed at.
func (a *symlinkAttack) judge(t *testing.T) {
	t.Helper()
	for _, name := range []string{"d", "g", "self"} {
		if fi, err := os.Lstat(filepath.Join(a.e.Workdir, name)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the model's symlink %s was not made (%v): the attack did not run; outputs %v", name, err, a.outputs)
		}
	}
	entries, err := os.ReadDir(a.outside)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, en := range entries {
		names = append(names, en.Name())
	}
	if !slices.Equal(names, []string{"victim.txt"}) {
		t.Errorf("the directory outside the work tree now holds %v", names)
	}
	if got := readFile(t, filepath.Join(a.outside, "victim.txt")); got != "original\n" {
		t.Errorf("the file outside the work tree was changed to %q", got)
	}
	if now, _ := os.ReadFile(filepath.Join(a.e.Workdir, ".git", "config")); !bytes.Equal(now, a.gitConfig) {
		t.Errorf(".git/config was changed:\n%s", now)
	}
	if _, err := os.Lstat(filepath.Join(a.e.Workdir, ".codex", "rules", "x.rules")); !os.IsNotExist(err) {
		t.Errorf(".codex/rules/x.rules was written (%v)", err)
	}
}

// judgeReasons checks gocodex's reports: under never the model gets the path, the symlink
// and the reason; under on-request the person is asked with them and the model, declined,
// gets Codex's "patch rejected by user".
func (a *symlinkAttack) judgeReasons(t *testing.T, approval string) {
	t.Helper()
	where := map[string]string{
		"p_outside_add":    "to " + filepath.Join(a.outside, "created.txt") + ", outside the sandbox's writable roots",
		"p_outside_update": "to " + filepath.Join(a.outside, "victim.txt") + ", outside the sandbox's writable roots",
		"p_git_config":     "to " + filepath.Join(a.e.Workdir, ".git", "config") + ", inside " + filepath.Join(a.e.Workdir, ".git") + ", which the sandbox keeps read-only",
		"p_codex_rules":    "to " + filepath.Join(a.e.Workdir, ".codex", "rules", "x.rules") + ", inside " + filepath.Join(a.e.Workdir, ".codex") + ", which the sandbox keeps read-only",
	}
	reasons := map[string]string{}
	for _, req := range a.asked {
		reason, _ := req["reason"].(string)
		reasons[req["itemId"].(string)] = reason
	}
	for _, p := range symlinkAttackPatches {
		link := filepath.Join(a.e.Workdir, strings.Split(p.path, "/")[0])
		want := "Failed to write file " + filepath.Join(a.e.Workdir, p.path) + ": it resolves through the symlink " + link + " " + where[p.callID]
		switch approval {
		case "never":
			if out := a.outputs[p.callID]; !strings.HasPrefix(out, "Exit code: 1\n") || !strings.Contains(out, "Output:\n"+want+"\n") {
				t.Errorf("%s: the model received %q, want the failure %q", p.callID, out, want)
			}
			if a.statuses[p.callID] != "failed" {
				t.Errorf("%s: file change %q, want failed", p.callID, a.statuses[p.callID])
			}
		case "on-request":
			if got := reasons[p.callID]; got != want+"; retry without sandbox?" {
				t.Errorf("%s: the person was asked %q, want %q", p.callID, got, want+"; retry without sandbox?")
			}
			if out := a.outputs[p.callID]; out != "patch rejected by user" {
				t.Errorf("%s: the model received %q after the decline", p.callID, out)
			}
			if a.statuses[p.callID] != "declined" {
				t.Errorf("%s: file change %q, want declined", p.callID, a.statuses[p.callID])
			}
		}
	}
	if approval == "never" && len(a.asked) != 0 {
		t.Errorf("asked %d times under never", len(a.asked))
	}
}

func TestAttackPatchThroughSymlinks(t *testing.T) {
	users := []struct {
		name       string
		credential *syscall.Credential
	}{{name: "as-invoking-user"}}
	if os.Getuid() == 0 {
		users = append(users, struct {
			name       string
			credential *syscall.Credential
		}{"as-nobody", &syscall.Credential{Uid: 65534, Gid: 65534}})
	}
	for _, u := range users {
		for _, approval := range []string{"on-request", "never"} {
			t.Run(u.name+"/"+approval, func(t *testing.T) {
				bin := binary
				if u.credential != nil {
					bin = copyBinaryFor(t, u.credential)
				}
				a := runSymlinkAttack(t, bin, approval, u.credential)
				a.judge(t)
				a.judgeReasons(t, approval)
			})
		}
	}
}

// Codex 0.169 blocks the same attack (its sandboxed apply_patch fails); this runs it against
// the reference binary where it is installed, judged the same way from outside.
func TestAttackPatchThroughSymlinksCodex(t *testing.T) {
	bin := tk.ReferenceCodex()
	if bin == "" {
		t.Skip("reference Codex not installed (../shared/tools/reference-codex)")
	}
	for _, approval := range []string{"on-request", "never"} {
		t.Run(approval, func(t *testing.T) {
			runSymlinkAttack(t, bin, approval, nil).judge(t)
		})
	}
}

// attackEnv is newEnv with every directory under one base that credential's user owns:
// the work tree, CODEX_HOME, HOME and (made by the caller) the directory outside the tree,
// so that only the sandbox stands between that user and the files.
func attackEnv(t *testing.T, credential *syscall.Credential) *env {
	t.Helper()
	base := t.TempDir()
	if credential != nil {
		var err error
		if base, err = os.MkdirTemp("/var/tmp", "gocodex-attack-"); err != nil {
			t.Skip(err)
		}
		t.Cleanup(func() { os.RemoveAll(base) })
		if err := os.Chmod(base, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e := &env{t: t, CodexHome: filepath.Join(base, "codex-home"), Workdir: filepath.Join(base, "work"), Model: tk.NewServer(t), credential: credential}
	home := filepath.Join(base, "home")
	for _, dir := range []string{e.CodexHome, e.Workdir, home, filepath.Join(base, "outside")} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.ExtraEnv = []string{"HOME=" + home}
	if out, err := exec.Command("git", "init", "-q", e.Workdir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if credential != nil {
		chownTree(t, base, credential)
	}
	return e
}

func chownTree(t *testing.T, root string, credential *syscall.Credential) {
	t.Helper()
	err := filepath.Walk(root, func(path string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, int(credential.Uid), int(credential.Gid))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func mustWriteAs(t *testing.T, path, content string, credential *syscall.Credential) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if credential != nil {
		chownTree(t, path, credential)
	}
}

// copyBinaryFor copies the built binary (in a private temporary directory) where
// credential's user can run it.
func copyBinaryFor(t *testing.T, credential *syscall.Credential) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "gocodex-attack-bin-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "gocodex")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// A patch run through exec_command with a workdir outside the work tree resolves its paths
// there, but the sandbox's roots stay the session's: the workdir does not become writable.
// Codex 0.169 answers the same (run where it is installed).
func TestAttackPatchFromAnOutsideWorkdir(t *testing.T) {
	bins := map[string]string{"gocodex": binary}
	if ref := tk.ReferenceCodex(); ref != "" {
		bins["codex"] = ref
	}
	for who, bin := range bins {
		for _, approval := range []string{"on-request", "never"} {
			t.Run(who+"/"+approval, func(t *testing.T) {
				e := attackEnv(t, nil)
				e.confineToWorkdir(approval)
				outside := filepath.Join(filepath.Dir(e.Workdir), "outside")
				args, _ := json.Marshal(map[string]string{
					"cmd":     "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: planted.txt\n+x\n*** End Patch\nEOF",
					"workdir": outside,
				})
				e.Model.Enqueue(tk.SSE(tk.Created(), tk.FunctionCall("c_patch", "exec_command", string(args)), tk.Completed(tk.Usage{})), answer("done"))
				c, stop := e.startAppServerOf(bin)
				defer stop()
				var asked int
				c.answer = func(rpcMsg) any { asked++; return map[string]any{"decision": "decline"} }
				id := c.startThread(map[string]any{"cwd": e.Workdir})
				c.turn(id, "attack")
				c.until("turn/completed")
				if _, err := os.Stat(filepath.Join(outside, "planted.txt")); !os.IsNotExist(err) {
					t.Errorf("the patch wrote in the outside workdir (%v)", err)
				}
				out := functionOutput(t, e.Model.Requests()[1].JSON, "c_patch")
				want := "patch rejected: writing outside of the project; rejected by user approval settings"
				if approval == "on-request" {
					want = "patch rejected by user"
				}
				if !strings.Contains(out, want) || (approval == "on-request") != (asked == 1) {
					t.Errorf("asked %d times; the model received %q, want %q", asked, out, want)
				}
			})
		}
	}
}
