package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLICompletionScripts: `gocodex completion [SHELL]` takes the shell as Codex does (bash
// when omitted), prints a script and exits 0; an unknown shell is a usage error (2).
func TestCLICompletionScripts(t *testing.T) {
	e := newEnv(t)
	bare := e.run("", "completion")
	bash := e.run("", "completion", "bash")
	if bare.Code != 0 || bash.Code != 0 || bare.Stdout != bash.Stdout || bash.Stderr != "" {
		t.Fatalf("completion / completion bash: %d %d, stderr %q", bare.Code, bash.Code, bash.Stderr)
	}
	for shell, marker := range map[string]string{"zsh": "#compdef gocodex", "fish": "complete -c gocodex", "powershell": "Register-ArgumentCompleter"} {
		r := e.run("", "completion", shell)
		if r.Code != 0 || !strings.Contains(r.Stdout, marker) {
			t.Errorf("completion %s: exit %d, script without %q (stderr %q)", shell, r.Code, marker, r.Stderr)
		}
	}
	if r := e.run("", "completion", "tcsh"); r.Code != 2 || !strings.Contains(r.Stderr, "invalid value 'tcsh'") || r.Stdout != "" {
		t.Errorf("completion tcsh: %+v", r)
	}
	if r := e.run("", "completion", "elvish"); r.Code != 1 || !strings.Contains(r.Stderr, "elvish") {
		t.Errorf("completion elvish: %+v", r)
	}

	// The bash script works in a plain bash (no bash-completion package): it asks the binary.
	dir := t.TempDir()
	script := filepath.Join(dir, "gocodex.bash")
	if err := os.WriteFile(script, []byte(bash.Stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v %s", err, out)
	}
	if err := os.Symlink(binary, filepath.Join(dir, "gocodex")); err != nil {
		t.Fatal(err)
	}
	complete := func(words ...string) string {
		t.Helper()
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + w + "'"
		}
		prog := "source " + script + "; COMP_WORDS=(" + strings.Join(quoted, " ") + "); COMP_CWORD=" +
			string(rune('0'+len(words)-1)) + "; COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE}; " +
			`__start_gocodex 2>/dev/null; echo "${COMPREPLY[@]}"`
		cmd := exec.Command("bash", "--norc", "--noprofile", "-c", prog)
		cmd.Env = append(e.environ(), "PATH="+dir+":"+os.Getenv("PATH"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash completion of %v: %v", words, err)
		}
		return strings.TrimSpace(string(out))
	}
	if got := complete("gocodex", "arc"); got != "archive" {
		t.Errorf("gocodex arc<TAB> = %q, want archive", got)
	}
	if got := complete("gocodex", "completion", ""); got != "bash fish powershell zsh" {
		t.Errorf("gocodex completion <TAB> = %q", got)
	}
	if got := complete("gocodex", "exec", "--skip-git"); got != "--skip-git-repo-check" {
		t.Errorf("gocodex exec --skip-git<TAB> = %q", got)
	}
}

// TestCLICompletionMatchesReference: the same shells give scripts, the same exit statuses.
func TestCLICompletionMatchesReference(t *testing.T) {
	ref := referenceBinary(t)
	e := newEnv(t)
	for _, args := range [][]string{{"completion"}, {"completion", "bash"}, {"completion", "zsh"}, {"completion", "fish"}, {"completion", "powershell"}, {"completion", "tcsh"}} {
		ours, theirs := e.run("", args...), e.runBin(ref, "", args...)
		if ours.Code != theirs.Code || (ours.Stdout == "") != (theirs.Stdout == "") {
			t.Errorf("%v: ours exit %d (%d bytes), reference exit %d (%d bytes)", args, ours.Code, len(ours.Stdout), theirs.Code, len(theirs.Stdout))
		}
	}
}
