package rpcgen

// Reference is the Codex release whose schema the embedded archive holds (the server
// advertises and validates against it).
const Reference = "Codex 0.171"

// The files the appserver package's generated layer is written to.
const (
	TypesFile = "rpc_types_gen.go"
	APIFile   = "rpc_api_gen.go"
)

// AppServer are the options of internal/appserver's generated layer: the schema types that
// keep a hand-written Go type with rules of its own.
func AppServer(source string) Options {
	return Options{
		Package: "appserver",
		Source:  source,
		GoTypes: map[string]string{
			"AbsolutePathBuf": "pathString", // serde's "path string" errors, absolute only
			"JsonValue":       "json.RawMessage",
			// initialize is answered by the handshake, outside the API, on its own types.
			"InitializeParams":   "InitializeParams",
			"InitializeResponse": "InitializeResponse",
			"ClientInfo":         "ClientInfo",
			"TextRange":          "TextRange",
			"TextPosition":       "TextPosition",
			// Unions (tagged enums) and entries whose hand-written types carry their rules.
			"Model":                "v2Model",
			"HookMetadata":         "hookMetadata",
			"Account":              "accountInfo",
			"LoginAccountParams":   "loginParams",
			"LoginAccountResponse": "loginResponse",
			"RateLimitSnapshot":    "wire.V2RateLimits",
			"McpServerStatus":      "mcpServerStatus",
			"ResourceContent":      "mcpResourceContent",
			// MCP's own content blocks, as the MCP SDK writes them.
			"McpServerToolCallResponse": "mcpToolCallResponse",
			// The engine's own protocol types, and the thread wire's.
			"UserInput":         "v2Input",
			"AskForApproval":    "protocol.AskForApproval",
			"CollaborationMode": "protocol.CollaborationMode",
			"ReasoningEffort":   "string",
			"ReasoningSummary":  "string",
			"Turn":              "wire.V2Turn",
			"ReviewTarget":      "protocol.ReviewTarget",
			// The thread wire's thread and the host's sections.
			"Thread":                  "v2Thread",
			"ThreadSection":           "v2ThreadSection",
			"ThreadSectionAppearance": "v2ThreadSectionAppearance",
			"ThreadAttachment":        "v2ThreadAttachment",
			"ThreadGoal":              "v2ThreadGoal",
			"ThreadReadState":         "v2ReadState",
			"ThreadItem":              "wire.V2Item",
			// thread/start, /resume, /fork and thread/list's params keep their hand-written
			// types: the settings Codex reads beyond the schema (profile), sectionId's
			// absent/null/id and cwd's string/list, and the answers' key order as Codex writes it.
			"ThreadStartParams":    "threadStartParams",
			"ThreadStartResponse":  "threadSettings",
			"ThreadResumeParams":   "threadResumeParams",
			"ThreadResumeResponse": "threadResumeResponse",
			"ThreadForkParams":     "threadForkParams",
			"ThreadForkResponse":   "threadSettings",
			"ThreadListParams":     "threadListParams",
			// thread/metadata/update's gitInfo tells absent, null and a value apart.
			"ThreadMetadataGitInfoUpdateParams": "gitInfoEdits",
			// externalAgentConfig's items and results keep their hand-written types.
			"ExternalAgentConfigMigrationItem":                       "migrationItem",
			"ExternalAgentConfigImportHistory":                       "importHistory",
			"ExternalAgentConfigImportHistoryRecordTypeResultParams": "importTypeResult",
			"ExternalAgentDetectedConnectorCandidate":                "json.RawMessage",
			"ExternalAgentImportedConnectorCandidate":                "json.RawMessage",
			// config/read's config is every key in Codex's order; a layer's config the file's.
			"Config":                "orderedObject",
			"ConfigLayerMetadata":   "layerMeta",
			"ConfigLayer":           "configLayer",
			"ProviderSettings":      "providerSettings",
			"ProviderSettingsPatch": "*providerSettingsPatch",
		},
		Omit: map[string]bool{
			"ConfigReadResponse.layers": true, // sent only when asked for (checked against 0.169)
		},
		Keep: map[string]bool{
			"GatewayOAuthReadResponse.supportsDeviceAuth": true, // written false (checked against 0.169)
			"GetAccountTokenUsageResponse.threadUsage":    true, // written null
		},
		Imports: map[string]string{
			"wire":     "github.com/gocodex/gocodex/internal/appserver/wire",
			"protocol": "github.com/gocodex/gocodex/protocol",
		},
	}
}
