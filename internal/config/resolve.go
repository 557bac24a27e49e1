package config

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/model"
	// Every wire registers its descriptor: validation accepts the wire_api values they name.
	_ "github.com/gocodex/gocodex/internal/model/wires"
	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/protocol"
)

// Defaults Codex applies when a key is absent.
const (
	DefaultProjectDocMaxBytes = 32 * 1024
	DefaultFileOpener         = "vscode"
)

func (l *loader) resolve(o Overrides) (*Config, error) {
	l.overrides = o
	f := &l.file
	c := &Config{
		CodexHome:      l.home,
		Cwd:            l.cwd,
		ProjectRoot:    l.projectRoot,
		TrustLevel:     l.trust,
		TrustRoot:      l.trustRoot,
		ProjectFolders: l.projectFolders,
		writes:         l.journal,
		loadedAt:       time.Now(),
		Profile:        l.profile,
		Effective:      l.merged,
		File:           *f,
		Projects:       f.Projects,
		Features:       f.Features,
		Notify:         f.Notify,
	}
	for _, layer := range l.layers {
		c.Layers = append(c.Layers, *layer)
	}
	if err := l.resolveModel(c, o); err != nil {
		return nil, err
	}
	if err := l.resolvePolicies(c, o); err != nil {
		return nil, err
	}
	if err := l.resolveInstructions(c, o); err != nil {
		return nil, err
	}
	if err := l.resolveMisc(c); err != nil {
		return nil, err
	}
	if err := l.resolveMcp(c); err != nil {
		return nil, err
	}
	if err := l.resolveLsp(c); err != nil {
		return nil, err
	}
	return c, nil
}

// oneOf checks an enum value, reporting it against the layer that set it.
func (l *loader) oneOf(key string, v *string, allowed ...string) (string, error) {
	if v == nil {
		return "", nil
	}
	for _, a := range allowed {
		if *v == a {
			return *v, nil
		}
	}
	return "", l.attribute(strings.Split(key, "."), unknownVariant(*v, allowed))
}

func unknownVariant(v string, allowed []string) string {
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = "`" + a + "`"
	}
	return fmt.Sprintf("unknown variant `%s`, expected one of %s", v, strings.Join(quoted, ", "))
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func boolOr(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

func (l *loader) resolveModel(c *Config, o Overrides) error {
	f := &l.file
	var err error
	if c.ReasoningEffort, err = l.oneOf("model_reasoning_effort", f.ModelReasoningEffort,
		"none", "minimal", "low", "medium", "high", "xhigh"); err != nil {
		return err
	}
	if c.ReasoningSummary, err = l.oneOf("model_reasoning_summary", f.ModelReasoningSummary,
		"auto", "concise", "detailed", "none"); err != nil {
		return err
	}
	if c.Verbosity, err = l.oneOf("model_verbosity", f.ModelVerbosity, "low", "medium", "high"); err != nil {
		return err
	}
	if o.ReasoningEffort != nil {
		c.ReasoningEffort = *o.ReasoningEffort
	}
	if o.ReasoningSummary != nil {
		c.ReasoningSummary = *o.ReasoningSummary
	}
	c.ServiceTier = str(f.ServiceTier)
	c.ModelContextWindow = f.ModelContextWindow
	c.ModelAutoCompactTokenLimit = f.ModelAutoCompactTokenLimit
	c.ToolOutputTokenLimit = f.ToolOutputTokenLimit
	c.ReviewModel = str(f.ReviewModel)
	c.OSSProvider = str(f.OSSProvider)
	c.ChatGPTBaseURL = str(f.ChatGPTBaseURL)
	if c.ChatGPTBaseURL == "" {
		c.ChatGPTBaseURL = DefaultChatGPTBaseURL
	}
	if c.CLIAuthCredentialsStore, err = l.oneOf("cli_auth_credentials_store", f.CLIAuthCredentialsStore, "file", "keyring", "auto"); err != nil {
		return err
	}
	if c.ForcedLoginMethod, err = l.oneOf("forced_login_method", f.ForcedLoginMethod, "chatgpt", "api"); err != nil {
		return err
	}
	c.ForcedChatGPTWorkspaceID = str(f.ForcedChatGPTWorkspace)
	if c.McpOAuthCredentialsStore, err = l.oneOf("mcp_oauth_credentials_store", f.McpOAuthCredentialsStore, "file", "keyring", "auto"); err != nil {
		return err
	}
	if c.McpOAuthCredentialsStore == "" {
		c.McpOAuthCredentialsStore = "auto"
	}
	if f.McpOAuthCallbackPort != nil {
		if p := *f.McpOAuthCallbackPort; p < 0 || p > 65535 {
			return l.attribute([]string{"mcp_oauth_callback_port"}, fmt.Sprintf("invalid value: %d is not a port (0-65535)", p))
		}
		c.McpOAuthCallbackPort = int(*f.McpOAuthCallbackPort)
	}
	if f.Responses != nil {
		if _, err = l.oneOf("responses.process_mode", f.Responses.ProcessMode, "streaming", "after_complete_response"); err != nil {
			return err
		}
	}

	openAIBase := str(f.OpenAIBaseURL)
	if openAIBase == "" {
		openAIBase = l.env("OPENAI_BASE_URL")
	}
	c.ModelProviders = model.BuiltinProviders(model.BuiltinOptions{Getenv: l.env, OpenAIBaseURL: openAIBase})
	ids := make([]string, 0, len(f.ModelProviders))
	for id := range f.ModelProviders {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var reserved []string
	for _, id := range ids {
		if _, builtin := c.ModelProviders[id]; builtin && !model.Overridable(id) {
			reserved = append(reserved, "`"+id+"`")
		}
	}
	if len(reserved) > 0 {
		example := strings.Trim(reserved[0], "`") + "-custom"
		return l.attribute([]string{"model_providers"}, fmt.Sprintf(
			"model_providers contains reserved built-in provider IDs: %s. Built-in providers cannot be overridden. Rename your custom provider (for example, `%s`).",
			strings.Join(reserved, ", "), example))
	}
	for _, id := range ids {
		p := f.ModelProviders[id]
		if id == "ollama-chat" {
			return l.attribute([]string{"model_providers", id}, "`ollama-chat` is no longer supported.")
		}
		if err := p.Validate(); err != nil {
			return l.attribute([]string{"model_providers", id, "wire_api"}, err.Error())
		}
		if p.Name == "" {
			p.Name = id
		}
		c.ModelProviders[id] = p
	}

	switch {
	case o.ModelProvider != nil:
		c.ModelProviderID = *o.ModelProvider
	case o.OSS:
		c.ModelProviderID = o.LocalProvider
		if c.ModelProviderID == "" {
			c.ModelProviderID = c.OSSProvider
		}
		if c.ModelProviderID == "" {
			c.ModelProviderID = model.ProviderOllama
		}
	case f.ModelProvider != nil:
		c.ModelProviderID = *f.ModelProvider
	default:
		c.ModelProviderID = model.ProviderOpenAI
	}
	p, ok := c.ModelProviders[c.ModelProviderID]
	if !ok {
		msg := fmt.Sprintf("Model provider `%s` not found", c.ModelProviderID)
		if o.ModelProvider != nil || o.OSS {
			return fmt.Errorf("%s", msg)
		}
		return l.attribute([]string{"model_provider"}, msg)
	}
	c.ModelProvider = p

	switch {
	case o.Model != nil:
		c.Model = *o.Model
	case f.Model != nil:
		c.Model = *f.Model
	case o.OSS:
		c.Model = DefaultOSSModel
	default:
		c.Model = DefaultModel
	}
	return nil
}

func (l *loader) resolvePolicies(c *Config, o Overrides) error {
	f := &l.file
	// Approval policy: flag, config, then what the project's trust implies.
	switch {
	case o.ApprovalPolicy != nil:
		c.ApprovalPolicy = *o.ApprovalPolicy
	case f.ApprovalPolicy != nil:
		ap, err := parseApproval(f.ApprovalPolicy)
		if err != nil {
			return l.attribute([]string{"approval_policy"}, err.Error())
		}
		c.ApprovalPolicy = ap
	case l.trust == TrustUntrusted:
		c.ApprovalPolicy = protocol.ApprovalUntrusted
	default:
		c.ApprovalPolicy = protocol.ApprovalOnRequest
	}

	mode, err := l.oneOf("sandbox_mode", f.SandboxMode, "read-only", "workspace-write", "danger-full-access")
	if err != nil {
		return err
	}
	switch {
	case o.SandboxMode != nil:
		mode = string(*o.SandboxMode)
	case mode != "":
	case l.trust == TrustTrusted || l.trust == TrustUntrusted:
		// A project the user has decided about gets workspace-write;
		// unknown directories start read-only.
		mode = string(protocol.SandboxWorkspaceWrite)
	default:
		mode = string(protocol.SandboxReadOnly)
	}
	c.SandboxPolicy = protocol.SandboxPolicy{Mode: protocol.SandboxMode(mode)}
	if c.SandboxPolicy.Mode == protocol.SandboxWorkspaceWrite {
		if sww := f.SandboxWorkspaceWrite; sww != nil {
			c.SandboxPolicy.WritableRoots = append(c.SandboxPolicy.WritableRoots, sww.WritableRoots...)
			c.SandboxPolicy.NetworkAccess = boolOr(sww.NetworkAccess, false)
			c.SandboxPolicy.ExcludeTmpdirEnvVar = boolOr(sww.ExcludeTmpdirEnvVar, false)
			c.SandboxPolicy.ExcludeSlashTmp = boolOr(sww.ExcludeSlashTmp, false)
		}
		for _, r := range o.AdditionalWritableRoots {
			c.SandboxPolicy.WritableRoots = append(c.SandboxPolicy.WritableRoots, absPath(r, c.Cwd, l.env))
		}
	}

	env := process.DefaultEnvPolicy()
	if sep := f.ShellEnvironment; sep != nil {
		inherit, err := l.oneOf("shell_environment_policy.inherit", sep.Inherit, "all", "core", "none")
		if err != nil {
			return err
		}
		if inherit != "" {
			env.Inherit = process.Inherit(inherit)
		}
		env.IgnoreDefaultExcludes = boolOr(sep.IgnoreDefaultExcludes, true)
		env.Exclude = sep.Exclude
		env.Set = sep.Set
		env.IncludeOnly = sep.IncludeOnly
		c.ShellEnvironmentUseProfile = boolOr(sep.ExperimentalUseProfile, false)
	}
	c.ShellEnvironmentPolicy = env
	c.AllowLoginShell = boolOr(f.AllowLoginShell, true)
	return nil
}

// parseApproval reads approval_policy: a kebab-case string or
// `{ granular = { sandbox_approval = true, ... } }`.
func parseApproval(v any) (protocol.AskForApproval, error) {
	switch x := v.(type) {
	case string:
		mode, err := protocol.ParseApprovalMode(x)
		if err != nil {
			return protocol.AskForApproval{}, err
		}
		return protocol.AskForApproval{Mode: mode}, nil
	case map[string]any:
		for _, key := range []string{"granular", "reject"} {
			g, ok := x[key].(map[string]any)
			if !ok {
				continue
			}
			ga := protocol.GranularApproval{}
			for name, dst := range map[string]*bool{
				"sandbox_approval": &ga.SandboxApproval, "rules": &ga.Rules, "skill_approval": &ga.SkillApproval,
				"request_permissions": &ga.RequestPermissions, "mcp_elicitations": &ga.McpElicitations,
			} {
				if b, ok := g[name].(bool); ok {
					*dst = b
				} else if _, present := g[name]; present {
					return protocol.AskForApproval{}, fmt.Errorf("invalid type: `%s.%s` must be a boolean", key, name)
				}
			}
			return protocol.AskForApproval{Mode: protocol.ApprovalModeGranular, Granular: &ga}, nil
		}
	}
	return protocol.AskForApproval{}, fmt.Errorf("%s", unknownVariant(fmt.Sprint(v),
		[]string{"untrusted", "on-failure", "on-request", "granular", "never"}))
}

func (l *loader) resolveInstructions(c *Config, o Overrides) error {
	f := &l.file
	c.UserInstructions = str(f.Instructions)
	c.DeveloperInstructions = str(f.DeveloperInstructions)
	if o.DeveloperInstructions != nil {
		c.DeveloperInstructions = *o.DeveloperInstructions
	}
	switch {
	case o.BaseInstructions != nil:
		c.BaseInstructions = *o.BaseInstructions
	case f.BaseInstructions != nil:
		c.BaseInstructions = *f.BaseInstructions
	case f.ModelInstructionsFile != nil || f.ExperimentalInstructionFile != nil:
		key, path := "model_instructions_file", f.ModelInstructionsFile
		if path == nil {
			key, path = "experimental_instructions_file", f.ExperimentalInstructionFile
		}
		text, err := readInstructionFile(*path)
		if err != nil {
			return l.attribute([]string{key}, err.Error())
		}
		c.BaseInstructions = text
	}
	switch {
	case o.CompactPrompt != nil:
		c.CompactPrompt = *o.CompactPrompt
	case f.CompactPrompt != nil:
		c.CompactPrompt = *f.CompactPrompt
	case f.ExperimentalCompactFile != nil:
		text, err := readInstructionFile(*f.ExperimentalCompactFile)
		if err != nil {
			return l.attribute([]string{"experimental_compact_prompt_file"}, err.Error())
		}
		c.CompactPrompt = text
	}
	return nil
}

func readInstructionFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("failed to read model instructions file %s: %v", path, err)
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		return "", fmt.Errorf("model instructions file %s is empty", path)
	}
	return text, nil
}

func (l *loader) resolveMisc(c *Config) error {
	f := &l.file
	c.ProjectDocMaxBytes = DefaultProjectDocMaxBytes
	if f.ProjectDocMaxBytes != nil {
		c.ProjectDocMaxBytes = *f.ProjectDocMaxBytes
	}
	c.ProjectDocFallbackFilenames = f.ProjectDocFallbackFilenames
	c.ProjectRootMarkers = []string{".git"}
	if f.ProjectRootMarkers != nil {
		c.ProjectRootMarkers = f.ProjectRootMarkers
	}

	c.History = HistoryConfig{Persistence: "save-all"}
	if h := f.History; h != nil {
		p, err := l.oneOf("history.persistence", h.Persistence, "save-all", "none")
		if err != nil {
			return err
		}
		if p != "" {
			c.History.Persistence = p
		}
		if h.MaxBytes != nil {
			c.History.MaxBytes = *h.MaxBytes
		}
	}

	mode, err := l.oneOf("web_search", f.WebSearch, "disabled", "cached", "indexed", "live")
	if err != nil {
		return err
	}
	c.WebSearchMode = mode
	c.Tools = ToolsConfig{ViewImage: true, WebSearch: mode != "" && mode != "disabled"}
	if t := f.Tools; t != nil {
		c.Tools.ViewImage = boolOr(t.ViewImage, true)
		switch ws := t.WebSearch.(type) {
		case bool:
			c.Tools.WebSearch = ws
		case map[string]any:
			c.Tools.WebSearch = true
			c.Tools.WebSearchOptions = ws
		}
	}
	if boolOr(f.ToolsWebSearchRequest, false) {
		c.Tools.WebSearch = true
	}

	c.HideAgentReasoning = boolOr(f.HideAgentReasoning, false)
	c.ShowRawAgentReasoning = boolOr(f.ShowRawAgentReasoning, false)
	if l.overrides.ShowRawAgentReasoning != nil {
		c.ShowRawAgentReasoning = *l.overrides.ShowRawAgentReasoning
	}
	c.CheckForUpdateOnStartup = boolOr(f.CheckForUpdateOnStartup, true)
	if c.FileOpener, err = l.oneOf("file_opener", f.FileOpener,
		"vscode", "vscode-insiders", "windsurf", "cursor", "none"); err != nil {
		return err
	}
	if c.FileOpener == "" {
		c.FileOpener = DefaultFileOpener
	}
	c.SqliteHome = str(f.SqliteHome)
	if c.SqliteHome == "" {
		c.SqliteHome = l.env("CODEX_SQLITE_HOME")
	}
	c.LogDir = str(f.LogDir)
	if c.LogDir == "" {
		c.LogDir = filepath.Join(c.CodexHome, "log")
	}
	return nil
}

func (l *loader) resolveMcp(c *Config) error {
	c.McpServers = map[string]McpServerConfig{}
	for name, s := range l.file.McpServers {
		if msg := transportError(s); msg != "" {
			return l.attribute([]string{"mcp_servers", name}, msg)
		}
		if s.StartupTimeoutSec == nil && s.StartupTimeoutMs != nil {
			sec := float64(*s.StartupTimeoutMs) / 1000
			s.StartupTimeoutSec = &sec
		}
		c.McpServers[name] = s
	}
	return nil
}

// transportError checks that a server's keys fit one transport, with
// Codex's messages.
func transportError(s McpServerConfig) string {
	switch {
	case s.Command != "":
		for _, f := range []struct {
			name string
			set  bool
		}{{"url", s.URL != ""}, {"bearer_token_env_var", s.BearerTokenEnvVar != ""},
			{"http_headers", s.HTTPHeaders != nil}, {"env_http_headers", s.EnvHTTPHeaders != nil}} {
			if f.set {
				return f.name + " is not supported for stdio"
			}
		}
	case s.URL != "":
		for _, f := range []struct {
			name string
			set  bool
		}{{"args", s.Args != nil}, {"env", s.Env != nil}, {"env_vars", s.EnvVars != nil}, {"cwd", s.Cwd != ""}} {
			if f.set {
				return f.name + " is not supported for streamable_http"
			}
		}
	default:
		return "invalid transport"
	}
	return ""
}
