package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/protocol"
	"github.com/google/go-cmp/cmp"
)

// fixture is a CODEX_HOME and a project directory under one temp dir.
type fixture struct {
	t       *testing.T
	home    string // CODEX_HOME
	project string // a git repository
	env     map[string]string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{t: t, home: filepath.Join(root, "codex-home"), project: filepath.Join(root, "repo"),
		env: map[string]string{"HOME": filepath.Join(root, "user")}}
	for _, d := range []string{f.home, filepath.Join(f.project, ".git"), filepath.Join(f.project, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.write(filepath.Join(f.project, ".git", "HEAD"), "ref: refs/heads/main\n") // what makes git take it
	return f
}

func (f *fixture) write(path, text string) string {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		f.t.Fatal(err)
	}
	return path
}

func (f *fixture) userConfig(text string) string {
	return f.write(filepath.Join(f.home, "config.toml"), text)
}

func (f *fixture) trust() string {
	return "[projects." + quoteString(f.project) + "]\ntrust_level = \"trusted\"\n"
}

func (f *fixture) opts() LoadOptions {
	return LoadOptions{CodexHome: f.home, Cwd: f.project, Env: func(k string) string { return f.env[k] }}
}

func (f *fixture) load(o LoadOptions) (*Config, []Warning) {
	f.t.Helper()
	cfg, warns, err := Load(o)
	if err != nil {
		f.t.Fatalf("Load: %v", err)
	}
	return cfg, warns
}

func ptr[T any](v T) *T { return &v }

func TestLoadDefaults(t *testing.T) {
	f := newFixture(t)
	cfg, warns := f.load(f.opts())
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	type view struct {
		Model, Provider, Approval string
		Sandbox                   protocol.SandboxPolicy
		Env                       process.EnvPolicy
		LoginShell                bool
		DocMax                    int64
		Markers                   []string
		History                   HistoryConfig
		Tools                     ToolsConfig
		Opener                    string
	}
	got := view{cfg.Model, cfg.ModelProviderID, cfg.ApprovalPolicy.String(), cfg.SandboxPolicy,
		cfg.ShellEnvironmentPolicy, cfg.AllowLoginShell, cfg.ProjectDocMaxBytes, cfg.ProjectRootMarkers,
		cfg.History, cfg.Tools, cfg.FileOpener}
	want := view{DefaultModel, "openai", "on-request", protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly},
		process.DefaultEnvPolicy(), true, 32768, []string{".git"},
		HistoryConfig{Persistence: "save-all"}, ToolsConfig{ViewImage: true}, "vscode"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	if cfg.ModelProvider.Name != "OpenAI" || !cfg.ModelProvider.RequiresOpenAIAuth {
		t.Errorf("provider = %+v", cfg.ModelProvider)
	}
	if cfg.ProjectRoot != f.project || cfg.CodexHome != f.home {
		t.Errorf("root %q home %q", cfg.ProjectRoot, cfg.CodexHome)
	}
}

func TestCodexHome(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		env  map[string]string
		want string
		err  string
	}{
		{env: map[string]string{"CODEX_HOME": dir, "HOME": "/h"}, want: dir},
		{env: map[string]string{"CODEX_HOME": link}, want: dir},
		{env: map[string]string{"HOME": "/h"}, want: "/h/.codex"},
		{env: map[string]string{"CODEX_HOME": filepath.Join(dir, "missing")}, err: "but that path does not exist"},
		{env: map[string]string{"CODEX_HOME": file}, err: "but that path is not a directory"},
	}
	for _, tt := range tests {
		got, err := CodexHome(func(k string) string { return tt.env[k] })
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), "CODEX_HOME points to") || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("CodexHome(%v) err = %v, want %q", tt.env, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("CodexHome(%v) = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
}

// TestLayerPrecedence checks user < profile file < project < [profiles.x] <
// -c < flags, one key per boundary.
func TestLayerPrecedence(t *testing.T) {
	f := newFixture(t)
	f.userConfig(`
model = "user"
model_reasoning_effort = "low"
model_verbosity = "low"
service_tier = "user"
review_model = "user"
compact_prompt = "user"
profile = "fast"
` + f.trust() + `
[profiles.fast]
model_verbosity = "high"
service_tier = "profile-table"
`)
	f.write(filepath.Join(f.home, "fast.config.toml"), "model_reasoning_effort = \"medium\"\nreview_model = \"profile-file\"\ncompact_prompt = \"profile-file\"\n")
	f.write(filepath.Join(f.project, ".codex", "config.toml"), "compact_prompt = \"project-root\"\nmodel_verbosity = \"medium\"\n")
	f.write(filepath.Join(f.project, "sub", ".codex", "config.toml"), "compact_prompt = \"project-sub\"\n")

	tests := []struct {
		name  string
		cli   []string
		over  Overrides
		cwd   string
		check func(*Config) []string // got, want pairs
	}{
		{name: "files only", check: func(c *Config) []string {
			return []string{
				c.Model, "user",
				c.ReasoningEffort, "medium", // profile file beats user
				c.ReviewModel, "profile-file",
				c.CompactPrompt, "project-root", // project beats profile file
				c.Verbosity, "high", // profile table beats project
				c.ServiceTier, "profile-table",
				c.Profile, "fast",
			}
		}},
		{name: "nearest project wins", cwd: "sub", check: func(c *Config) []string {
			return []string{c.CompactPrompt, "project-sub"}
		}},
		{name: "cli beats profile table", cli: []string{"model_verbosity=low", "service_tier=cli"}, check: func(c *Config) []string {
			return []string{c.Verbosity, "low", c.ServiceTier, "cli"}
		}},
		{name: "flags beat cli", cli: []string{"model=cli"}, over: Overrides{Model: ptr("flag"), CompactPrompt: ptr("flag")}, check: func(c *Config) []string {
			return []string{c.Model, "flag", c.CompactPrompt, "flag"}
		}},
		{name: "cli selects profile", cli: []string{"profile=none-such"}, check: func(c *Config) []string {
			return []string{c.Profile, "none-such", c.ServiceTier, "user"}
		}},
		{name: "cli edits the profile", cli: []string{"profiles.fast.service_tier=edited"}, check: func(c *Config) []string {
			return []string{c.ServiceTier, "edited"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := f.opts()
			o.CLIOverrides = tt.cli
			o.Overrides = tt.over
			if tt.cwd != "" {
				o.Cwd = filepath.Join(f.project, tt.cwd)
			}
			cfg, _ := f.load(o)
			pairs := tt.check(cfg)
			for i := 0; i < len(pairs); i += 2 {
				if pairs[i] != pairs[i+1] {
					t.Errorf("value %d = %q, want %q", i/2, pairs[i], pairs[i+1])
				}
			}
		})
	}
}

func TestProjectConfigNeedsTrust(t *testing.T) {
	f := newFixture(t)
	f.userConfig("model = \"user\"\n")
	proj := f.write(filepath.Join(f.project, ".codex", "config.toml"), "model = \"project\"\n")
	cfg, warns := f.load(f.opts())
	if cfg.Model != "user" {
		t.Errorf("untrusted project config applied: model = %q", cfg.Model)
	}
	if len(warns) != 1 || warns[0].File != filepath.Dir(proj) || !strings.Contains(warns[0].Message, proj) || !strings.Contains(warns[0].Message, "not a trusted project") {
		t.Errorf("warnings = %v", warns)
	}
	if cfg.SandboxPolicy.Mode != protocol.SandboxReadOnly {
		t.Errorf("sandbox = %v", cfg.SandboxPolicy.Mode)
	}

	f.userConfig("model = \"user\"\n" + f.trust())
	o := f.opts()
	o.Cwd = filepath.Join(f.project, "sub") // trust of the repository covers sub-directories
	cfg, warns = f.load(o)
	if cfg.Model != "project" || len(warns) != 0 {
		t.Errorf("trusted: model = %q, warnings %v", cfg.Model, warns)
	}
	if cfg.TrustLevel != TrustTrusted || cfg.SandboxPolicy.Mode != protocol.SandboxWorkspaceWrite || cfg.ApprovalPolicy.String() != "on-request" {
		t.Errorf("trusted defaults: %q %v %v", cfg.TrustLevel, cfg.SandboxPolicy.Mode, cfg.ApprovalPolicy)
	}

	f.userConfig("[projects." + quoteString(f.project) + "]\ntrust_level = \"untrusted\"\n")
	cfg, _ = f.load(f.opts())
	if cfg.ApprovalPolicy.String() != "untrusted" || cfg.SandboxPolicy.Mode != protocol.SandboxWorkspaceWrite {
		t.Errorf("untrusted defaults: %v %v", cfg.ApprovalPolicy, cfg.SandboxPolicy.Mode)
	}
}

func TestTrustWithTildeAndTrailingSlash(t *testing.T) {
	f := newFixture(t)
	f.env["HOME"] = filepath.Dir(f.project)
	f.userConfig("[projects.\"~/repo/\"]\ntrust_level = \"trusted\"\n")
	cfg, _ := f.load(f.opts())
	if cfg.TrustLevel != TrustTrusted {
		t.Errorf("trust = %q", cfg.TrustLevel)
	}
}

func TestCodexHomeInsideProjectIsNotAProjectLayer(t *testing.T) {
	f := newFixture(t)
	f.home = filepath.Join(f.project, ".codex")
	f.userConfig("model = \"user\"\n" + f.trust())
	cfg, warns := f.load(f.opts())
	if cfg.Model != "user" || len(warns) != 0 || len(cfg.Layers) != 1 {
		t.Errorf("model %q warnings %v layers %d", cfg.Model, warns, len(cfg.Layers))
	}
}

func TestProfiles(t *testing.T) {
	f := newFixture(t)
	f.userConfig(`
model = "base"
[profiles.deep]
model = "deep-model"
model_reasoning_effort = "xhigh"
approval_policy = "never"
`)
	f.write(filepath.Join(f.home, "filed.config.toml"), "model = \"from-file\"\nsandbox_mode = \"danger-full-access\"\n")
	tests := []struct {
		profile, model, effort, approval string
		sandbox                          protocol.SandboxMode
		warn                             string
	}{
		{"", "base", "", "on-request", protocol.SandboxReadOnly, ""},
		{"deep", "deep-model", "xhigh", "never", protocol.SandboxReadOnly, "legacy [profiles.deep] table used"},
		{"filed", "from-file", "", "on-request", protocol.SandboxDangerFullAccess, ""},
		{"missing", "base", "", "on-request", protocol.SandboxReadOnly, "config profile `missing` not found"},
	}
	for _, tt := range tests {
		t.Run(tt.profile, func(t *testing.T) {
			o := f.opts()
			o.Profile = tt.profile
			cfg, warns := f.load(o)
			got := []string{cfg.Model, cfg.ReasoningEffort, cfg.ApprovalPolicy.String(), string(cfg.SandboxPolicy.Mode)}
			want := []string{tt.model, tt.effort, tt.approval, string(tt.sandbox)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tt.warn == "" && len(warns) > 0 || tt.warn != "" && (len(warns) != 1 || !strings.Contains(warns[0].Message, tt.warn)) {
				t.Errorf("warnings = %v, want %q", warns, tt.warn)
			}
		})
	}
	for _, bad := range []string{"../evil", "a/b", "..", "nul\x00"} {
		o := f.opts()
		o.Profile = bad
		if _, _, err := Load(o); err == nil || !strings.Contains(err.Error(), "invalid --profile value") {
			t.Errorf("profile %q: err = %v", bad, err)
		}
	}
	// From the file, the error points at the key.
	path := f.userConfig("profile = \"a\\u0000b\"\n")
	var pe *ParseError
	if _, _, err := Load(f.opts()); !errors.As(err, &pe) || pe.File != path || pe.Line != 1 {
		t.Errorf("err = %#v", err)
	}
}

func TestParseOverride(t *testing.T) {
	tests := []struct {
		in   string
		path []string
		val  any
		err  string
	}{
		{in: "model=o3", path: []string{"model"}, val: "o3"},
		{in: `model="o3"`, path: []string{"model"}, val: "o3"},
		{in: "model='gpt 5'", path: []string{"model"}, val: "gpt 5"},
		{in: " model = o3 ", path: []string{"model"}, val: "o3"},
		{in: "model_context_window=1000", path: []string{"model_context_window"}, val: int64(1000)},
		{in: "hide_agent_reasoning=true", path: []string{"hide_agent_reasoning"}, val: true},
		{in: "sandbox_workspace_write.network_access=true", path: []string{"sandbox_workspace_write", "network_access"}, val: true},
		{in: `notify=["notify-send","hi"]`, path: []string{"notify"}, val: []any{"notify-send", "hi"}},
		{in: `shell_environment_policy.set={A="1"}`, path: []string{"shell_environment_policy", "set"}, val: map[string]any{"A": "1"}},
		{in: `projects."/a/b.c".trust_level=trusted`, path: []string{"projects", "/a/b.c", "trust_level"}, val: "trusted"},
		{in: "mcp_servers.x.args=[unterminated", path: []string{"mcp_servers", "x", "args"}, val: "[unterminated"},
		{in: "a.b/c=1", path: []string{"a", "b/c"}, val: int64(1)},
		{in: "x=a=b", path: []string{"x"}, val: "a=b"},
		{in: "temperature=0.5", path: []string{"temperature"}, val: 0.5},
		{in: "model", err: "Invalid override (missing '='): model"},
		{in: "=x", err: "Empty key in override: =x"},
		{in: "a..b=1", err: "empty key part"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			o, err := ParseOverride(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.path, o.Path); diff != "" {
				t.Errorf("path (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.val, o.Value); diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCLIOverridesApply(t *testing.T) {
	f := newFixture(t)
	f.userConfig("[sandbox_workspace_write]\nwritable_roots = [\"/w\"]\nnetwork_access = false\n")
	o := f.opts()
	o.CLIOverrides = []string{
		"model=o3",
		"sandbox_mode=workspace-write",
		"sandbox_workspace_write.network_access=true",
		"sandbox_workspace_write.exclude_slash_tmp=true",
		`shell_environment_policy.inherit=core`,
		`shell_environment_policy.exclude=["AWS_*"]`,
		"history.persistence=none",
		"approval_policy=never",
		"model_context_window=200000",
	}
	o.Overrides.AdditionalWritableRoots = []string{"extra"}
	cfg, warns := f.load(o)
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	wantSandbox := protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, WritableRoots: []string{"/w", filepath.Join(f.project, "extra")},
		NetworkAccess: true, ExcludeSlashTmp: true}
	if diff := cmp.Diff(wantSandbox, cfg.SandboxPolicy); diff != "" {
		t.Errorf("sandbox (-want +got):\n%s", diff)
	}
	wantEnv := process.EnvPolicy{Inherit: process.InheritCore, IgnoreDefaultExcludes: true, Exclude: []string{"AWS_*"}}
	if diff := cmp.Diff(wantEnv, cfg.ShellEnvironmentPolicy); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if cfg.Model != "o3" || cfg.History.Persistence != "none" || cfg.ApprovalPolicy != protocol.ApprovalNever ||
		cfg.ModelContextWindow == nil || *cfg.ModelContextWindow != 200000 {
		t.Errorf("model %q history %+v approval %v window %v", cfg.Model, cfg.History, cfg.ApprovalPolicy, cfg.ModelContextWindow)
	}
}

func TestProvidersAndOSS(t *testing.T) {
	f := newFixture(t)
	f.env["MOCK_KEY"] = "k"
	f.userConfig(`
model_provider = "mock"
openai_base_url = "http://127.0.0.1:9/v1"
[model_providers.mock]
name = "Mock"
base_url = "http://127.0.0.1:8/v1"
env_key = "MOCK_KEY"
query_params = { "api-version" = "1" }
stream_idle_timeout_ms = 1000
`)
	cfg, _ := f.load(f.opts())
	want := model.ProviderInfo{Name: "Mock", BaseURL: "http://127.0.0.1:8/v1", EnvKey: "MOCK_KEY",
		QueryParams: map[string]string{"api-version": "1"}, StreamIdleTimeoutMS: ptr(int64(1000))}
	if diff := cmp.Diff(want, cfg.ModelProvider); diff != "" {
		t.Errorf("provider (-want +got):\n%s", diff)
	}
	if got := cfg.ModelProviders["openai"].BaseURL; got != "http://127.0.0.1:9/v1" {
		t.Errorf("openai base = %q", got)
	}

	o := f.opts()
	o.Overrides.OSS = true
	cfg, _ = f.load(o)
	if cfg.ModelProviderID != "ollama" || cfg.Model != DefaultOSSModel || cfg.ModelProvider.BaseURL != "http://localhost:11434/v1" {
		t.Errorf("oss: %q %q %q", cfg.ModelProviderID, cfg.Model, cfg.ModelProvider.BaseURL)
	}
	o.Overrides.LocalProvider = "lmstudio"
	f.env["CODEX_OSS_PORT"] = "4321"
	cfg, _ = f.load(o)
	if cfg.ModelProviderID != "lmstudio" || cfg.ModelProvider.BaseURL != "http://localhost:4321/v1" {
		t.Errorf("lmstudio: %q %q", cfg.ModelProviderID, cfg.ModelProvider.BaseURL)
	}
}

func TestMcpServersAndMisc(t *testing.T) {
	f := newFixture(t)
	f.write(filepath.Join(f.home, "prompts", "base.md"), "  You are a test agent.\n")
	f.userConfig(`
model_instructions_file = "prompts/base.md"
instructions = "be brief"
developer_instructions = "dev"
notify = ["notify-send", "Codex"]
hide_agent_reasoning = true
web_search = "live"
project_doc_fallback_filenames = ["CLAUDE.md"]
project_root_markers = []
check_for_update_on_startup = false
approval_policy = { granular = { sandbox_approval = true, rules = false, mcp_elicitations = true } }

[tools]
view_image = false

[features]
unified_exec = true
multi_agent_v2 = { enabled = false }

[mcp_servers.local]
command = "node"
args = ["server.js"]
env = { TOKEN = "t" }
env_vars = ["PATH"]
startup_timeout_ms = 2500
enabled_tools = ["a"]

[mcp_servers.remote]
url = "http://127.0.0.1:3000/mcp"
bearer_token_env_var = "TOK"
http_headers = { "X-A" = "1" }
enabled = false
tool_timeout_sec = 5
`)
	cfg, warns := f.load(f.opts())
	// hide_agent_reasoning is resolved, but no face acts on it yet: it is reported.
	if len(warns) != 1 || strings.Join(warns[0].Key, ".") != "hide_agent_reasoning" {
		t.Errorf("warnings: %v", warns)
	}
	wantMcp := map[string]McpServerConfig{
		"local": {Command: "node", Args: []string{"server.js"}, Env: map[string]string{"TOKEN": "t"}, EnvVars: []string{"PATH"},
			StartupTimeoutMs: ptr(int64(2500)), StartupTimeoutSec: ptr(2.5), EnabledTools: []string{"a"}},
		"remote": {URL: "http://127.0.0.1:3000/mcp", BearerTokenEnvVar: "TOK", HTTPHeaders: map[string]string{"X-A": "1"},
			Enabled: ptr(false), ToolTimeoutSec: ptr(5.0)},
	}
	if diff := cmp.Diff(wantMcp, cfg.McpServers); diff != "" {
		t.Errorf("mcp (-want +got):\n%s", diff)
	}
	if cfg.McpServers["remote"].IsEnabled() || !cfg.McpServers["local"].IsEnabled() {
		t.Error("IsEnabled")
	}
	wantApproval := protocol.AskForApproval{Mode: protocol.ApprovalModeGranular,
		Granular: &protocol.GranularApproval{SandboxApproval: true, McpElicitations: true}}
	if diff := cmp.Diff(wantApproval, cfg.ApprovalPolicy); diff != "" {
		t.Errorf("approval (-want +got):\n%s", diff)
	}
	got := []any{cfg.BaseInstructions, cfg.UserInstructions, cfg.DeveloperInstructions, cfg.Notify, cfg.HideAgentReasoning,
		cfg.WebSearchMode, cfg.Tools, cfg.ProjectDocFallbackFilenames, cfg.ProjectRootMarkers, cfg.CheckForUpdateOnStartup,
		cfg.FeatureEnabled("unified_exec", false), cfg.FeatureEnabled("multi_agent_v2", true), cfg.FeatureEnabled("absent", true)}
	want := []any{"You are a test agent.", "be brief", "dev", []string{"notify-send", "Codex"}, true,
		"live", ToolsConfig{ViewImage: false, WebSearch: true}, []string{"CLAUDE.md"}, []string{}, false,
		true, false, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("misc (-want +got):\n%s", diff)
	}
}

func TestOrigin(t *testing.T) {
	f := newFixture(t)
	user := f.userConfig("model = \"u\"\nservice_tier = \"u\"\n[profiles.p]\nservice_tier = \"p\"\n")
	o := f.opts()
	o.Profile = "p"
	o.CLIOverrides = []string{"model=cli"}
	cfg, _ := f.load(o)
	for key, want := range map[string]LayerSource{"model": SourceCLI, "service_tier": SourceProfileTable} {
		l, ok := cfg.Origin([]string{key})
		if !ok || l.Source != want {
			t.Errorf("Origin(%s) = %v, %v; want %v", key, l.Source, ok, want)
		}
	}
	if l, _ := cfg.Origin([]string{"profiles", "p"}); l.Source != SourceUser || l.Path != user {
		t.Errorf("Origin(profiles.p) = %+v", l)
	}
	if _, ok := cfg.Origin([]string{"absent"}); ok {
		t.Error("absent key has an origin")
	}
}

func TestValueOverrides(t *testing.T) {
	f := newFixture(t)
	f.userConfig("model = \"user\"\n[mcp_servers.a]\ncommand = \"x\"\n")
	o := f.opts()
	o.CLIOverrides = []string{"model=cli"}
	o.ValueOverrides = map[string]any{
		"model":                          "json",
		"model_context_window":           float64(128000), // JSON numbers arrive as float64
		"mcp_servers.a.tool_timeout_sec": float64(30),
		"sandbox_workspace_write":        map[string]any{"network_access": true},
		"sandbox_mode":                   "workspace-write",
		"notify":                         []any{"n"},
		"developer_instructions":         nil,
	}
	o.Overrides.ShowRawAgentReasoning = ptr(true)
	cfg, warns := f.load(o)
	if len(warns) != 0 {
		t.Errorf("warnings %v", warns)
	}
	got := []any{cfg.Model, *cfg.ModelContextWindow, *cfg.McpServers["a"].ToolTimeoutSec, cfg.SandboxPolicy.NetworkAccess, cfg.Notify, cfg.ShowRawAgentReasoning}
	want := []any{"json", int64(128000), 30.0, true, []string{"n"}, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	o.ValueOverrides = map[string]any{"model_context_window": "big"}
	if _, _, err := Load(o); err == nil || !strings.Contains(err.Error(), "-c model_context_window=big: invalid type") {
		t.Errorf("err = %v", err)
	}
}

func TestManagedConfigWins(t *testing.T) {
	f := newFixture(t)
	f.userConfig("model = \"user\"\nsandbox_mode = \"danger-full-access\"\n")
	managed := f.write(filepath.Join(f.home, "managed_config.toml"), "sandbox_mode = \"read-only\"\n")
	o := f.opts()
	o.CLIOverrides = []string{"sandbox_mode=workspace-write", "model=cli"}
	cfg, _ := f.load(o)
	if cfg.SandboxPolicy.Mode != protocol.SandboxReadOnly || cfg.Model != "cli" {
		t.Errorf("sandbox %v model %q", cfg.SandboxPolicy.Mode, cfg.Model)
	}
	if l, ok := cfg.Origin([]string{"sandbox_mode"}); !ok || l.Source != SourceManaged || l.Path != managed {
		t.Errorf("origin %+v", l)
	}
}

// go-toml matches struct fields case-insensitively; Codex does not, so a
// mis-cased key must be reported and ignored, never applied or rejected.
func TestKeysAreCaseSensitive(t *testing.T) {
	f := newFixture(t)
	path := f.userConfig("MODEL = \"upper\"\nsAndBoX_mode = \"bogus\"\n[History]\nmax_bytes = \"x\"\n[mcp_servers.a]\nCommand = 5\ncommand = \"ok\"\n")
	cfg, warns := f.load(f.opts())
	if cfg.Model != DefaultModel || cfg.SandboxPolicy.Mode != protocol.SandboxReadOnly || cfg.McpServers["a"].Command != "ok" {
		t.Errorf("mis-cased keys applied: model %q sandbox %v mcp %+v", cfg.Model, cfg.SandboxPolicy.Mode, cfg.McpServers["a"])
	}
	var keys []string
	for _, w := range warns {
		if w.File != path || w.Line == 0 {
			t.Errorf("warning without position: %v", w)
		}
		keys = append(keys, strings.Join(w.Key, "."))
	}
	want := []string{"History", "MODEL", "mcp_servers.a.Command", "sAndBoX_mode"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
