package config

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/pelletier/go-toml/v2"
)

var fuzzSeeds = []string{
	"",
	"model = \"o3\"\n",
	"model = \"x\"\nfoo = [1,\nbar = 1\n",
	"[mcp_servers.a]\ncommand = \"x\"\nargs = [\n  \"y\", # c\n]\n",
	"a = { b = { c = 1 } }\n[[arr]]\nx = 1\n",
	"approval_policy = { granular = { rules = true } }\nsandbox_mode = 'bogus'\n",
	"model = \"x\n",
	"[profiles.p]\nmodel_reasoning_effort = 3\nprofile = \"p\"\n",
	"a = 1\r\nb = 2\r\n",
	"\"quoted key\" = '''\nmulti\n'''\n",
	"x = 1979-05-27T07:32:00Z\n[projects.\"/tmp\"]\ntrust_level = \"trusted\"\n",
	"profile = \"/\"\n",
	"profile = \"a\\u0000b\"\n",
	"model_instructions_file = \"\\u0000\"\n",
}

// FuzzLoad feeds arbitrary bytes as config.toml: Load must never panic, and
// a file that is not valid TOML must give a ParseError with a position.
func FuzzLoad(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	home := f.TempDir()
	path := filepath.Join(home, "config.toml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := Load(LoadOptions{CodexHome: home, Cwd: home, Env: func(string) string { return "" }})
		var m map[string]any
		valid := toml.Unmarshal(data, &m) == nil
		if valid && err == nil {
			return
		}
		if !valid && err == nil {
			t.Fatalf("malformed input loaded without error")
		}
		// Every error a file can cause, syntax or value, names the file
		// and a position in it.
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("input gave %v, want a ParseError", err)
		}
		if pe.File != path || pe.Line < 1 || pe.Column < 1 {
			t.Fatalf("error without file/line/column: %#v", pe)
		}
	})
}

// FuzzApplyEdits checks that edits of any valid document stay valid, change
// only what they own, and that adding then removing a table restores the
// same data.
func FuzzApplyEdits(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), "k")
	}
	f.Fuzz(func(t *testing.T, src []byte, key string) {
		var before map[string]any
		if toml.Unmarshal(src, &before) != nil || key == "" {
			return
		}
		if _, taken := before["zz_fuzz"]; taken {
			return
		}
		path := []string{"zz_fuzz", key}
		added, err := ApplyEdits(src, Set(path, map[string]any{"v": key, "t": map[string]any{"x": 1}}))
		if !utf8.ValidString(key) {
			if err == nil {
				t.Fatalf("invalid UTF-8 key accepted")
			}
			return
		}
		if err != nil {
			t.Fatalf("add: %v", err)
		}
		var mid map[string]any
		if err := toml.Unmarshal(added, &mid); err != nil {
			t.Fatalf("add produced invalid TOML: %v\n%s", err, added)
		}
		if got, _ := getPath(mid, append(path, "v")); got != key {
			t.Fatalf("added value = %v", got)
		}
		removed, err := ApplyEdits(added, Remove([]string{"zz_fuzz"}))
		if err != nil {
			t.Fatalf("remove: %v", err)
		}
		var after map[string]any
		if err := toml.Unmarshal(removed, &after); err != nil {
			t.Fatalf("remove produced invalid TOML: %v", err)
		}
		if diff := cmp.Diff(before, after); diff != "" {
			t.Fatalf("add+remove changed the data (-before +after):\n%s\nsrc=%q\nout=%q", diff, src, removed)
		}
		checkReplace(t, src, before)
	})
}

// checkReplace overwrites the first existing key (and the first key of its
// table, if it is one) and checks that exactly that value changed.
func checkReplace(t *testing.T, src []byte, before map[string]any) {
	keys := make([]string, 0, len(before))
	for k := range before {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 || !utf8.ValidString(keys[0]) {
		return
	}
	path := []string{keys[0]}
	if sub, ok := before[keys[0]].(map[string]any); ok {
		for k := range sub {
			if utf8.ValidString(k) && (len(path) == 1 || k < path[1]) {
				path = []string{keys[0], k}
			}
		}
	}
	out, err := ApplyEdits(src, Set(path, "fuzz"))
	if err != nil {
		if _, isArray := before[keys[0]].([]any); isArray && len(path) == 1 {
			t.Fatalf("replace %v: %v", path, err)
		}
		return // e.g. a key inside an array of tables
	}
	var after map[string]any
	if err := toml.Unmarshal(out, &after); err != nil {
		t.Fatalf("replace produced invalid TOML: %v\nsrc=%q\nout=%q", err, src, out)
	}
	want := deepCopy(before)
	setPath(want, path, "fuzz")
	if diff := cmp.Diff(want, after); diff != "" {
		t.Fatalf("replace %v (-want +got):\n%s\nsrc=%q\nout=%q", path, diff, src, out)
	}
}

func deepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			v = deepCopy(sub)
		}
		out[k] = v
	}
	return out
}
