package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// loginBins are the binaries `login`, `login status` and `logout` are compared on: ours, and
// Codex 0.169 when the reference is installed.
func loginBins(t *testing.T) map[string]string {
	bins := map[string]string{"gocodex": binary}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		bins["codex"] = ref
	}
	return bins
}

// runIn runs bin with a fresh HOME and the given CODEX_HOME; Codex's warning about helper
// aliases under a temporary directory is dropped from its stderr.
func runIn(t *testing.T, bin, home, stdin string, args ...string) result {
	t.Helper()
	return runInEnv(t, bin, home, stdin, nil, args...)
}

// runInEnv is runIn with more variables in the environment.
func runInEnv(t *testing.T, bin, home, stdin string, extraEnv []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(append(cleanEnviron(), "CODEX_HOME="+home, "HOME="+t.TempDir()), extraEnv...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	var kept []string
	for _, l := range strings.SplitAfter(stderr.String(), "\n") {
		if !strings.HasPrefix(l, "WARNING: proceeding, even though we could not create PATH aliases") {
			kept = append(kept, l)
		}
	}
	return result{Stdout: stdout.String(), Stderr: strings.Join(kept, ""), Code: code}
}

func cleanEnviron() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CODEX_") || strings.HasPrefix(k, "OPENAI_") || k == "HOME" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// The API-key sign-in writes the same bytes with the same mode, and login status / logout say
// the same things with the same exit codes, in both binaries (observed in signin.md §1).
func TestLoginAPIKeyMatchesCodex(t *testing.T) {
	type transcript struct {
		file     string
		steps    []result
		fileMode os.FileMode
	}
	got := map[string]transcript{}
	for name, bin := range loginBins(t) {
		home := t.TempDir()
		var tr transcript
		tr.steps = append(tr.steps, runIn(t, bin, home, "", "login", "status"))
		tr.steps = append(tr.steps, runIn(t, bin, home, "", "login", "--with-api-key"))
		tr.steps = append(tr.steps, runIn(t, bin, home, "  sk-test-abc123\n", "login", "--with-api-key"))
		data, err := os.ReadFile(filepath.Join(home, "auth.json"))
		if err != nil {
			t.Fatalf("%s wrote no auth.json: %v", name, err)
		}
		st, _ := os.Stat(filepath.Join(home, "auth.json"))
		tr.file, tr.fileMode = string(data), st.Mode().Perm()
		tr.steps = append(tr.steps, runIn(t, bin, home, "", "login", "status"))
		tr.steps = append(tr.steps, runIn(t, bin, home, "", "logout"))
		tr.steps = append(tr.steps, runIn(t, bin, home, "", "logout"))
		got[name] = tr
	}
	ours := got["gocodex"]
	if ours.file != "{\n  \"auth_mode\": \"apikey\",\n  \"OPENAI_API_KEY\": \"sk-test-abc123\"\n}" || ours.fileMode != 0o600 {
		t.Errorf("auth.json %q mode %v", ours.file, ours.fileMode)
	}
	want := []result{
		{Stderr: "Not logged in\n", Code: 1},
		{Stderr: "Reading API key from stdin...\nNo API key provided via stdin.\n", Code: 1},
		{Stderr: "Reading API key from stdin...\nAPI key saved. Authentication is checked when you send a request.\n"},
		{Stderr: "API key configured - sk-test-***bc123\nAuthentication is checked when you send a request.\n"},
		{Stderr: "Successfully logged out\n"},
		{Stderr: "Not logged in\n"},
	}
	for i, w := range want {
		if ours.steps[i] != w {
			t.Errorf("gocodex step %d = %+v, want %+v", i, ours.steps[i], w)
		}
	}
	if ref, ok := got["codex"]; ok {
		if ref.file != ours.file || ref.fileMode != ours.fileMode {
			t.Errorf("codex wrote %q (%v), gocodex %q (%v)", ref.file, ref.fileMode, ours.file, ours.fileMode)
		}
		for i := range ref.steps {
			if ref.steps[i] != ours.steps[i] {
				t.Errorf("step %d: codex %+v, gocodex %+v", i, ref.steps[i], ours.steps[i])
			}
		}
	}
}

// Each binary reads what the other wrote: a ChatGPT-mode file as Codex 0.169 writes it, and an
// API-key file written by the other binary.
func TestAuthFileInterop(t *testing.T) {
	chatgpt, err := os.ReadFile("testdata/auth_chatgpt.json")
	if err != nil {
		t.Fatal(err)
	}
	bins := loginBins(t)
	for name, bin := range bins {
		home := t.TempDir()
		os.WriteFile(filepath.Join(home, "auth.json"), chatgpt, 0o600)
		if r := runIn(t, bin, home, "", "login", "status"); r.Code != 0 || r.Stderr != "Logged in using ChatGPT\n" {
			t.Errorf("%s login status on a ChatGPT file: %+v", name, r)
		}
	}
	ref, ok := bins["codex"]
	if !ok {
		t.Skip("GOCODEX_REFERENCE_CODEX is not set: the cross-binary half needs the reference")
	}
	for writer, reader := range map[string]string{binary: ref, ref: binary} {
		home := t.TempDir()
		if r := runIn(t, writer, home, "sk-interop-0123456789\n", "login", "--with-api-key"); r.Code != 0 {
			t.Fatalf("%s login: %+v", writer, r)
		}
		if r := runIn(t, reader, home, "", "login", "status"); r.Code != 0 || !strings.Contains(r.Stderr, "sk-inter***56789") {
			t.Errorf("%s reading %s's file: %+v", reader, writer, r)
		}
	}
}

// A malformed auth.json is named in the error and left as it was.
func TestLoginStatusMalformedFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "auth.json")
	os.WriteFile(path, []byte("{bad"), 0o600)
	r := runIn(t, binary, home, "", "login", "status")
	if r.Code != 1 || !strings.Contains(r.Stderr, "Error checking login status: failed to deserialize CLI auth from file "+path) {
		t.Errorf("status = %+v", r)
	}
	if data, _ := os.ReadFile(path); string(data) != "{bad" {
		t.Errorf("file changed to %q", data)
	}
}
