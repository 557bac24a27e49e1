package shellquote

import "testing"

func TestJoin(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"git", "push", "origin", "main"}, "git push origin main"},
		{[]string{"bash", "-lc", "ls && pwd"}, "bash -lc 'ls && pwd'"},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"echo", "it's"}, `echo "it's"`},
		{[]string{`C:\bin\x.exe`, "$HOME"}, `"C:\\bin\\x.exe" '$HOME'`},
		{[]string{"--format=%H", "a,b", "u@h:/p"}, "--format=%H a,b u@h:/p"},
	}
	for _, tt := range tests {
		if got := Join(tt.argv); got != tt.want {
			t.Errorf("Join(%q) = %s, want %s", tt.argv, got, tt.want)
		}
	}
}
