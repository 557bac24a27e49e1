package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCredentialsHidden: with a mount namespace the command can neither read, replace nor
// remove CODEX_HOME's credential files, even where CODEX_HOME lies in a writable root, and
// the rest of CODEX_HOME stays readable. Landlock alone cannot hide them (the explanation
// says so).
func TestCredentialsHidden(t *testing.T) {
	for _, m := range mechanisms {
		t.Run(m.name, func(t *testing.T) {
			probe := probeFor(t, m.opts, m.want)
			cwd := outsideTmp(t)
			home := filepath.Join(cwd, "codex-home") // inside the writable root
			if err := os.MkdirAll(filepath.Join(home, "secrets"), 0o700); err != nil {
				t.Fatal(err)
			}
			for name, body := range map[string]string{"auth.json": attackSecret, ".credentials.json": attackSecret, "secrets/local.age": attackSecret, "config.toml": "model = \"m\"\n"} {
				if err := os.WriteFile(filepath.Join(home, name), []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			opts := m.opts
			opts.CodexHome = home
			script := `cd codex-home
cat auth.json .credentials.json secrets/local.age 2>&1
cat config.toml
echo x > auth.json; rm -f .credentials.json; mv secrets s2; ls secrets 2>&1; echo done`
			r := sh(t, probe, opts, workspaceWrite(), cwd, baseEnv(""), script)
			out := r.stdout + r.stderr
			hidden := m.protectsSubpaths // the mechanisms with a mount namespace
			if strings.Contains(out, attackSecret) == hidden {
				t.Errorf("secret readable=%v, want %v:\n%s", strings.Contains(out, attackSecret), !hidden, out)
			}
			if !strings.Contains(out, `model = "m"`) || !strings.Contains(out, "done") {
				t.Errorf("config.toml unreadable or script cut short:\n%s", out)
			}
			if !hidden {
				return
			}
			for _, name := range []string{"auth.json", ".credentials.json", "secrets/local.age"} {
				if b, err := os.ReadFile(filepath.Join(home, name)); err != nil || string(b) != attackSecret {
					t.Errorf("%s on the host: %q %v", name, b, err)
				}
			}
		})
	}
}
