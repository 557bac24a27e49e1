package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pelletier/go-toml/v2"

	"github.com/gocodex/gocodex/internal/config"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ (mcp and execpolicy)")

// The golden files were first written from `codex mcp list|get` of Codex 0.169 on the same
// config files (with `codex mcp remove` read as `gocodex mcp remove`).
func TestCLIOutputGolden(t *testing.T) {
	for _, cfgName := range []string{"full", "plain"} {
		src, err := os.ReadFile(filepath.Join("testdata", "mcp", cfgName+".toml"))
		if err != nil {
			t.Fatal(err)
		}
		var file struct {
			McpServers map[string]config.McpServerConfig `toml:"mcp_servers"`
		}
		if err := toml.Unmarshal(src, &file); err != nil {
			t.Fatal(err)
		}
		servers := file.McpServers
		check := func(name string, write func(*bytes.Buffer) error) {
			t.Helper()
			var buf bytes.Buffer
			if err := write(&buf); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "mcp", cfgName+"."+name)
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), buf.String()); diff != "" {
				t.Errorf("%s (-want +got):\n%s", path, diff)
			}
		}
		check("list.json", func(b *bytes.Buffer) error { return WriteMcpListJSON(b, servers, nil) })
		check("list.txt", func(b *bytes.Buffer) error { return WriteMcpList(b, servers, nil) })
		names := make([]string, 0, len(servers))
		for n := range servers {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			check("get."+n+".json", func(b *bytes.Buffer) error { return WriteMcpGetJSON(b, n, servers[n]) })
			check("get."+n+".txt", func(b *bytes.Buffer) error { return WriteMcpGet(b, n, servers[n]) })
		}
	}
}

func TestListWithoutServers(t *testing.T) {
	var txt, js bytes.Buffer
	if err := WriteMcpList(&txt, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := WriteMcpListJSON(&js, nil, nil); err != nil {
		t.Fatal(err)
	}
	if txt.String() != NoServersMessage+"\n" || js.String() != "[]\n" {
		t.Errorf("empty list = %q / %q", txt.String(), js.String())
	}
}

func TestValidateServerName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"docs", true}, {"my-tool_2", true}, {"a:b@c/d.e", true},
		{"", false}, {"bad name", false}, {"é", false}, {"x=y", false},
	} {
		err := ValidateMcpServerName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("ValidateMcpServerName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "invalid server name '"+tc.name+"'") {
			t.Errorf("message = %v", err)
		}
	}
}

func TestParseEnvPair(t *testing.T) {
	for _, tc := range []struct {
		in, k, v string
		ok       bool
	}{
		{"A=1", "A", "1", true}, {"A=", "A", "", true}, {"A=b=c", "A", "b=c", true},
		{"A", "", "", false}, {"=1", "", "", false},
	} {
		k, v, err := ParseEnvPair(tc.in)
		if (err == nil) != tc.ok || k != tc.k || v != tc.v {
			t.Errorf("ParseEnvPair(%q) = %q, %q, %v", tc.in, k, v, err)
		}
	}
}
