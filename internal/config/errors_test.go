package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWarnings(t *testing.T) {
	f := newFixture(t)
	path := f.userConfig(`model = "o3"
tui = { notifications = true }   # Codex knows this one; gocodex says it does not support it
frobnicate = 1

[mcp_servers.docs]
command = "npx"
colour = "blue"

[model_providers.local]
base_url = "http://127.0.0.1:1/v1"
bogus_field = true

[features]
anything_goes = true
`)
	o := f.opts()
	o.CLIOverrides = []string{"nonsense.key=1"}
	_, warns := f.load(o)
	type w struct {
		File      string
		Line, Col int
		Key       string
	}
	var got []w
	for _, x := range warns {
		got = append(got, w{x.File, x.Line, x.Column, strings.Join(x.Key, ".")})
	}
	want := []w{
		{path, 14, 1, "features.anything_goes"},
		{path, 3, 1, "frobnicate"},
		{path, 7, 1, "mcp_servers.docs.colour"},
		{path, 11, 1, "model_providers.local.bogus_field"},
		{path, 2, 9, "tui.notifications"},
		{"-c", 0, 0, "nonsense"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s\n%v", diff, warns)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		cli  []string
		want string // substring; %s is the config path
	}{
		{name: "syntax", file: "model = \"x\"\nfoo = [1,\nbar = 1\n", want: "%s:3:1: unexpected character"},
		{name: "unterminated string", file: "model = \"x\n", want: "%s:1:"},
		{name: "duplicate key", file: "model = \"a\"\nmodel = \"b\"\n", want: "%s:2:1: key model is already defined"},
		{name: "type", file: "\n\nmodel_context_window = \"big\"\n", want: "%s:3:24: invalid type: string \"big\", expected an integer\nin `model_context_window`"},
		{name: "nested type", file: "[history]\nmax_bytes = true\n", want: "%s:2:13: invalid type: boolean `true`, expected an integer"},
		{name: "enum", file: "model = \"x\"\nsandbox_mode = \"bogus\"\n",
			want: "%s:2:16: unknown variant `bogus`, expected one of `read-only`, `workspace-write`, `danger-full-access`\nin `sandbox_mode`"},
		{name: "approval", file: "approval_policy = \"sometimes\"\n", want: "%s:1:19: unknown variant `sometimes`"},
		{name: "profile enum", file: "profile = \"p\"\n[profiles.p]\nmodel_reasoning_effort = \"max\"\n", want: "%s:3:26: unknown variant `max`"},
		{name: "cli type", cli: []string{"model_context_window=abc"}, want: "-c model_context_window=abc: invalid type: string \"abc\", expected an integer"},
		{name: "cli enum", cli: []string{"history.persistence=some"}, want: "-c history.persistence=some: unknown variant `some`"},
		{name: "cli bad syntax", cli: []string{"novalue"}, want: "Invalid override (missing '='): novalue"},
		{name: "unknown wire api", file: "[model_providers.x]\nname = \"X\"\nwire_api = \"grpc\"\n", want: "%s:3:12: unknown wire_api \"grpc\" for model provider \"X\": expected \"responses\", \"anthropic\" or \"chat\""},
		{name: "unknown provider", file: "model_provider = \"nope\"\n", want: "%s:1:18: Model provider `nope` not found"},
		{name: "mcp both", file: "[mcp_servers.a]\ncommand = \"x\"\nurl = \"http://127.0.0.1\"\n", want: "%s:1:14: url is not supported for stdio\nin `mcp_servers.a`"},
		{name: "mcp neither", file: "[mcp_servers.a]\nenabled = true\n", want: "%s:1:14: invalid transport"},
		{name: "mcp http with args", file: "[mcp_servers.a]\nurl = \"http://127.0.0.1\"\nargs = []\n", want: "args is not supported for streamable_http"},
		{name: "mcp stdio with headers", file: "[mcp_servers.a]\ncommand = \"x\"\nhttp_headers = { A = \"1\" }\n", want: "http_headers is not supported for stdio"},
		{name: "array expected", file: "notify = \"x\"\n", want: "%s:1:10: invalid type: string \"x\", expected a sequence"},
		{name: "profile type", file: "[profiles.p]\nmodel = 5\n", want: "%s:2:9: invalid type: integer `5`, expected a string\nin `profiles.p.model`"},
		{name: "reserved provider", file: "[model_providers.openai]\nname = \"Mine\"\n",
			want: "%s:1:2: model_providers contains reserved built-in provider IDs: `openai`. Built-in providers cannot be overridden. Rename your custom provider (for example, `openai-custom`).\nin `model_providers`"},
		{name: "instructions file", file: "model_instructions_file = \"missing.md\"\n", want: "failed to read model instructions file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			path := filepath.Join(f.home, "config.toml")
			if tt.file != "" {
				f.userConfig(tt.file)
			}
			o := f.opts()
			o.CLIOverrides = tt.cli
			_, _, err := Load(o)
			want := strings.ReplaceAll(tt.want, "%s", path)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v\nwant containing %q", err, want)
			}
			var pe *ParseError
			if tt.file != "" && errors.As(err, &pe) && pe.File == path && pe.Line == 0 {
				t.Errorf("file error without a line: %v", err)
			}
		})
	}
}

// The terminal UI reads tui.alternate_screen: no warning for it, one for each other [tui] key.
func TestTUIAlternateScreenIsKnown(t *testing.T) {
	f := newFixture(t)
	f.userConfig("[tui]\nalternate_screen = \"always\"\nanimations = false\n")
	_, warns := f.load(f.opts())
	var keys []string
	for _, w := range warns {
		keys = append(keys, strings.Join(w.Key, "."))
	}
	if len(keys) != 1 || keys[0] != "tui.animations" {
		t.Errorf("warnings for keys %q, want only tui.animations", keys)
	}
}
