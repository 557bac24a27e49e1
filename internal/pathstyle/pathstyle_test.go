package pathstyle

import "testing"

func TestIsAbs(t *testing.T) {
	for _, tc := range []struct {
		s    Style
		p    string
		want bool
	}{
		{Unix, "/a", true}, {Unix, "a", false}, {Unix, `C:\a`, false},
		{Windows, `C:\repo`, true}, {Windows, `c:/repo`, true}, {Windows, `\\server\share\x`, true},
		{Windows, `\\server\share`, true}, {Windows, `\repo`, false}, {Windows, `C:repo`, false},
		{Windows, `repo\x`, false}, {Windows, "/repo", false},
	} {
		if got := tc.s.IsAbs(tc.p); got != tc.want {
			t.Errorf("%+v IsAbs(%q) = %v", tc.s, tc.p, got)
		}
	}
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		s             Style
		base, p, want string
	}{
		{Unix, "/repo", "src/main.go", "/repo/src/main.go"},
		{Unix, "/repo", "../x", "/x"},
		{Unix, "/repo", `src\main.go`, `/repo/src\main.go`}, // a backslash is a name's character on Unix
		{Windows, `C:\repo`, "src/main.go", `C:\repo\src\main.go`},
		{Windows, `C:\repo`, `src\sub\..\main.go`, `C:\repo\src\main.go`},
		{Windows, `C:\repo`, `D:\other\f.txt`, `D:\other\f.txt`},
		{Windows, `C:\repo`, `d:/other/f.txt`, `d:\other\f.txt`},
		{Windows, `C:\repo`, `\top.txt`, `C:\top.txt`},
		{Windows, `C:\repo`, `..\..\..\x`, `C:\x`},
		{Windows, `\\srv\share\repo`, `a\b`, `\\srv\share\repo\a\b`},
		{Windows, `\\srv\share\repo`, `..\..\x`, `\\srv\share\x`},
		{Windows, `C:\repo`, `C:x`, `C:\repo\x`},
	} {
		if got := tc.s.Resolve(tc.base, tc.p); got != tc.want {
			t.Errorf("%+v Resolve(%q, %q) = %q, want %q", tc.s, tc.base, tc.p, got, tc.want)
		}
	}
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		s       Style
		p, root string
		want    bool
	}{
		{Unix, "/repo/a", "/repo", true},
		{Unix, "/repo", "/repo", true},
		{Unix, "/repository", "/repo", false},
		{Unix, "/Repo/a", "/repo", false},
		{Unix, "/repo/.GIT/config", "/repo/.git", false},
		{Unix, "/anything", "/", true},
		{MacOS, "/Users/Me/Repo/.GIT/config", "/Users/me/repo/.git", true},
		{MacOS, "/Users/me/repository", "/Users/me/repo", false},
		{Windows, `c:\Repo\.Git\hooks\pre-commit`, `C:\repo\.git`, true},
		{Windows, `C:/repo/src/x.go`, `C:\repo`, true},
		{Windows, `D:\repo\x`, `C:\repo`, false},
		{Windows, `C:\repo2\x`, `C:\repo`, false},
		{Windows, `C:\x`, `C:\`, true},
		{Windows, `\\SRV\Share\repo\x`, `\\srv\share\repo`, true},
		{Windows, `\\srv\other\repo\x`, `\\srv\share\repo`, false},
		{Windows, `C:\repo\..\secret`, `C:\repo`, false},
	} {
		if got := tc.s.Within(tc.p, tc.root); got != tc.want {
			t.Errorf("%+v Within(%q, %q) = %v", tc.s, tc.p, tc.root, got)
		}
	}
}

func TestForGOOS(t *testing.T) {
	if ForGOOS("windows") != Windows || ForGOOS("darwin") != MacOS || ForGOOS("linux") != Unix {
		t.Error("wrong style for a system")
	}
}
