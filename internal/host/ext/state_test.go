package ext

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type partA struct {
	Names []string       `json:"names"`
	Where map[string]int `json:"where,omitempty"`
}

type partB struct {
	Tags map[string]string `json:"tags,omitempty"`
}

// whole is the document partA and partB make, as one struct would write it.
type whole struct {
	Version int               `json:"version"`
	Names   []string          `json:"names"`
	Where   map[string]int    `json:"where,omitempty"`
	Tags    map[string]string `json:"tags,omitempty"`
}

func twoParts(path string) (*Part[partA], *Part[partB]) {
	f := NewStateFile(path)
	a := AddPart(f, func(p *partA) { p.Names = []string{"first"} })
	b := AddPart[partB](f, nil)
	f.seal()
	return a, b
}

// Each extension's part lives side by side in one file: a missing file gives the initial
// parts, a change to one part keeps the others (another process's too), and the file is
// written exactly as one struct of all the fields would be (version first, then the parts'
// fields in order, one-space indent, a final newline).
func TestStatePartsShareOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", StateFileName)
	a, b := twoParts(path)
	if err := a.Read(func(p *partA) {
		if len(p.Names) != 1 || p.Names[0] != "first" {
			t.Errorf("initial part = %+v", p)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := b.Update(func(p *partB) error { p.Tags = map[string]string{"t1": "<x>"}; return nil }); err != nil {
		t.Fatal(err)
	}
	other, _ := twoParts(path) // another process over the same CODEX_HOME
	if err := other.Update(func(p *partA) error { p.Where = map[string]int{"t1": 2}; return nil }); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.MarshalIndent(whole{Version: 1, Names: []string{"first"}, Where: map[string]int{"t1": 2}, Tags: map[string]string{"t1": "<x>"}}, "", " ")
	if string(got) != string(want)+"\n" {
		t.Errorf("file =\n%s\nwant\n%s", got, want)
	}
	_ = b.Read(func(p *partB) {
		if p.Tags["t1"] != "<x>" {
			t.Errorf("part b after a's change = %+v", p)
		}
	})
	// A failing change writes nothing.
	stop := errors.New("no")
	if err := a.Update(func(p *partA) error { p.Names = nil; return stop }); err != stop {
		t.Errorf("failing update: err = %v", err)
	}
	if again, _ := os.ReadFile(path); string(again) != string(got) {
		t.Errorf("a failing update changed the file:\n%s", again)
	}
}

// A damaged file is an error that names it, for reads and changes alike, and is left as it
// is.
func TestStateFileDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), StateFileName)
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, _ := twoParts(path)
	readErr := a.Read(func(*partA) { t.Error("read a damaged file") })
	updateErr := a.Update(func(*partA) error { t.Error("changed a damaged file"); return nil })
	for _, err := range []error{readErr, updateErr} {
		if err == nil || !strings.Contains(err.Error(), "is damaged") || !strings.Contains(err.Error(), path) {
			t.Errorf("err = %v, want one naming the damaged file", err)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "{not json" {
		t.Errorf("damaged file rewritten: %q", b)
	}
}
