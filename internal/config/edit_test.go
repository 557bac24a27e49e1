package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestApplyEdits(t *testing.T) {
	type server struct {
		Command string            `toml:"command"`
		Args    []string          `toml:"args,omitempty"`
		Env     map[string]string `toml:"env,omitempty"`
	}
	tests := []struct {
		name  string
		src   string
		edits []Edit
		want  string
	}{
		{
			name:  "replace root value keeps comment",
			src:   "# top\nmodel = 'o3'   # mine\napproval_policy = \"never\"\n",
			edits: []Edit{Set([]string{"model"}, "gpt-5")},
			want:  "# top\nmodel = \"gpt-5\"   # mine\napproval_policy = \"never\"\n",
		},
		{
			name:  "new root key after last root key",
			src:   "model = \"o3\"\n\n# providers\n[model_providers.x]\nname = \"X\"\n",
			edits: []Edit{Set([]string{"sandbox_mode"}, "read-only")},
			want:  "model = \"o3\"\nsandbox_mode = \"read-only\"\n\n# providers\n[model_providers.x]\nname = \"X\"\n",
		},
		{
			name:  "new root key above first section and its comment",
			src:   "# header\n\n# providers\n[model_providers.x]\nname = \"X\"\n",
			edits: []Edit{Set([]string{"model"}, "o3")},
			want:  "# header\n\nmodel = \"o3\"\n\n# providers\n[model_providers.x]\nname = \"X\"\n",
		},
		{
			name:  "key into existing section",
			src:   "[history]\npersistence = \"none\" # quiet\n\n[tools]\nview_image = true\n",
			edits: []Edit{Set([]string{"history", "max_bytes"}, 1024)},
			want:  "[history]\npersistence = \"none\" # quiet\nmax_bytes = 1024\n\n[tools]\nview_image = true\n",
		},
		{
			name:  "dotted siblings are followed",
			src:   "model = \"o3\"\nfeatures.web_search = true\n\n[tools]\nview_image = true\n",
			edits: []Edit{Set([]string{"features", "unified_exec"}, false)},
			want:  "model = \"o3\"\nfeatures.web_search = true\nfeatures.unified_exec = false\n\n[tools]\nview_image = true\n",
		},
		{
			name:  "new section at end",
			src:   "model = \"o3\"",
			edits: []Edit{Set([]string{"projects", "/home/me/p", "trust_level"}, "trusted")},
			want:  "model = \"o3\"\n\n[projects.\"/home/me/p\"]\ntrust_level = \"trusted\"\n",
		},
		{
			name:  "into empty file",
			src:   "",
			edits: []Edit{Set([]string{"mcp_servers", "docs"}, server{Command: "npx", Args: []string{"-y", "docs-mcp"}, Env: map[string]string{"B": "2", "A": "1"}})},
			want:  "[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs-mcp\"]\n\n[mcp_servers.docs.env]\nA = \"1\"\nB = \"2\"\n",
		},
		{
			name: "replace table in place",
			src: "# servers\n[mcp_servers.a]\ncommand = \"old\" # old one\n\n[mcp_servers.a.env]\nK = \"v\"\n\n" +
				"# b is mine\n[mcp_servers.b]\nurl = \"http://127.0.0.1:1/mcp\"\n",
			edits: []Edit{Set([]string{"mcp_servers", "a"}, server{Command: "new"})},
			want: "# servers\n[mcp_servers.a]\ncommand = \"new\"\n\n" +
				"# b is mine\n[mcp_servers.b]\nurl = \"http://127.0.0.1:1/mcp\"\n",
		},
		{
			name:  "replace in place with a sub-table",
			src:   "[mcp_servers.a] # mine\ncommand = \"old\"\n\n[other]\nx = 1\n",
			edits: []Edit{Set([]string{"mcp_servers", "a"}, map[string]any{"command": "new", "env": map[string]string{"K": "V"}})},
			want:  "[mcp_servers.a]\ncommand = \"new\"\n\n[mcp_servers.a.env]\nK = \"V\"\n\n[other]\nx = 1\n",
		},
		{
			name:  "remove table with sub-tables",
			src:   "model = \"o3\"\n\n[mcp_servers.a]\ncommand = \"x\"\n\n[mcp_servers.a.env]\nK = \"v\"\n\n[mcp_servers.b]\ncommand = \"y\"\n",
			edits: []Edit{Remove([]string{"mcp_servers", "a"})},
			want:  "model = \"o3\"\n\n[mcp_servers.b]\ncommand = \"y\"\n",
		},
		{
			name:  "remove last table",
			src:   "model = \"o3\"\n\n[mcp_servers.a]\ncommand = \"x\"\n",
			edits: []Edit{Remove([]string{"mcp_servers", "a"})},
			want:  "model = \"o3\"\n",
		},
		{
			name:  "remove missing is a no-op",
			src:   "model = \"o3\"\n",
			edits: []Edit{Remove([]string{"mcp_servers", "zzz"})},
			want:  "model = \"o3\"\n",
		},
		{
			name:  "remove key keeps neighbours",
			src:   "a = 1\n# about b\nb = [\n  1,\n  2, # two\n]\nc = 3\n",
			edits: []Edit{Remove([]string{"b"})},
			want:  "a = 1\n# about b\nc = 3\n",
		},
		{
			name:  "inline table value edited",
			src:   "[mcp_servers]\ndocs = { command = \"npx\", args = [\"x\"] } # inline\n",
			edits: []Edit{Set([]string{"mcp_servers", "docs", "enabled"}, false)},
			want:  "[mcp_servers]\ndocs = { args = [\"x\"], command = \"npx\", enabled = false } # inline\n",
		},
		{
			name:  "nil removes",
			src:   "model = \"o3\"\nsandbox_mode = \"read-only\"\n",
			edits: []Edit{Set([]string{"model"}, nil)},
			want:  "sandbox_mode = \"read-only\"\n",
		},
		{
			name:  "upsert merges",
			src:   "[shell_environment_policy]\ninherit = \"core\" # keep\n",
			edits: []Edit{Upsert([]string{"shell_environment_policy"}, map[string]any{"exclude": []string{"AWS_*"}, "inherit": "all"})},
			want:  "[shell_environment_policy]\ninherit = \"all\" # keep\nexclude = [\"AWS_*\"]\n",
		},
		{
			name:  "crlf file stays crlf",
			src:   "model = \"o3\"\r\n\r\n[history]\r\npersistence = \"none\"\r\n",
			edits: []Edit{Set([]string{"history", "max_bytes"}, 5), Set([]string{"tools", "view_image"}, true)},
			want:  "model = \"o3\"\r\n\r\n[history]\r\npersistence = \"none\"\r\nmax_bytes = 5\r\n\r\n[tools]\r\nview_image = true\r\n",
		},
		{
			name:  "quoted keys and strings",
			src:   "",
			edits: []Edit{Set([]string{"shell_environment_policy", "set", "MY VAR"}, "a \"b\"\n\\c")},
			want:  "[shell_environment_policy.set]\n\"MY VAR\" = \"a \\\"b\\\"\\n\\\\c\"\n",
		},
		{
			name:  "float and scalar replaces table",
			src:   "[x]\na = 1\n",
			edits: []Edit{Set([]string{"mcp_servers", "s", "startup_timeout_sec"}, 30.0), Set([]string{"x"}, "flat")},
			want:  "x = \"flat\"\n\n[mcp_servers.s]\nstartup_timeout_sec = 30.0\n",
		},
		{
			name:  "scalar beside sub-tables gets its own section",
			src:   "[mcp_servers.a]\ncommand = \"x\"\n",
			edits: []Edit{Set([]string{"mcp_servers", "flag"}, true)},
			want:  "[mcp_servers.a]\ncommand = \"x\"\n\n[mcp_servers]\nflag = true\n",
		},
		{
			name:  "dotted keys inside a section",
			src:   "[mcp_servers]\na.command = \"x\" # c\n\n[other]\n",
			edits: []Edit{Set([]string{"mcp_servers", "a", "args"}, []string{"y"})},
			want:  "[mcp_servers]\na.command = \"x\" # c\na.args = [\"y\"]\n\n[other]\n",
		},
		{
			name:  "comment-like line inside a string is not a comment",
			src:   "[a]\nx = '''\n# looks like a comment'''\n[b]\n",
			edits: []Edit{Remove([]string{"a"}), Set([]string{"model"}, "m")},
			want:  "model = \"m\"\n\n[b]\n",
		},
		{
			name:  "root key above a header whose comment follows a string",
			src:   "[a]\nx = '''\n# text'''\n# about b\n[b]\n",
			edits: []Edit{Set([]string{"a", "y"}, 1)},
			want:  "[a]\nx = '''\n# text'''\ny = 1\n# about b\n[b]\n",
		},
		{
			name:  "empty table value",
			src:   "model = \"o3\"\n",
			edits: []Edit{Set([]string{"mcp_servers", "x"}, map[string]any{})},
			want:  "model = \"o3\"\n\n[mcp_servers.x]\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyEdits([]byte(tt.src), tt.edits...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyEditsErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		edit Edit
		want string
	}{
		{"parent is a scalar", "model = \"o3\"\n", Set([]string{"model", "x"}, 1), "model is not a table"},
		{"array of tables", "[[x]]\na = 1\n", Set([]string{"x", "b"}, 1), "array of tables"},
		{"empty path", "", Set(nil, 1), "empty key path"},
		{"null in array", "", Set([]string{"a"}, []any{nil}), "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ApplyEdits([]byte(tt.src), tt.edit)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want containing %q", err, tt.want)
			}
		})
	}
}

// TestEditFileRoundTrip edits a richly commented config and checks that the
// only bytes that change are the ones the edit owns.
func TestEditFileRoundTrip(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("testdata", "commented.toml"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, orig, 0o640); err != nil {
		t.Fatal(err)
	}
	add := McpServerConfig{Command: "npx", Args: []string{"-y", "@acme/mcp"}, Env: map[string]string{"ACME": "1"}}
	if err := SetTable(path, []string{"mcp_servers", "acme"}, add); err != nil {
		t.Fatal(err)
	}
	added, _ := os.ReadFile(path)
	// The new server goes after the last server, in the family of sections.
	wantAdded := strings.Replace(string(orig), "DOCS_TOKEN = \"x\"\n",
		"DOCS_TOKEN = \"x\"\n\n[mcp_servers.acme]\ncommand = \"npx\"\nargs = [\"-y\", \"@acme/mcp\"]\n\n[mcp_servers.acme.env]\nACME = \"1\"\n", 1)
	if diff := cmp.Diff(wantAdded, string(added)); diff != "" {
		t.Fatalf("after add (-want +got):\n%s", diff)
	}
	if err := RemoveTable(path, []string{"mcp_servers", "acme"}); err != nil {
		t.Fatal(err)
	}
	back, _ := os.ReadFile(path)
	if diff := cmp.Diff(string(orig), string(back)); diff != "" {
		t.Fatalf("add then remove is not byte for byte (-want +got):\n%s", diff)
	}
	if err := SetValue(path, []string{"model"}, "gpt-5.5"); err != nil {
		t.Fatal(err)
	}
	changed, _ := os.ReadFile(path)
	want := strings.Replace(string(orig), `model = "gpt-5"`, `model = "gpt-5.5"`, 1)
	if diff := cmp.Diff(want, string(changed)); diff != "" {
		t.Fatalf("set model (-want +got):\n%s", diff)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestEditFileCreatesAndRejectsMalformed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "config.toml")
	if err := SetValue(path, []string{"model"}, "o3"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "model = \"o3\"\n" {
		t.Fatalf("got %q", got)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v, want 0600", st.Mode().Perm())
	}
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("a = 1\nb = [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := SetValue(bad, []string{"model"}, "o3")
	if err == nil || !strings.Contains(err.Error(), bad+":2:6: ") {
		t.Fatalf("err = %v, want file:line:col", err)
	}
	if err := os.WriteFile(bad, []byte("a = 1\na = 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = SetValue(bad, []string{"model"}, "o3")
	if err == nil || !strings.Contains(err.Error(), bad+":2:1: key a is already defined") {
		t.Fatalf("err = %v, want file:line:col", err)
	}
	if got, _ := os.ReadFile(bad); string(got) != "a = 1\na = 2\n" {
		t.Errorf("malformed file was rewritten: %q", got)
	}
}

func TestEditFileKeepsSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.toml")
	link := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(real, []byte("model = \"a\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	if err := SetValue(link, []string{"model"}, "b"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("config.toml is no longer a symlink")
	}
	if got, _ := os.ReadFile(real); string(got) != "model = \"b\"\n" {
		t.Errorf("target = %q", got)
	}
}
