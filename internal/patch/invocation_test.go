package patch

import (
	"errors"
	"testing"
)

func TestParseInvocation(t *testing.T) {
	const body = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch"
	heredoc := func(prefix, delim string) string {
		return prefix + "apply_patch <<" + delim + "\n" + body + "\nEOF\n"
	}
	tests := []struct {
		name    string
		argv    []string
		want    string // "patch", "none", "implicit", "error"
		workdir string
	}{
		{"direct", []string{"apply_patch", body}, "patch", ""},
		{"direct alias", []string{"applypatch", body}, "patch", ""},
		{"direct with bad patch", []string{"apply_patch", "nope"}, "error", ""},
		{"direct with extra arg", []string{"apply_patch", body, "x"}, "none", ""},
		{"bare patch as argv", []string{body}, "implicit", ""},
		{"bare patch as script", []string{"bash", "-lc", body}, "implicit", ""},
		{"bash -lc quoted heredoc", []string{"bash", "-lc", heredoc("", "'EOF'")}, "patch", ""},
		{"bash -c double-quoted delimiter", []string{"bash", "-c", heredoc("", `"EOF"`)}, "patch", ""},
		{"sh -lc unquoted delimiter", []string{"sh", "-lc", heredoc("", "EOF")}, "patch", ""},
		{"zsh -lc", []string{"zsh", "-lc", heredoc("", "'EOF'")}, "patch", ""},
		{"/bin/bash path", []string{"/bin/bash", "-lc", heredoc("", "'EOF'")}, "patch", ""},
		{"applypatch in script", []string{"bash", "-lc", "applypatch <<'EOF'\n" + body + "\nEOF"}, "patch", ""},
		{"cd then apply", []string{"bash", "-lc", heredoc("cd sub && ", "'EOF'")}, "patch", "sub"},
		{"cd single-quoted", []string{"bash", "-lc", heredoc("cd 'my dir' && ", "'EOF'")}, "patch", "my dir"},
		{"cd double-quoted", []string{"bash", "-lc", heredoc(`cd "/abs/d" && `, "'EOF'")}, "patch", "/abs/d"},
		{"cd with variable", []string{"bash", "-lc", heredoc("cd $HOME && ", "'EOF'")}, "none", ""},
		{"cd with two args", []string{"bash", "-lc", heredoc("cd a b && ", "'EOF'")}, "none", ""},
		{"cd joined by ||", []string{"bash", "-lc", heredoc("cd a || ", "'EOF'")}, "none", ""},
		{"cd joined by ;", []string{"bash", "-lc", "cd a; " + heredoc("", "'EOF'")}, "none", ""},
		{"not cd first", []string{"bash", "-lc", heredoc("echo a && ", "'EOF'")}, "none", ""},
		{"command after", []string{"bash", "-lc", heredoc("", "'EOF'") + "echo done\n"}, "none", ""},
		{"piped", []string{"bash", "-lc", "apply_patch <<'EOF' | cat\n" + body + "\nEOF\n"}, "none", ""},
		{"argument to apply_patch", []string{"bash", "-lc", "apply_patch x <<'EOF'\n" + body + "\nEOF\n"}, "none", ""},
		{"herestring", []string{"bash", "-lc", "apply_patch <<< 'x'"}, "none", ""},
		{"no heredoc", []string{"bash", "-lc", "apply_patch"}, "none", ""},
		{"other program", []string{"bash", "-lc", "cat <<'EOF'\n" + body + "\nEOF\n"}, "none", ""},
		{"heredoc with bad patch", []string{"bash", "-lc", "apply_patch <<'EOF'\nhello\nEOF\n"}, "error", ""},
		{"unparseable script", []string{"bash", "-lc", "apply_patch <<'EOF"}, "none", ""},
		{"wrong flag", []string{"bash", "-x", heredoc("", "'EOF'")}, "none", ""},
		{"two flags", []string{"bash", "-l", "-c", heredoc("", "'EOF'")}, "none", ""},
		{"pwsh -Command", []string{"pwsh", "-Command", heredoc("", "'EOF'")}, "patch", ""},
		{"powershell.exe -NoProfile -Command", []string{"powershell.exe", "-NoProfile", "-Command", heredoc("", "'EOF'")}, "patch", ""},
		{"cmd /c", []string{"cmd", "/c", heredoc("", "'EOF'")}, "patch", ""},
		{"bare patch through pwsh", []string{"pwsh", "-NoProfile", "-Command", body}, "implicit", ""},
		{"pwsh without -Command", []string{"pwsh", "-NoProfile", heredoc("", "'EOF'")}, "none", ""},
		{"fish is not bash", []string{"fish", "-c", heredoc("", "'EOF'")}, "none", ""},
		{"plain command", []string{"ls", "-la"}, "none", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv, err := ParseInvocation(tt.argv)
			got := "none"
			switch {
			case errors.Is(err, ErrImplicitInvocation):
				got = "implicit"
			case err != nil:
				got = "error"
			case inv != nil:
				got = "patch"
			}
			if got != tt.want {
				t.Fatalf("got %s (%v), want %s", got, err, tt.want)
			}
			if inv == nil {
				return
			}
			if inv.Workdir != tt.workdir {
				t.Errorf("workdir = %q, want %q", inv.Workdir, tt.workdir)
			}
			if len(inv.Patch.Hunks) != 1 || inv.Patch.Hunks[0].Path != "a.txt" || inv.Patch.Hunks[0].Contents != "hi\n" {
				t.Errorf("hunks = %+v", inv.Patch.Hunks)
			}
		})
	}
}

func TestImplicitInvocationText(t *testing.T) {
	want := `patch detected without explicit call to apply_patch. Rerun as ["apply_patch", "<patch>"]`
	if ErrImplicitInvocation.Error() != want {
		t.Errorf("got %q, want %q", ErrImplicitInvocation.Error(), want)
	}
}

func TestInvocationDir(t *testing.T) {
	for _, tt := range []struct{ workdir, want string }{{"", "/w"}, {"sub", "/w/sub"}, {"/abs", "/abs"}} {
		if got := (&Invocation{Workdir: tt.workdir}).Dir("/w"); got != tt.want {
			t.Errorf("Dir with workdir %q = %q, want %q", tt.workdir, got, tt.want)
		}
	}
}
