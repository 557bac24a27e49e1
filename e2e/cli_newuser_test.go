package e2e

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// newUserEnv is a first run: no config.toml (the default OpenAI provider), no credentials and
// no OPENAI_API_KEY (environ drops the developer's).
func newUserEnv(t *testing.T) *env {
	e := newEnv(t)
	if err := os.Remove(e.CodexHome + "/config.toml"); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestCLINewUserModelsWithoutKey: `gocodex models` before signing in prints the bundled
// catalog with a warning that names gocodex's own sign-in, and succeeds (it once exited 1
// after printing the whole table, and told the user to run `codex login`).
func TestCLINewUserModelsWithoutKey(t *testing.T) {
	e := newUserEnv(t)
	for _, args := range [][]string{{"models"}, {"models", "--json"}} {
		r := e.run("", args...)
		if r.Code != 0 || !strings.Contains(r.Stdout, "gpt-5.5") {
			t.Errorf("gocodex %v: exit %d, stdout %q", args, r.Code, r.Stdout)
		}
		if !strings.Contains(r.Stderr, "bundled catalog") || !strings.Contains(r.Stderr, "run `gocodex login`") || strings.Contains(r.Stderr, "`codex login`") {
			t.Errorf("gocodex %v: stderr %q", args, r.Stderr)
		}
	}
}

// TestCLINewUserExecWithoutKey: exec before signing in fails saying how to sign in with
// gocodex, not with Codex.
func TestCLINewUserExecWithoutKey(t *testing.T) {
	e := newUserEnv(t)
	r := e.run("", "exec", "hello")
	if r.Code == 0 || !strings.Contains(r.Stderr, "OPENAI_API_KEY") || !strings.Contains(r.Stderr, "run `gocodex login`") || strings.Contains(r.Stderr, "`codex login`") {
		t.Errorf("exec without a key: %+v", r)
	}
	if n := len(e.Model.AllRequests()); n != 0 {
		t.Errorf("%d requests reached the model server", n)
	}
}

// TestCLILoginHelpFlagColumn: every flag line of `login --help` is "--name[ type]  description"
// with a short name column: a usage with backticks once made pflag print a whole command
// line as --with-api-key's value name.
func TestCLILoginHelpFlagColumn(t *testing.T) {
	e := newEnv(t)
	r := e.run("", "login", "--help")
	if r.Code != 0 {
		t.Fatalf("login --help: %+v", r)
	}
	_, flags, ok := strings.Cut(r.Stdout, "Flags:\n")
	if !ok {
		t.Fatalf("no Flags section:\n%s", r.Stdout)
	}
	flags, _, _ = strings.Cut(flags, "\n\n")
	// "  -c, --config stringArray   description": the name, an optional one-word value name,
	// then the description in a column that fits the terminal.
	line := regexp.MustCompile(`^(\s+(?:-\w, )?--[\w-]+(?: \w+)?\s{2,})\S`)
	for _, l := range strings.Split(flags, "\n") {
		if m := line.FindStringSubmatch(l); m == nil || len(m[1]) > 40 {
			t.Errorf("flag line %q: not a flag and its description, or the description starts past column 40", l)
		}
	}
	if !regexp.MustCompile(`(?m)^\s+--with-api-key\s{2,}read the API key from stdin`).MatchString(flags) {
		t.Errorf("--with-api-key's line:\n%s", flags)
	}
}
