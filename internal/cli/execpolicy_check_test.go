package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The check outputs were compared byte for byte with `codex execpolicy check` 0.169 on
// testdata/example.rules.
func TestRunCheckCLIGolden(t *testing.T) {
	rules := filepath.Join("testdata", "execpolicy", "example.rules")
	tests := []struct {
		name string
		args []string
	}{
		{"git_status", []string{"--rules", rules, "--", "git", "status"}},
		{"git_log_flags", []string{"-r", rules, "git", "log", "-p"}},
		{"no_match", []string{"--rules", rules, "ls"}},
		{"absolute_unresolved", []string{"--rules", rules, "/bin/rm", "-rf"}},
		{"absolute_resolved", []string{"--rules", rules, "--resolve-host-executables", "/bin/rm", "-rf"}},
		{"host_executable_listed", []string{"--rules", rules, "--resolve-host-executables", "/usr/bin/git", "status"}},
		{"host_executable_unlisted", []string{"--rules", rules, "--resolve-host-executables", "/usr/local/bin/git", "status"}},
		{"html_chars", []string{"--rules=" + rules, "echo", "a<b"}},
		{"pretty", []string{"--rules", rules, "--pretty", "git", "status"}},
		{"bash_not_split", []string{"--rules", rules, "bash", "-lc", "git status && rm x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := RunExecpolicyCheck(tt.args, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d, stderr %s", code, stderr.String())
			}
			golden := filepath.Join("testdata", "execpolicy", tt.name+".json")
			if *update {
				writeFile(t, golden, stdout.String())
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), stdout.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunCheckCLIErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.rules")
	writeFile(t, bad, "prefix_rule(pattern=[\"git\"], decision=\"maybe\")\n")
	tests := []struct {
		name      string
		args      []string
		code      int
		stderrHas string
		stdoutHas string
	}{
		{"no rules", []string{"git"}, 2, "--rules <PATH>", ""},
		{"no command", []string{"--rules", bad}, 2, "<COMMAND>...", ""},
		{"rules without value", []string{"--rules"}, 2, "a value is required", ""},
		{"unknown flag", []string{"--bogus", "--rules", bad, "x"}, 2, "unexpected argument '--bogus'", ""},
		{"parse error", []string{"--rules", bad, "git"}, 1, "Error: failed to parse policy at " + bad + "\n\nCaused by:\n    " + bad + ":1: invalid decision: maybe\n", ""},
		{"missing file", []string{"--rules", filepath.Join(dir, "none.rules"), "git"}, 1, "Error: failed to read policy at", ""},
		{"help", []string{"--help"}, 0, "", "--resolve-host-executables"},
		{"config accepted", []string{"-c", "model=\"o3\"", "--rules", filepath.Join("testdata", "execpolicy", "example.rules"), "ls"}, 0, "", `{"matchedRules":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := RunExecpolicyCheck(tt.args, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit = %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.stderrHas) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tt.stderrHas)
			}
			if !strings.Contains(stdout.String(), tt.stdoutHas) {
				t.Errorf("stdout %q lacks %q", stdout.String(), tt.stdoutHas)
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
