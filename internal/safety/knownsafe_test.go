package safety

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsKnownSafe(t *testing.T) {
	tests := []struct {
		argv []string
		want bool
	}{
		{[]string{"ls"}, true},
		{[]string{"/bin/ls", "-la"}, true},
		{[]string{"base64"}, true},
		{[]string{"sed", "-n", "1,5p", "file.txt"}, true},
		{[]string{"sed", "-n", "10p"}, true},
		{[]string{"sed", "-n", "xp", "file.txt"}, false},
		{[]string{"sed", "-n", "1,2,3p", "file.txt"}, false},
		{[]string{"sed", "-n", "1,5p", "a", "b"}, false},
		{[]string{"sed", "-i", "1p", "a"}, false},
		{[]string{"nl", "-nrz", "Cargo.toml"}, true},
		{[]string{"find", ".", "-name", "file.txt"}, true},
		{[]string{"numfmt", "1000"}, true},
		{[]string{"tac", "Cargo.toml"}, true},
		{[]string{"foo"}, false},
		{[]string{}, false},
		{[]string{"cargo", "check"}, false},
		{[]string{"git", "fetch"}, false},
		// find with options that run, delete or write.
		{[]string{"find", ".", "-name", "file.txt", "-exec", "rm", "{}", ";"}, false},
		{[]string{"find", ".", "-name", "*.py", "-execdir", "python3", "{}", ";"}, false},
		{[]string{"find", ".", "-name", "file.txt", "-ok", "rm", "{}", ";"}, false},
		{[]string{"find", ".", "-name", "*.py", "-okdir", "python3", "{}", ";"}, false},
		{[]string{"find", ".", "-delete", "-name", "file.txt"}, false},
		{[]string{"find", ".", "-fls", "/etc/passwd"}, false},
		{[]string{"find", ".", "-fprint", "/etc/passwd"}, false},
		{[]string{"find", ".", "-fprint0", "/etc/passwd"}, false},
		{[]string{"find", ".", "-fprintf", "/root/suid.txt", "%#m %u %p\n"}, false},
		// base64 writing a file.
		{[]string{"base64", "-o", "out.bin"}, false},
		{[]string{"base64", "--output", "out.bin"}, false},
		{[]string{"base64", "--output=out.bin"}, false},
		{[]string{"base64", "-ob64.txt"}, false},
		// ripgrep.
		{[]string{"rg", "Cargo.toml", "-n"}, true},
		{[]string{"rg", "--search-zip", "files"}, false},
		{[]string{"rg", "-z", "files"}, false},
		{[]string{"rg", "--pre", "pwned", "files"}, false},
		{[]string{"rg", "--pre=pwned", "files"}, false},
		{[]string{"rg", "--hostname-bin", "pwned", "files"}, false},
		{[]string{"rg", "--hostname-bin=pwned", "files"}, false},
		// git read-only subcommands (§5.1).
		{[]string{"git", "status"}, true},
		{[]string{"git", "log", "-p", "-1"}, true},
		{[]string{"git", "diff", "--stat"}, true},
		{[]string{"git", "show", "HEAD"}, true},
		{[]string{"git", "-C", "sub", "status"}, true},
		{[]string{"git", "--no-pager", "diff"}, true},
		{[]string{"git", "branch"}, true},
		{[]string{"git", "branch", "--show-current"}, true},
		{[]string{"git", "branch", "-a", "-vv"}, true},
		{[]string{"git", "branch", "--format=%(refname)"}, true},
		{[]string{"git", "branch", "-d", "feature"}, false},
		{[]string{"git", "branch", "new-branch"}, false},
		{[]string{"git", "-c", "core.pager=evil", "log"}, false},
		{[]string{"git", "-ccore.pager=evil", "log"}, false},
		{[]string{"git", "--git-dir=/x", "status"}, false},
		{[]string{"git", "--work-tree", "/x", "status"}, false},
		{[]string{"git", "--exec-path=/x", "status"}, false},
		{[]string{"git", "diff", "--output=/tmp/x"}, false},
		{[]string{"git", "diff", "--ext-diff"}, false},
		{[]string{"git", "log", "--textconv"}, false},
		{[]string{"git", "show", "--paginate"}, false},
		{[]string{"git", "commit"}, false},
		{[]string{"git"}, false},
		// shells running a plain script.
		{[]string{"bash", "-lc", "ls"}, true},
		{[]string{"zsh", "-lc", "ls"}, true},
		{[]string{"sh", "-c", "ls -1"}, true},
		{[]string{"/bin/bash", "-lc", "ls"}, true},
		{[]string{"bash", "-lc", `grep -R "Cargo.toml" -n`}, true},
		{[]string{"bash", "-lc", "sed -n 1,5p file.txt"}, true},
		{[]string{"bash", "-lc", "sed -n '1,5p' file.txt"}, true},
		{[]string{"bash", "-lc", "find . -name file.txt"}, true},
		{[]string{"bash", "-lc", `grep -R "Cargo.toml" -n || true`}, true},
		{[]string{"bash", "-lc", "ls && pwd"}, true},
		{[]string{"bash", "-lc", "echo 'hi' ; ls"}, true},
		{[]string{"bash", "-lc", "ls | wc -l"}, true},
		{[]string{"bash", "-lc", "ls\npwd"}, true},
		{[]string{"bash", "-lc", "git status"}, true},
		{[]string{"bash", "-lc", "git", "status"}, false},
		{[]string{"bash", "-lc", "'git status'"}, false},
		{[]string{"bash", "-lc", "find . -name file.txt -delete"}, false},
		{[]string{"bash", "-lc", "ls && rm -rf /"}, false},
		{[]string{"bash", "-lc", "(ls)"}, false},
		{[]string{"bash", "-lc", "ls || (pwd && echo hi)"}, false},
		{[]string{"bash", "-lc", "ls > out.txt"}, false},
		{[]string{"bash", "-lc", "ls 2>/dev/null"}, false},
		{[]string{"bash", "-lc", "echo $(pwd)"}, false},
		{[]string{"bash", "-lc", "echo `pwd`"}, false},
		{[]string{"bash", "-lc", "echo $HOME"}, false},
		{[]string{"bash", "-lc", `echo "hi $USER"`}, false},
		{[]string{"bash", "-lc", "FOO=bar ls"}, false},
		{[]string{"bash", "-lc", "ls &"}, false},
		{[]string{"bash", "-lc", "ls & pwd"}, false},
		{[]string{"bash", "-lc", "ls |& wc"}, false},
		{[]string{"bash", "-lc", "! ls"}, false},
		{[]string{"bash", "-lc", "ls # comment"}, false},
		{[]string{"bash", "-lc", "if true; then ls; fi"}, false},
		{[]string{"bash", "-lc", "{ ls; }"}, false},
		{[]string{"bash", "-lc", "ls &&"}, false},
		{[]string{"bash", "-lc", ""}, false},
		{[]string{"bash", "-x", "ls"}, false},
		{[]string{"python", "-c", "ls"}, false},
		// Escapes and braces cannot smuggle an unsafe flag past the rules.
		{[]string{"bash", "-lc", `rg --pr\e=x foo`}, false},
		{[]string{"bash", "-lc", "rg {--pre=,}evil foo"}, false},
		{[]string{"bash", "-lc", `rg "--pre=x" foo`}, false},
	}
	for _, tt := range tests {
		if got := IsKnownSafe(tt.argv); got != tt.want {
			t.Errorf("IsKnownSafe(%q) = %v, want %v", tt.argv, got, tt.want)
		}
	}
}

func TestIsDangerous(t *testing.T) {
	tests := []struct {
		argv []string
		want bool
	}{
		{[]string{"rm", "-rf", "/"}, true},
		{[]string{"rm", "-f", "/"}, true},
		{[]string{"/bin/rm", "-fr", "/tmp/example"}, true},
		{[]string{"rm", "-r", "-f", "/tmp/example"}, true},
		{[]string{"rm", "--force", "/tmp/example"}, true},
		{[]string{"rm", "/tmp/example", "-f"}, true},
		{[]string{"sudo", "rm", "-rf", "/tmp/example"}, true},
		{[]string{"sudo", "sudo", "rm", "-f", "x"}, true},
		{[]string{"rm", "-r", "/tmp/example"}, false},
		{[]string{"rm", "--", "-f"}, false},
		{[]string{"rm", "--recursive", "x"}, false},
		{[]string{"ls", "-f"}, false},
		{[]string{"sudo"}, false},
		{[]string{}, false},
		{[]string{"bash", "-lc", "ls && rm -rf /"}, true},
		{[]string{"bash", "-lc", "printf x | rm -rf /tmp/example"}, true},
		{[]string{"bash", "-lc", "if test -d /tmp/example; then rm --force /tmp/example; fi"}, true},
		{[]string{"bash", "-lc", `rm -rf "$TARGET" >/dev/null`}, true},
		{[]string{"bash", "-lc", `for target in /tmp/a /tmp/b; do rm -r -f "$target"; done`}, true},
		{[]string{"bash", "-lc", `echo "$(rm -rf /tmp/example)"`}, true},
		{[]string{"bash", "-lc", "sudo rm -rf /"}, true},
		{[]string{"bash", "-lc", "echo 'rm -rf /tmp/example'"}, false},
		{[]string{"bash", "-lc", "cmd=rm; $cmd -rf /tmp/example"}, false},
		{[]string{"bash", "-lc", "if then rm -rf /tmp/example"}, false},
	}
	for _, tt := range tests {
		if got := IsDangerous(tt.argv); got != tt.want {
			t.Errorf("IsDangerous(%q) = %v, want %v", tt.argv, got, tt.want)
		}
	}
}

func TestParseWordOnlyScript(t *testing.T) {
	tests := []struct {
		script string
		want   [][]string
		ok     bool
	}{
		{"ls -1", [][]string{{"ls", "-1"}}, true},
		{"ls && pwd; echo 'hi there' | wc -l", [][]string{{"ls"}, {"pwd"}, {"echo", "hi there"}, {"wc", "-l"}}, true},
		{`echo "hello world"`, [][]string{{"echo", "hello world"}}, true},
		{"git commit -m \"line1\nline2\"", [][]string{{"git", "commit", "-m", "line1\nline2"}}, true},
		{`echo "/usr"'/'"local"/bin`, [][]string{{"echo", "/usr/local/bin"}}, true},
		{`echo 123 456`, [][]string{{"echo", "123", "456"}}, true},
		{`rg -n "foo" -g"*.py"`, [][]string{{"rg", "-n", "foo", "-g*.py"}}, true},
		{`grep -n 'pattern' -g'*.txt'`, [][]string{{"grep", "-n", "pattern", "-g*.txt"}}, true},
		{`echo a\ b "c\"d" 'e\f'`, [][]string{{"echo", "a b", `c"d`, `e\f`}}, true},
		{"", nil, true},
		{`echo "hi ${USER}"`, nil, false},
		{`echo "$HOME"`, nil, false},
		{`echo $'a\nb'`, nil, false},
		{"(ls)", nil, false},
		{"ls > out.txt", nil, false},
		{"echo hi & echo bye", nil, false},
		{"FOO=bar ls", nil, false},
		{"ls &&", nil, false},
		{"&& ls", nil, false},
		{"ls ;; pwd", nil, false},
		{"ls | | wc", nil, false},
		{"[ -f x ]", nil, false},
		{"cat <<EOF\nhi\nEOF", nil, false},
		{"echo {a,b}", nil, false},
	}
	for _, tt := range tests {
		got, ok := ParseWordOnlyScript(tt.script)
		if ok != tt.ok {
			t.Errorf("ParseWordOnlyScript(%q) ok = %v, want %v", tt.script, ok, tt.ok)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseWordOnlyScript(%q) mismatch (-want +got):\n%s", tt.script, diff)
		}
	}
}
