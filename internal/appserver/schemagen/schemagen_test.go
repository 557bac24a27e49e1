package schemagen

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var kinds = []Kind{{}, {Experimental: true}, {TypeScript: true}, {TypeScript: true, Experimental: true}}

// Serving every method changes no byte: the narrowing keeps the generator's own layout.
func TestServingEverythingLeavesTreesUnchanged(t *testing.T) {
	for _, k := range kinds {
		whole, err := Files(k, nil)
		if err != nil {
			t.Fatal(err)
		}
		all, err := Files(k, func(string) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		if len(whole) != len(all) {
			t.Fatalf("%s: %d files, narrowed %d", k.root(), len(whole), len(all))
		}
		for i := range whole {
			if !bytes.Equal(whole[i].Data, all[i].Data) {
				t.Errorf("%s/%s changed when every method is served", k.root(), whole[i].Path)
			}
		}
	}
}

// The JSON trees in the archive are Codex 0.171's reference ones (../shared/reference), byte
// for byte. (The shared reference holds no 0.171 TypeScript tree; the archive's is what
// 0.171's generate-ts writes, through scripts/refresh-appserver-schema.sh.)
func TestArchiveMatchesReferenceTrees(t *testing.T) {
	for k, dir := range map[Kind]string{{}: "app-server-schema-0.171", {Experimental: true}: "app-server-schema-0.171-experimental"} {
		ref := referenceDir(dir)
		if _, err := os.Stat(ref); err != nil {
			t.Skipf("reference trees not present: %v", err)
		}
		files, err := Files(k, nil)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, f := range files {
			seen[f.Path] = true
			want, err := os.ReadFile(filepath.Join(ref, filepath.FromSlash(f.Path)))
			if err != nil {
				t.Errorf("%s: %s is not in the reference: %v", dir, f.Path, err)
				continue
			}
			if !bytes.Equal(want, f.Data) {
				t.Errorf("%s/%s differs from the reference; run scripts/refresh-appserver-schema.sh", dir, f.Path)
			}
		}
		filepath.WalkDir(ref, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(ref, p)
				if !seen[filepath.ToSlash(rel)] {
					t.Errorf("%s: reference file %s missing from the archive", dir, rel)
				}
			}
			return nil
		})
	}
}

// Narrowed, every union lists exactly the served methods and the files stay valid.
func TestNarrowingKeepsOnlyServedMethods(t *testing.T) {
	served := map[string]bool{"initialize": true, "thread/start": true, "turn/start": true, "account/gatewayOAuth/read": true}
	serves := func(m string) bool { return served[m] }
	json1, err := Files(Kind{}, serves)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range json1 {
		switch f.Path {
		case "ClientRequest.json":
			var d struct{ OneOf []map[string]any }
			mustJSON(t, f, &d)
			checkMethods(t, f.Path, d.OneOf, served)
		case "codex_app_server_protocol.schemas.json", "codex_app_server_protocol.v2.schemas.json":
			var d struct {
				Definitions struct {
					ClientRequest struct{ OneOf []map[string]any }
				}
			}
			mustJSON(t, f, &d)
			checkMethods(t, f.Path, d.Definitions.ClientRequest.OneOf, served)
		}
	}
	ts, err := Files(Kind{TypeScript: true}, serves)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ts {
		if f.Path != "ClientRequest.ts" {
			continue
		}
		text := string(f.Data)
		union := text[strings.Index(text, "export type ClientRequest ="):]
		var got []string
		for _, m := range regexp.MustCompile(`\{ "method": "([^"]+)"`).FindAllStringSubmatch(union, -1) {
			got = append(got, m[1])
		}
		if len(got) != len(served) {
			t.Errorf("ClientRequest.ts lists %v, want %v", got, served)
		}
		for _, imp := range regexp.MustCompile(importLinePattern).FindAllStringSubmatch(text, -1) {
			if strings.Count(text, imp[1]) < 2 {
				t.Errorf("ClientRequest.ts imports %s but no longer uses it", imp[1])
			}
		}
		for _, want := range []string{"ThreadStartParams", "TurnStartParams", "GatewayOAuthReadParams", "RequestId"} {
			if !strings.Contains(text, `import type { `+want+` }`) {
				t.Errorf("ClientRequest.ts lost the import of %s", want)
			}
		}
	}
}

func mustJSON(t *testing.T, f File, v any) {
	t.Helper()
	if err := json.Unmarshal(f.Data, v); err != nil {
		t.Fatalf("%s is no longer JSON: %v", f.Path, err)
	}
}

func checkMethods(t *testing.T, name string, oneOf []map[string]any, served map[string]bool) {
	t.Helper()
	var got []string
	for _, e := range oneOf {
		m := e["properties"].(map[string]any)["method"].(map[string]any)["enum"].([]any)[0].(string)
		got = append(got, m)
		if !served[m] {
			t.Errorf("%s keeps %s", name, m)
		}
	}
	if len(got) != len(served) {
		t.Errorf("%s lists %v, want %d methods", name, got, len(served))
	}
}

// A malformed tree is an error, not a panic or a silently unchanged file.
func TestNarrowRejectsMalformedInput(t *testing.T) {
	if _, err := narrowJSONUnion([]byte(`{"oneOf": 3}`), []string{"oneOf"}, func(string) bool { return true }); err == nil {
		t.Error("a non-array union was accepted")
	}
	if _, err := narrowJSONUnion([]byte(`{"x": []}`), []string{"oneOf"}, func(string) bool { return true }); err == nil {
		t.Error("a missing union was accepted")
	}
	if _, err := narrowTSUnion([]byte("export type Other = 1;\n"), func(string) bool { return true }); err == nil {
		t.Error("a file without the union was accepted")
	}
}

func TestWriteCreatesTree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := Write(dir, []File{{Path: "v2/A.json", Data: []byte("{}")}, {Path: "B.ts", Data: []byte("x")}}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"v2/A.json", "B.ts"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".gen-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// referenceDir is dir under ../shared/reference, from the main checkout or a worktree beside it.
func referenceDir(dir string) string {
	for _, up := range []string{"../../../..", "../../../../.."} {
		p := filepath.Join(up, "shared/reference", dir)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return filepath.Join("../../../../shared/reference", dir)
}
