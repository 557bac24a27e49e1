package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"testing"
)

// notYetServed are the stable client methods gocodex does not answer (none since issue 18);
// the generated schema leaves them out of ClientRequest. With it empty the stable schema
// gocodex writes is the reference's, byte for byte.
var notYetServed []string

// referenceTree is Codex 0.171's generated tree (the schema the server follows): from its
// binary when GOCODEX_REFERENCE_CODEX_171 names it, else the copy in ../shared/reference
// (which has no TypeScript tree of 0.171: sharedDir "").
func referenceTree(t *testing.T, e *env, args []string, sharedDir string) string {
	t.Helper()
	if ref := reference171(); ref != "" {
		out := filepath.Join(t.TempDir(), "ref")
		if r := e.runBin(ref, "", append(args, "--out", out)...); r.Code != 0 {
			t.Fatalf("reference %v: exit %d\n%s", args, r.Code, r.Stderr)
		}
		return out
	}
	for _, up := range []string{"../..", "../../.."} { // the main checkout, or a worktree beside it
		dir := filepath.Join(up, "shared/reference", sharedDir)
		if _, err := os.Stat(dir); err == nil && sharedDir != "" {
			return dir
		}
	}
	t.Skipf("no reference: set GOCODEX_REFERENCE_CODEX_171 or provide ../shared/reference/%s", sharedDir)
	return ""
}

var requestMethod = regexp.MustCompile(`\{ "method": "([^"]+)"`)

// clientMethods lists the methods of a generated ClientRequest union.
func clientMethods(t *testing.T, dir string, ts bool) []string {
	t.Helper()
	var out []string
	if ts {
		data, err := os.ReadFile(filepath.Join(dir, "ClientRequest.ts"))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range requestMethod.FindAllSubmatch(data, -1) {
			out = append(out, string(m[1]))
		}
	} else {
		data, err := os.ReadFile(filepath.Join(dir, "ClientRequest.json"))
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			OneOf []struct {
				Properties struct {
					Method struct{ Enum []string }
				}
			}
		}
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		for _, e := range d.OneOf {
			out = append(out, e.Properties.Method.Enum[0])
		}
	}
	sort.Strings(out)
	return out
}

// compareTrees: the same files, byte for byte, except the files listing client methods.
func compareTrees(t *testing.T, got, want string, unionFiles ...string) {
	t.Helper()
	n := 0
	filepath.WalkDir(want, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(want, p)
		if slices.Contains(unionFiles, rel) {
			return nil
		}
		n++
		a, err := os.ReadFile(filepath.Join(got, rel))
		if err != nil {
			t.Errorf("gocodex did not write %s", rel)
			return nil
		}
		b, _ := os.ReadFile(p)
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs from the reference", rel)
		}
		return nil
	})
	if n < 100 {
		t.Fatalf("only %d files compared in %s", n, want)
	}
}

func missingFrom(all, have []string) []string {
	var out []string
	for _, m := range all {
		if !slices.Contains(have, m) {
			out = append(out, m)
		}
	}
	return out
}

// The stable schema gocodex writes is Codex 0.171's, its ClientRequest narrowed to the
// methods gocodex serves: exactly the reference's minus notYetServed.
func TestGenerateJSONSchemaStablePartEqualsReference(t *testing.T) {
	e := newEnv(t)
	want := referenceTree(t, e, []string{"app-server", "generate-json-schema"}, "app-server-schema-0.171")
	got := filepath.Join(t.TempDir(), "out")
	if r := e.run("", "app-server", "generate-json-schema", "--out", got); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	compareTrees(t, got, want, "ClientRequest.json", "codex_app_server_protocol.schemas.json", "codex_app_server_protocol.v2.schemas.json")
	missing := missingFrom(clientMethods(t, want, false), clientMethods(t, got, false))
	if !slices.Equal(missing, notYetServed) {
		t.Errorf("stable methods left out of the schema:\n got %q\nwant %q", missing, notYetServed)
	}
	if len(notYetServed) == 0 {
		for _, f := range []string{"ClientRequest.json", "codex_app_server_protocol.schemas.json", "codex_app_server_protocol.v2.schemas.json"} {
			a, _ := os.ReadFile(filepath.Join(got, f))
			b, _ := os.ReadFile(filepath.Join(want, f))
			if !bytes.Equal(a, b) {
				t.Errorf("%s differs from the reference although every method is served", f)
			}
		}
	}
}

func TestGenerateTSStablePartEqualsReference(t *testing.T) {
	e := newEnv(t)
	want := referenceTree(t, e, []string{"app-server", "generate-ts"}, "")
	got := filepath.Join(t.TempDir(), "out")
	if r := e.run("", "app-server", "generate-ts", "-o", got); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	compareTrees(t, got, want, "ClientRequest.ts")
	missing := missingFrom(clientMethods(t, want, true), clientMethods(t, got, true))
	if !slices.Equal(missing, notYetServed) {
		t.Errorf("stable methods left out of the types:\n got %q\nwant %q", missing, notYetServed)
	}
}

// --experimental adds the experimental methods and fields, as Codex's does; the methods
// gocodex serves are listed and no other.
func TestGenerateJSONSchemaExperimental(t *testing.T) {
	e := newEnv(t)
	want := referenceTree(t, e, []string{"app-server", "generate-json-schema", "--experimental"}, "app-server-schema-0.171-experimental")
	got := filepath.Join(t.TempDir(), "out")
	if r := e.run("", "app-server", "generate-json-schema", "--experimental", "--out", got); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	compareTrees(t, got, want, "ClientRequest.json", "codex_app_server_protocol.schemas.json", "codex_app_server_protocol.v2.schemas.json")
	listed := clientMethods(t, got, false)
	for _, m := range []string{"initialize", "thread/start", "turn/start", "collaborationMode/list"} {
		if !slices.Contains(listed, m) {
			t.Errorf("experimental schema lacks %s", m)
		}
	}
}

// Without --out the command fails with a message naming the flag and writes nothing.
func TestGenerateSchemaNeedsOut(t *testing.T) {
	e := newEnv(t)
	r := e.run("", "app-server", "generate-json-schema")
	if r.Code == 0 || !bytes.Contains([]byte(r.Stderr), []byte("--out")) {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Stderr)
	}
}
