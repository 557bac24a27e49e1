package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// methodCase calls one app-server method with valid params in a fresh world. Params may
// name the world's directories as $HOME, $CODEX_HOME and $WORK; setup prepares files first;
// after runs once the answer is in (e.g. to make a watched file change) and names the
// notification to wait for.
type methodCase struct {
	name   string // the method, or "method (variant)"
	method string
	params any
	setup  func(t *testing.T, e *env)
	after  func(t *testing.T, e *env) (waitFor string)
	// then are further calls made after the first (their answers are recorded too).
	then []methodCall
	// files are read after the calls (a folder is listed), e.g. the config a method wrote;
	// sameFiles makes the differential test compare them too.
	files     []string
	sameFiles bool
	// probe, when set, is what the differential test compares of the first answer instead
	// of its shape; gap says why (what of Codex's gocodex does not do).
	probe func(raw json.RawMessage) string
	gap   string
}

type methodCall struct {
	method string
	params any
	// probe, when set, is what the differential test compares of the answer instead of its
	// shape (e.g. the skills a listing shows, where Codex lists bundled ones gocodex lacks).
	probe func(raw json.RawMessage) string
}

// importableItems probes an externalAgentConfig/detect answer: the items of the kinds
// gocodex imports, with their descriptions.
func importableItems(raw json.RawMessage) string {
	var r struct {
		Items []struct {
			ItemType    string `json:"itemType"`
			Description string `json:"description"`
		} `json:"items"`
	}
	_ = json.Unmarshal(raw, &r)
	var out []string
	for _, it := range r.Items {
		switch it.ItemType {
		case "AGENTS_MD", "SKILLS", "MCP_SERVER_CONFIG":
			out = append(out, it.ItemType+": "+it.Description)
		}
	}
	return strings.Join(out, "; ")
}

// nonSystemSkills probes a skills/list answer: the name, scope and state of each skill not
// bundled with Codex.
func nonSystemSkills(raw json.RawMessage) string {
	var r struct {
		Data []struct {
			Skills []struct {
				Name    string `json:"name"`
				Scope   string `json:"scope"`
				Enabled bool   `json:"enabled"`
			} `json:"skills"`
		} `json:"data"`
	}
	_ = json.Unmarshal(raw, &r)
	var out []string
	for _, d := range r.Data {
		for _, s := range d.Skills {
			if s.Scope != "system" {
				out = append(out, fmt.Sprintf("%s/%s/%v", s.Name, s.Scope, s.Enabled))
			}
		}
	}
	return strings.Join(out, " ")
}

// offlineBackend is the chatgpt_base_url every recorded world uses: a loopback port nothing
// listens on, so a method that needs the ChatGPT backend fails at once and the same way
// everywhere.
const offlineBackend = "http://127.0.0.1:9/backend-api/"

// appendConfig adds TOML to the end of the world's config.toml.
func appendConfig(t *testing.T, e *env, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(e.CodexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func withSkill(t *testing.T, e *env) {
	writeFile(t, filepath.Join(e.CodexHome, "skills", "demo", "SKILL.md"), "---\nname: demo\ndescription: A demo skill.\n---\nSay hi.\n")
}

// newMethodCases are the stable methods issue 18 adds, each with valid params.
var newMethodCases = []methodCase{
	{name: "modelProvider/capabilities/read", method: "modelProvider/capabilities/read", params: map[string]any{}},
	{name: "modelProvider/config/write", method: "modelProvider/config/write", params: map[string]any{"settings": map[string]any{"type": "customGateway", "name": "Gateway", "baseUrl": "http://127.0.0.1:9/v1", "envKey": "GATEWAY_KEY"}},
		files: []string{"$CODEX_HOME/config.toml"}, sameFiles: true},
	{name: "permissionProfile/list", method: "permissionProfile/list", params: map[string]any{}},
	{name: "permissionProfile/list (cwd, limit)", method: "permissionProfile/list", params: map[string]any{"cwd": "$WORK", "limit": 1}},
	{name: "skills/config/write", method: "skills/config/write", params: map[string]any{"enabled": false, "path": "$CODEX_HOME/skills/demo/SKILL.md"}, setup: withSkill,
		then:  []methodCall{{"skills/list", map[string]any{"cwds": []string{"$WORK"}}, nonSystemSkills}},
		files: []string{"$CODEX_HOME/config.toml"}, sameFiles: true},
	{name: "skills/config/write (by name)", method: "skills/config/write", params: map[string]any{"enabled": false, "name": "demo"}, setup: withSkill,
		files: []string{"$CODEX_HOME/config.toml"}, sameFiles: true},
	{name: "skills/extraRoots/set", method: "skills/extraRoots/set", params: map[string]any{"extraRoots": []string{"$HOME/extra-skills"}},
		setup: func(t *testing.T, e *env) {
			writeFile(t, filepath.Join(e.home(), "extra-skills", "extra", "SKILL.md"), "---\nname: extra\ndescription: An extra skill.\n---\nSay hi.\n")
		},
		then: []methodCall{{"skills/list", map[string]any{"cwds": []string{"$WORK"}}, nonSystemSkills}}},
	{name: "fs/watch", method: "fs/watch", params: map[string]any{"path": "$WORK", "watchId": "w1"},
		after: func(t *testing.T, e *env) string {
			time.Sleep(300 * time.Millisecond) // let the watcher settle before the change
			writeFile(t, filepath.Join(e.Workdir, "new.txt"), "x")
			return "fs/changed"
		},
		then: []methodCall{{"fs/unwatch", map[string]any{"watchId": "w1"}, nil}}},
	{name: "fs/watch (nested change)", method: "fs/watch", params: map[string]any{"path": "$WORK", "watchId": "w2"},
		setup: func(t *testing.T, e *env) { writeFile(t, filepath.Join(e.Workdir, "sub", "a.txt"), "a") },
		after: func(t *testing.T, e *env) string {
			time.Sleep(300 * time.Millisecond)
			writeFile(t, filepath.Join(e.Workdir, "sub", "deep.txt"), "x")
			return "fs/changed"
		}},
	{name: "fs/watch (file)", method: "fs/watch", params: map[string]any{"path": "$WORK/f.txt", "watchId": "w3"},
		setup: func(t *testing.T, e *env) { writeFile(t, filepath.Join(e.Workdir, "f.txt"), "a") },
		after: func(t *testing.T, e *env) string {
			time.Sleep(300 * time.Millisecond)
			writeFile(t, filepath.Join(e.Workdir, "f.txt"), "bb")
			return "fs/changed"
		}},
	{name: "fs/watch (missing path)", method: "fs/watch", params: map[string]any{"path": "$WORK/missing", "watchId": "w4"}},
	{name: "fs/unwatch (unknown id)", method: "fs/unwatch", params: map[string]any{"watchId": "nope"}},
	{name: "externalAgentConfig/detect", method: "externalAgentConfig/detect", params: map[string]any{"includeHome": true, "cwds": []string{"$WORK"}}},
	{name: "externalAgentConfig/detect (claude files)", method: "externalAgentConfig/detect", params: map[string]any{"includeHome": true, "cwds": []string{"$WORK"}},
		setup: func(t *testing.T, e *env) {
			writeFile(t, filepath.Join(e.Workdir, "CLAUDE.md"), "Use tabs.\n")
			writeFile(t, filepath.Join(e.home(), ".claude", "settings.json"), `{"model":"claude-sonnet-4"}`)
		}},
	{name: "externalAgentConfig/detect (home CLAUDE.md)", method: "externalAgentConfig/detect", params: map[string]any{"includeHome": true},
		setup: func(t *testing.T, e *env) {
			writeFile(t, filepath.Join(e.home(), ".claude", "CLAUDE.md"), "Be brief.\n")
		}},
	{name: "externalAgentConfig/detect (project extras)", method: "externalAgentConfig/detect", params: map[string]any{"includeHome": false, "cwds": []string{"$WORK"}},
		gap:   "gocodex detects only the items it imports: AGENTS.md, skills, project MCP servers",
		probe: importableItems,
		setup: func(t *testing.T, e *env) {
			writeFile(t, filepath.Join(e.Workdir, ".claude", "skills", "lint", "SKILL.md"), "---\nname: lint\ndescription: Lint it.\n---\nRun the linter.\n")
			writeFile(t, filepath.Join(e.Workdir, ".mcp.json"), `{"mcpServers":{"docs":{"command":"docs-server","args":["--stdio"]}}}`)
			writeFile(t, filepath.Join(e.Workdir, ".claude", "commands", "deploy.md"), "Deploy the app.\n")
			writeFile(t, filepath.Join(e.Workdir, ".claude", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews.\n---\nReview code.\n")
			writeFile(t, filepath.Join(e.Workdir, ".claude", "settings.json"), `{"permissions":{"allow":["Bash(ls)"]},"env":{"A":"b"},"model":"claude-sonnet-4"}`)
		}},
	{name: "externalAgentConfig/detect (AGENTS.md exists)", method: "externalAgentConfig/detect", params: map[string]any{"includeHome": false, "cwds": []string{"$WORK"}},
		setup: func(t *testing.T, e *env) {
			writeFile(t, filepath.Join(e.Workdir, "CLAUDE.md"), "Use tabs.\n")
			writeFile(t, filepath.Join(e.Workdir, "AGENTS.md"), "Use spaces.\n")
		}},
	{name: "externalAgentConfig/import (AGENTS_MD)", method: "externalAgentConfig/import",
		params: map[string]any{"migrationItems": []any{map[string]any{"itemType": "AGENTS_MD", "description": "Migrate", "cwd": "$WORK"}}},
		setup: func(t *testing.T, e *env) {
			writeFile(t, filepath.Join(e.Workdir, "CLAUDE.md"), "Use tabs. Claude Code rules.\n")
		},
		after: func(t *testing.T, e *env) string { return "externalAgentConfig/import/completed" },
		then:  []methodCall{{"externalAgentConfig/import/readHistories", nil, nil}},
		files: []string{"$WORK/AGENTS.md", "$WORK/CLAUDE.md"}, sameFiles: true},
	{name: "externalAgentConfig/import (skills, MCP servers)", method: "externalAgentConfig/import",
		params: map[string]any{"migrationItems": []any{
			map[string]any{"itemType": "MCP_SERVER_CONFIG", "description": "Migrate MCP", "cwd": "$WORK", "details": map[string]any{"mcpServers": []any{map[string]any{"name": "docs"}}}},
			map[string]any{"itemType": "SKILLS", "description": "Migrate skills", "cwd": "$WORK", "details": map[string]any{"skills": []any{map[string]any{"name": "lint"}}}},
		}},
		setup: func(t *testing.T, e *env) {
			writeFile(t, filepath.Join(e.Workdir, ".claude", "skills", "lint", "SKILL.md"), "---\nname: lint\ndescription: Lint it.\n---\nRun the linter.\n")
			writeFile(t, filepath.Join(e.Workdir, ".mcp.json"), `{"mcpServers":{"docs":{"command":"docs-server","args":["--stdio"],"env":{"TOKEN":"x"}}}}`)
		},
		after: func(t *testing.T, e *env) string { return "externalAgentConfig/import/completed" },
		files: []string{"$WORK/.agents/skills", "$WORK/.codex/config.toml"}, sameFiles: true},
	{name: "externalAgentConfig/import", method: "externalAgentConfig/import", params: map[string]any{"migrationItems": []any{}}},
	{name: "externalAgentConfig/import/readHistories", method: "externalAgentConfig/import/readHistories", params: nil},
	{name: "externalAgentConfig/import/recordHistory", method: "externalAgentConfig/import/recordHistory", params: map[string]any{"providerId": "claude", "itemTypeResults": []any{}},
		then: []methodCall{{"externalAgentConfig/import/readHistories", nil, nil}}},
	{name: "feedback/save", method: "feedback/save", params: map[string]any{"classification": "bug", "savePath": "$WORK/feedback", "includeLogs": false},
		files: []string{"$WORK/feedback"}, sameFiles: true},
	{name: "feedback/save (reason, logs)", method: "feedback/save", params: map[string]any{"classification": "good_result", "reason": "nice", "savePath": "$WORK/fb.zip", "includeLogs": true},
		files: []string{"$WORK/fb.zip"}},
	{name: "feedback/upload", method: "feedback/upload", params: map[string]any{"classification": "bug", "includeLogs": false}},
	{name: "windowsSandbox/readiness", method: "windowsSandbox/readiness", params: nil},
	{name: "windowsSandbox/setupStart", method: "windowsSandbox/setupStart", params: map[string]any{"mode": "unelevated"},
		after: func(t *testing.T, e *env) string { return "windowsSandbox/setupCompleted" }},
	{name: "app/installed", method: "app/installed", params: map[string]any{}},
	{name: "app/list", method: "app/list", params: map[string]any{}},
	{name: "app/read", method: "app/read", params: map[string]any{"appIds": []string{"connector_x"}}},
	{name: "plugin/installed", method: "plugin/installed", params: map[string]any{}},
	{name: "plugin/read", method: "plugin/read", params: map[string]any{"pluginName": "demo"}},
	{name: "plugin/install", method: "plugin/install", params: map[string]any{"pluginName": "demo"}},
	{name: "plugin/uninstall", method: "plugin/uninstall", params: map[string]any{"pluginId": "demo@market"}},
	{name: "plugin/reconcile", method: "plugin/reconcile", params: map[string]any{}},
	{name: "plugin/skill/read", method: "plugin/skill/read", params: map[string]any{"remoteMarketplaceName": "m", "remotePluginId": "p", "skillName": "s"}},
	{name: "plugin/share/save", method: "plugin/share/save", params: map[string]any{"pluginPath": "$WORK/plugin"}},
	{name: "plugin/share/updateTargets", method: "plugin/share/updateTargets", params: map[string]any{"remotePluginId": "p", "discoverability": "PRIVATE", "shareTargets": []any{}}},
	{name: "plugin/share/list", method: "plugin/share/list", params: map[string]any{}},
	{name: "plugin/share/checkout", method: "plugin/share/checkout", params: map[string]any{"remotePluginId": "p"}},
	{name: "plugin/share/delete", method: "plugin/share/delete", params: map[string]any{"remotePluginId": "p"}},
	{name: "marketplace/add", method: "marketplace/add", params: map[string]any{"source": "https://127.0.0.1:9/market.git"}},
	{name: "marketplace/remove", method: "marketplace/remove", params: map[string]any{"marketplaceName": "nope"}},
	{name: "marketplace/upgrade", method: "marketplace/upgrade", params: map[string]any{}},
	{name: "mcpServer/oauth/login (stdio server)", method: "mcpServer/oauth/login", params: map[string]any{"name": "docs"},
		setup: func(t *testing.T, e *env) {
			appendConfig(t, e, "\n[mcp_servers.docs]\ncommand = \"docs-server-missing\"\n")
		}},
	{name: "mcpServer/oauth/login (http server)", method: "mcpServer/oauth/login", params: map[string]any{"name": "web", "timeoutSecs": 2},
		setup: func(t *testing.T, e *env) {
			appendConfig(t, e, "\n[mcp_servers.web]\nurl = \"http://127.0.0.1:9/mcp\"\n")
		}},
	{name: "mcpServer/oauth/login", method: "mcpServer/oauth/login", params: map[string]any{"name": "nope"}},
	{name: "account/gatewayOAuth/read", method: "account/gatewayOAuth/read", params: map[string]any{}},
	{name: "account/gatewayOAuth/login", method: "account/gatewayOAuth/login", params: map[string]any{}},
	{name: "account/gatewayOAuth/cancel", method: "account/gatewayOAuth/cancel", params: nil},
	{name: "account/rateLimitResetCredit/consume", method: "account/rateLimitResetCredit/consume", params: map[string]any{"idempotencyKey": "k1"}},
	{name: "account/securitySetup/read", method: "account/securitySetup/read", params: nil},
	{name: "account/sendAddCreditsNudgeEmail", method: "account/sendAddCreditsNudgeEmail", params: map[string]any{"creditType": "credits"}},
	{name: "account/usage/read", method: "account/usage/read", params: map[string]any{}},
	{name: "account/workspaceMessages/read", method: "account/workspaceMessages/read", params: nil},
}

// badParamCases are requests of the new methods with params that are not valid: the same
// error class as Codex 0.169's is expected.
var badParamCases = []methodCase{
	{name: "bad: fs/watch relative path", method: "fs/watch", params: map[string]any{"path": "rel", "watchId": "w"}},
	{name: "bad: fs/watch no watchId", method: "fs/watch", params: map[string]any{"path": "$WORK"}},
	{name: "bad: skills/config/write no enabled", method: "skills/config/write", params: map[string]any{"name": "demo"}},
	{name: "bad: skills/config/write neither name nor path", method: "skills/config/write", params: map[string]any{"enabled": true}},
	{name: "bad: skills/extraRoots/set relative", method: "skills/extraRoots/set", params: map[string]any{"extraRoots": []string{"rel"}}},
	{name: "bad: feedback/save relative path", method: "feedback/save", params: map[string]any{"classification": "bug", "savePath": "fb.zip"}},
	{name: "bad: permissionProfile/list bad cursor", method: "permissionProfile/list", params: map[string]any{"cursor": "zz"}},
	{name: "bad: modelProvider/config/write unknown type", method: "modelProvider/config/write", params: map[string]any{"settings": map[string]any{"type": "nope"}}},
	{name: "bad: modelProvider/config/write unknown provider", method: "modelProvider/config/write", params: map[string]any{"settings": map[string]any{"type": "customGateway", "providerId": "nope", "name": "X"}}},
	{name: "bad: externalAgentConfig/import no items", method: "externalAgentConfig/import", params: map[string]any{}},
	{name: "bad: windowsSandbox/setupStart bad mode", method: "windowsSandbox/setupStart", params: map[string]any{"mode": "sideways"}},
	{name: "bad: account/sendAddCreditsNudgeEmail bad type", method: "account/sendAddCreditsNudgeEmail", params: map[string]any{"creditType": "gold"}},
	{name: "bad: app/read no ids", method: "app/read", params: map[string]any{}},
	{name: "bad: plugin/uninstall no id", method: "plugin/uninstall", params: map[string]any{}},
}

func (e *env) home() string {
	for _, kv := range e.ExtraEnv {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			return v
		}
	}
	return ""
}

// expand replaces $HOME, $CODEX_HOME and $WORK in every string of v.
func (e *env) expand(v any) any {
	b, _ := json.Marshal(v)
	s := string(b)
	s = strings.ReplaceAll(s, "$CODEX_HOME", e.CodexHome)
	s = strings.ReplaceAll(s, "$HOME", e.home())
	s = strings.ReplaceAll(s, "$WORK", e.Workdir)
	var out any
	_ = json.Unmarshal([]byte(s), &out)
	return out
}

// unexpand is expand's inverse over a recorded answer, so goldens hold no temp paths.
func (e *env) unexpand(s string) string {
	s = strings.ReplaceAll(s, strings.TrimSuffix(e.Model.URL(), "/"), "$MODEL")
	for _, p := range []struct{ dir, name string }{{e.CodexHome, "$CODEX_HOME"}, {e.Workdir, "$WORK"}, {e.home(), "$HOME"}} {
		if real, err := filepath.EvalSymlinks(p.dir); err == nil && real != p.dir {
			s = strings.ReplaceAll(s, real, p.name)
		}
		s = strings.ReplaceAll(s, p.dir, p.name)
	}
	return s
}
