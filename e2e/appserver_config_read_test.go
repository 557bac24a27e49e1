package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// config/read lists every key Codex 0.169 knows, null when unset, with the defaults it
// fills in. Codex's exact answers (key order kept, the world's paths put back as $WORK and
// so on) are in configReadGolden; with the reference installed, GOCODEX_RECORD_CONFIG_READ=1
// rewrites it:
//
//	GOCODEX_REFERENCE_CODEX=$(../shared/tools/reference-codex) GOCODEX_RECORD_CONFIG_READ=1 \
//	  go test ./e2e -run TestConfigReadMatchesReference -count=1
const configReadGolden = "testdata/codex-0.171-config-read.json"

type configReadCase struct {
	name   string
	config string // config.toml's text; $WORK is the world's work folder
}

var configReadCases = []configReadCase{
	{name: "empty config"},
	{name: "keys set", config: `model = "gpt-5.4"
model_reasoning_effort = "high"
approval_policy = "on-request"
project_doc_fallback_filenames = ["CLAUDE.md"]

[history]
persistence = "none"

[shell_environment_policy]
inherit = "core"

[profiles.fast]
model = "gpt-5.4"

[sandbox_workspace_write]
network_access = true

[features]
mentions_v2 = false

[mcp_servers.local]
command = "docs-server"
args = ["--stdio"]

[mcp_servers.web]
url = "http://127.0.0.1:9/mcp"

[model_providers.mock]
name = "Mock"
base_url = "http://127.0.0.1:9/v1"
env_key = "MOCK_API_KEY"

[projects."$WORK"]
trust_level = "trusted"
`},
}

// configReadAnswer is bin's config/read answer for the case's config.toml, as it was written
// (its keys in their order), with the world's paths put back.
func configReadAnswer(t *testing.T, bin string, cc configReadCase) json.RawMessage {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.CodexHome, "config.toml"), strings.ReplaceAll(cc.config, "$WORK", e.Workdir))
	c, stop := e.startAppServerOf(bin)
	defer stop()
	raw, em := c.call("config/read", map[string]any{})
	if em != nil {
		t.Fatalf("%s: config/read: %d %s", cc.name, em.Error.Code, em.Error.Message)
	}
	return json.RawMessage(e.unexpand(string(raw)))
}

// configSummary is what must match of a config/read answer: the config's keys in order
// (Codex writes the first ones in a fixed order and the rest in no fixed order, so those are
// sorted), its values, and the origins.
func configSummary(raw json.RawMessage) []string {
	var r struct {
		Config  json.RawMessage `json:"config"`
		Origins json.RawMessage `json:"origins"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return []string{"invalid: " + err.Error()}
	}
	keys := orderedKeys(r.Config)
	fixed := min(len(keys), len(codexConfigFixedKeys))
	rest := append([]string(nil), keys[fixed:]...)
	sort.Strings(rest)
	out := []string{"first keys: " + strings.Join(keys[:fixed], ","), "other keys: " + strings.Join(rest, ",")}
	var config map[string]any
	_ = json.Unmarshal(r.Config, &config)
	for _, k := range rest {
		v, _ := json.Marshal(config[k]) // nested keys sorted
		out = append(out, k+" = "+string(v))
	}
	for _, k := range keys[:fixed] {
		v, _ := json.Marshal(config[k])
		out = append(out, k+" = "+string(v))
	}
	var origins any
	_ = json.Unmarshal(r.Origins, &origins)
	o, _ := json.Marshal(origins)
	// A file's version is its hash, and the file names the world's work folder.
	o = layerVersion.ReplaceAll(o, []byte("sha256:…"))
	return append(out, "origins: "+string(o), "answer keys: "+strings.Join(orderedKeys(raw), ","))
}

var layerVersion = regexp.MustCompile(`sha256:[0-9a-f]{64}`)

// codexConfigFixedKeys are the keys Codex 0.169 writes first, in this order.
var codexConfigFixedKeys = []string{"model", "review_model", "model_context_window", "model_auto_compact_token_limit",
	"model_auto_compact_token_limit_scope", "model_provider", "approval_policy", "approvals_reviewer", "sandbox_mode",
	"sandbox_workspace_write", "forced_chatgpt_workspace_id", "forced_login_method", "web_search", "client_search_provider",
	"tools", "instructions", "developer_instructions", "compact_prompt", "model_reasoning_effort", "model_reasoning_summary",
	"model_verbosity", "service_tier", "analytics", "apps", "browser_use", "computer_use", "desktop"}

// orderedKeys are a JSON object's keys in the order they are written.
func orderedKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		keys = append(keys, fmt.Sprint(tok))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

func TestRecordConfigReadReference(t *testing.T) {
	ref := os.Getenv("GOCODEX_REFERENCE_CODEX_171")
	if ref == "" {
		t.Skip("set GOCODEX_REFERENCE_CODEX_171 to the Codex 0.171 binary")
	}
	if os.Getenv("GOCODEX_RECORD_CONFIG_READ") == "" {
		t.Skip("set GOCODEX_RECORD_CONFIG_READ=1 to rewrite " + configReadGolden)
	}
	var out bytes.Buffer
	out.WriteString("{\n")
	for i, cc := range configReadCases {
		name, _ := json.Marshal(cc.name)
		fmt.Fprintf(&out, "  %s: %s", name, configReadAnswer(t, ref, cc))
		if i < len(configReadCases)-1 {
			out.WriteString(",")
		}
		out.WriteString("\n")
	}
	out.WriteString("}\n")
	if err := os.WriteFile(configReadGolden, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// gocodex's config/read has Codex 0.171's keys, in its order, with the same values and
// origins, for an empty config and one with a few keys set (live too where the reference is
// installed).
func TestConfigReadMatchesReference(t *testing.T) {
	data, err := os.ReadFile(configReadGolden)
	if err != nil {
		t.Fatal(err)
	}
	var golden map[string]json.RawMessage
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	ref := os.Getenv("GOCODEX_REFERENCE_CODEX_171")
	for _, cc := range configReadCases {
		t.Run(cc.name, func(t *testing.T) {
			want, ok := golden[cc.name]
			if !ok {
				t.Fatalf("%q is not in %s: record it", cc.name, configReadGolden)
			}
			ours := configSummary(configReadAnswer(t, binary, cc))
			if diff := cmp.Diff(configSummary(want), ours); diff != "" {
				t.Errorf("(-codex 0.171 +ours):\n%s", diff)
			}
			if ref != "" {
				if diff := cmp.Diff(configSummary(configReadAnswer(t, ref, cc)), ours); diff != "" {
					t.Errorf("(-live codex +ours):\n%s", diff)
				}
			}
		})
	}
}
