package rpcgen

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
			"Model":                 "v2Model",
			"HookMetadata":          "hookMetadata",
			"ProviderSettings":      "providerSettings",
			"ProviderSettingsPatch": "*providerSettingsPatch",
		},
	}
}
