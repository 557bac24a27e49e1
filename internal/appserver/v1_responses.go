package appserver

// The v1 (0.63-era) responses this server builds itself. The field order is the reference's
// where its schema still has the type, else alphabetical (what the older server sent).

// authStatusResponse is getAuthStatus's result (GetAuthStatusResponse).
type authStatusResponse struct {
	AuthMethod         *string `json:"authMethod"`
	AuthToken          *string `json:"authToken"`
	RequiresOpenaiAuth bool    `json:"requiresOpenaiAuth"`
}

// userInfoResponse is userInfo's result: no account e-mail is known to an API-key login.
type userInfoResponse struct {
	AllegedUserEmail *string `json:"allegedUserEmail"`
}

type listConversationsResponse struct {
	Items      []conversationSummary `json:"items"`
	NextCursor *string               `json:"nextCursor"`
}

// conversationSummaryResponse is getConversationSummary's result.
type conversationSummaryResponse struct {
	Summary conversationSummary `json:"summary"`
}

// gitDiffToRemoteResponse is gitDiffToRemote's result.
type gitDiffToRemoteResponse struct {
	Sha  string `json:"sha"`
	Diff string `json:"diff"`
}

// userSavedConfigResponse is getUserSavedConfig's result.
type userSavedConfigResponse struct {
	Config savedConfig `json:"config"`
}

// savedConfig is 0.63's UserSavedConfig. Setting values are `any`: they are passed on as
// config.toml has them, whatever type the user wrote.
type savedConfig struct {
	ApprovalPolicy           any                     `json:"approvalPolicy"`
	ForcedChatgptWorkspaceID any                     `json:"forcedChatgptWorkspaceId"`
	ForcedLoginMethod        any                     `json:"forcedLoginMethod"`
	Model                    any                     `json:"model"`
	ModelReasoningEffort     any                     `json:"modelReasoningEffort"`
	ModelReasoningSummary    any                     `json:"modelReasoningSummary"`
	ModelVerbosity           any                     `json:"modelVerbosity"`
	Profile                  any                     `json:"profile"`
	Profiles                 map[string]savedProfile `json:"profiles"`
	SandboxMode              any                     `json:"sandboxMode"`
	SandboxSettings          *savedSandboxSettings   `json:"sandboxSettings"`
	Tools                    any                     `json:"tools"` // always null: not read from the file
}

type savedSandboxSettings struct {
	ExcludeSlashTmp     any `json:"excludeSlashTmp"`
	ExcludeTmpdirEnvVar any `json:"excludeTmpdirEnvVar"`
	NetworkAccess       any `json:"networkAccess"`
	WritableRoots       any `json:"writableRoots"`
}

type savedProfile struct {
	ApprovalPolicy        any `json:"approvalPolicy"`
	ChatgptBaseURL        any `json:"chatgptBaseUrl"`
	Model                 any `json:"model"`
	ModelProvider         any `json:"modelProvider"`
	ModelReasoningEffort  any `json:"modelReasoningEffort"`
	ModelReasoningSummary any `json:"modelReasoningSummary"`
	ModelVerbosity        any `json:"modelVerbosity"`
}

// savedConfigFile is the part of config.toml getUserSavedConfig reports.
type savedConfigFile struct {
	ApprovalPolicy           any `toml:"approval_policy"`
	SandboxMode              any `toml:"sandbox_mode"`
	ForcedChatgptWorkspaceID any `toml:"forced_chatgpt_workspace_id"`
	ForcedLoginMethod        any `toml:"forced_login_method"`
	Model                    any `toml:"model"`
	ModelReasoningEffort     any `toml:"model_reasoning_effort"`
	ModelReasoningSummary    any `toml:"model_reasoning_summary"`
	ModelVerbosity           any `toml:"model_verbosity"`
	Profile                  any `toml:"profile"`
	SandboxWorkspaceWrite    *struct {
		WritableRoots       any `toml:"writable_roots"`
		NetworkAccess       any `toml:"network_access"`
		ExcludeTmpdirEnvVar any `toml:"exclude_tmpdir_env_var"`
		ExcludeSlashTmp     any `toml:"exclude_slash_tmp"`
	} `toml:"sandbox_workspace_write"`
	Profiles map[string]struct {
		Model                 any `toml:"model"`
		ModelProvider         any `toml:"model_provider"`
		ApprovalPolicy        any `toml:"approval_policy"`
		ModelReasoningEffort  any `toml:"model_reasoning_effort"`
		ModelReasoningSummary any `toml:"model_reasoning_summary"`
		ModelVerbosity        any `toml:"model_verbosity"`
		ChatgptBaseURL        any `toml:"chatgpt_base_url"`
	} `toml:"profiles"`
}
