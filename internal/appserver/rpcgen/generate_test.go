package rpcgen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The generated layer in internal/appserver is what the generator writes from the schema
// archive the package embeds: regenerate (go generate ./internal/appserver) after changing
// either.
func TestGeneratedFilesAreUpToDate(t *testing.T) {
	s, err := LoadSchema(filepath.Join("..", "schemagen", "codex-schema.tar.zst"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(s, AppServer(Reference))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]byte{TypesFile: files.Types, APIFile: files.API} {
		got, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run `go generate ./internal/appserver`", name)
		}
	}
}

func TestTSFieldsKeepDeclarationOrderAndOptionality(t *testing.T) {
	m := &model{ts: map[string][]byte{"P": []byte(`import type { X } from "./X";

/**
 * A doc, with a comma, and braces {}.
 */
export type P = {
/**
 * Where, in order.
 */
zeta: string, alpha?: Array<X> | null, "quoted-name": { [key in string]?: X }, mid: string | null, };
`)}}
	got := m.tsFields("P")
	want := []tsField{{"zeta", false}, {"alpha", true}, {"quoted-name", false}, {"mid", false}}
	if len(got) != len(want) {
		t.Fatalf("fields %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d: %v, want %v", i, got[i], want[i])
		}
	}
	if m.tsFields("Missing") != nil {
		t.Error("a type without a file has fields")
	}
}

func TestGoNames(t *testing.T) {
	for in, want := range map[string]string{
		"threadId": "ThreadID", "path": "Path", "dataBase64": "DataBase64", "cpuPercent": "CPUPercent",
		"baseUrl": "BaseURL", "os_pid": "OSPID", "fs/readFile": "FsReadFile",
	} {
		if got := goName(in); in != "fs/readFile" && got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := methodName("thread/goal/set"); got != "ThreadGoalSet" {
		t.Errorf("methodName = %q", got)
	}
}

func TestLoadSchemaNamesWhatIsMissing(t *testing.T) {
	if _, err := LoadSchema(t.TempDir()); err == nil {
		t.Fatal("an empty directory loaded as a schema")
	}
	if _, err := LoadSchema(filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Fatal("a missing path loaded as a schema")
	}
}
