package config

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// appliedKeys are the Codex 0.169 top-level keys gocodex acts on, with a sample value for
// each; every other key Codex accepts must be reported as not supported.
var appliedKeys = map[string]string{
	"allow_login_shell":                `true`,
	"approval_policy":                  `"on-request"`,
	"chatgpt_base_url":                 `"https://chatgpt.example/backend-api/"`,
	"check_for_update_on_startup":      `false`, // its default: gocodex never checks
	"cli_auth_credentials_store":       `"file"`,
	"compact_prompt":                   `"summarise"`,
	"agents":                           `{ max_threads = 2, max_depth = 1 }`, // internal/app/subagents.go reads it
	"developer_instructions":           `"dev"`,
	"experimental_compact_prompt_file": `"compact.md"`,
	"features":                         `{ default_mode_request_user_input = true }`,
	"file_opener":                      `"vscode"`, // its default
	"forced_chatgpt_workspace_id":      `"ws"`,
	"forced_login_method":              `"api"`,
	"hide_agent_reasoning":             `false`, // its default
	"history":                          `{ persistence = "none", max_bytes = 1000 }`,
	"hooks":                            `{}`, // internal/hooks reads it
	"instructions":                     `"be brief"`,
	"log_dir":                          `"logs"`,
	"mcp_oauth_callback_port":          `8765`,
	"mcp_oauth_credentials_store":      `"file"`,
	"mcp_optional_startup_grace_ms":    `100`,
	"mcp_servers":                      `{ docs = { command = "docs-server" } }`,
	"model":                            `"gpt-5.5"`,
	"model_auto_compact_token_limit":   `1000`,
	"model_context_window":             `200000`,
	"model_instructions_file":          `"base.md"`,
	"model_provider":                   `"openai"`,
	"model_providers":                  `{ local = { name = "Local", base_url = "http://127.0.0.1:1/v1" } }`,
	"model_reasoning_effort":           `"high"`,
	"model_reasoning_summary":          `"concise"`,
	"model_verbosity":                  `"low"`,
	"notify":                           `["notify-send"]`,
	"openai_base_url":                  `"https://api.example/v1"`,
	"oss_provider":                     `"ollama"`,
	"profile":                          `"fast"`,
	"profiles":                         `{ fast = { model = "gpt-5.5" } }`,
	"project_doc_fallback_filenames":   `["CLAUDE.md"]`,
	"project_doc_max_bytes":            `1000`,
	"project_root_markers":             `[".git"]`,
	"projects":                         `{ "/nowhere" = { trust_level = "trusted" } }`,
	"review_model":                     `"gpt-5.5"`,
	"sandbox_mode":                     `"workspace-write"`,
	"sandbox_workspace_write":          `{ network_access = true }`,
	"service_tier":                     `"flex"`,
	"shell_environment_policy":         `{ inherit = "core" }`,
	"show_raw_agent_reasoning":         `false`, // its default
	"skills":                           `{}`,    // internal/skills reads it
	"thread_unload_delay_secs":         `60`,
	"tool_output_token_limit":          `1000`,
	"tools":                            `{ view_image = true }`,
	"web_search":                       `"live"`,
}

// unsupportedTyped are unsupported keys the File schema still decodes (older configs hold
// them), so their sample value has the right type.
var unsupportedTyped = map[string]string{
	"experimental_use_unified_exec_tool": `true`, "suppress_unstable_features_warning": `true`, "sqlite_home": `"db"`,
}

// TestEveryCodexKeyIsAppliedOrWarned loads a configuration holding every key Codex 0.169's
// config/read lists (testdata, recorded from the reference binary) and checks that each is
// either one gocodex applies or named in a "not supported" warning, once.
func TestEveryCodexKeyIsAppliedOrWarned(t *testing.T) {
	raw, err := os.ReadFile("testdata/codex-0.169-config-keys.txt")
	if err != nil {
		t.Fatal(err)
	}
	keys := strings.Fields(string(raw))
	if len(keys) != 107 {
		t.Fatalf("%d keys in the fixture, Codex 0.169 lists 107", len(keys))
	}
	f := newFixture(t)
	f.write(filepath.Join(f.home, "compact.md"), "compact\n")
	f.write(filepath.Join(f.home, "base.md"), "base\n")
	var b strings.Builder
	for _, k := range keys {
		v, ok := appliedKeys[k]
		if !ok {
			v = `"some value"` // gocodex must not look at it, whatever its type in Codex
			if typed, ok := unsupportedTyped[k]; ok {
				v = typed
			}
		}
		b.WriteString(k + " = " + v + "\n")
	}
	for k := range appliedKeys {
		if !strings.Contains(string(raw), "\n"+k+"\n") && !strings.HasPrefix(string(raw), k+"\n") {
			t.Errorf("appliedKeys has %s, which Codex does not list", k)
		}
	}
	path := f.userConfig(b.String())
	_, warns := f.load(f.opts())

	unsupported := map[string]int{}
	for _, w := range warns {
		if strings.Contains(w.Message, "gocodex does not support") {
			unsupported[strings.Join(w.Key, ".")]++
			if w.File != path || w.Line == 0 {
				t.Errorf("warning without its place: %v", w)
			}
		}
		if strings.Contains(w.Message, "unknown") {
			t.Errorf("a key Codex accepts is called unknown: %v", w)
		}
	}
	var missing []string
	for _, k := range keys {
		_, applied := appliedKeys[k]
		switch n := unsupported[k]; {
		case applied && n > 0:
			t.Errorf("%s is applied but warned about", k)
		case !applied && n == 0:
			missing = append(missing, k)
		case n > 1:
			t.Errorf("%s warned about %d times", k, n)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("keys neither applied nor warned about: %v", missing)
	}
}

// Keys gocodex leaves at their default are fine there; another value is reported.
func TestDefaultOnlyKeysWarnOffDefault(t *testing.T) {
	f := newFixture(t)
	f.userConfig("check_for_update_on_startup = true\nhide_agent_reasoning = true\nfile_opener = \"cursor\"\nshow_raw_agent_reasoning = false\n")
	_, warns := f.load(f.opts())
	var got []string
	for _, w := range warns {
		got = append(got, strings.Join(w.Key, "."))
	}
	if strings.Join(got, " ") != "check_for_update_on_startup file_opener hide_agent_reasoning" {
		t.Fatalf("warnings for %v: %v", got, warns)
	}
}

// An unknown key is reported with the closest known one, at the top level, in a table and
// among the feature flags.
func TestUnknownKeySuggestsClosest(t *testing.T) {
	f := newFixture(t)
	f.userConfig("modle = \"x\"\n[history]\npersistance = \"none\"\n[features]\nmemoires = true\n")
	_, warns := f.load(f.opts())
	want := map[string]string{"modle": "model", "history.persistance": "history.persistence", "features.memoires": "memories"}
	if len(warns) != len(want) {
		t.Fatalf("warnings: %v", warns)
	}
	for _, w := range warns {
		k := strings.Join(w.Key, ".")
		near := want[k]
		if i := strings.LastIndex(near, "."); i >= 0 {
			near = near[i+1:]
		}
		if !strings.Contains(w.Message, "unknown key `"+k+"`") || !strings.HasSuffix(w.Message, "did you mean `"+near+"`?") || w.Line == 0 {
			t.Errorf("warning %v", w)
		}
	}
}

// A provider's auth command, AWS signing and websockets, and unknown [tools] keys, are
// reported; the [tools] keys gocodex applies are not.
func TestProviderAndToolsKeysReported(t *testing.T) {
	f := newFixture(t)
	f.userConfig(`[model_providers.corp]
name = "Corp"
base_url = "http://127.0.0.1:1/v1"
supports_websockets = true
auth = { command = "print-token" }
aws = { profile = "p" }

[model_providers.plain]
name = "Plain"
base_url = "http://127.0.0.1:2/v1"
supports_websockets = false

[tools]
view_image = true
web_search = { context_size = "high" }
veiw_image = false
`)
	_, warns := f.load(f.opts())
	got := map[string]string{}
	for _, w := range warns {
		got[strings.Join(w.Key, ".")] = w.Message
	}
	for _, k := range []string{"model_providers.corp.auth", "model_providers.corp.aws", "model_providers.corp.supports_websockets"} {
		if !strings.Contains(got[k], "gocodex does not support") {
			t.Errorf("%s: %q", k, got[k])
		}
	}
	if !strings.Contains(got["tools.veiw_image"], "did you mean `view_image`?") {
		t.Errorf("tools.veiw_image: %q", got["tools.veiw_image"])
	}
	if len(got) != 4 {
		t.Errorf("warnings: %v", warns)
	}
}
