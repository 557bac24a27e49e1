package appserver

import (
	"encoding/json"
	"path/filepath"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/protocol"
)

// Small v2 shapes this server builds itself, typed in the reference schema's field order.
// Variants of a tagged union share one struct: the fields another variant does not have are
// omitted.

// v2SandboxPolicy is the v2 SandboxPolicy union.
type v2SandboxPolicy struct {
	Type                string   `json:"type"`
	WritableRoots       []string `json:"writableRoots,omitempty"`
	NetworkAccess       *bool    `json:"networkAccess,omitempty"`
	ExcludeTmpdirEnvVar *bool    `json:"excludeTmpdirEnvVar,omitempty"`
	ExcludeSlashTmp     *bool    `json:"excludeSlashTmp,omitempty"`
}

// v2Sandbox is the v2 SandboxPolicy object of a policy.
func v2Sandbox(p protocol.SandboxPolicy) v2SandboxPolicy {
	switch p.EffectiveMode() {
	case protocol.SandboxDangerFullAccess:
		return v2SandboxPolicy{Type: "dangerFullAccess"}
	case protocol.SandboxWorkspaceWrite:
		roots := p.WritableRoots
		if roots == nil {
			roots = []string{}
		}
		return v2SandboxPolicy{Type: "workspaceWrite", WritableRoots: roots, NetworkAccess: &p.NetworkAccess,
			ExcludeTmpdirEnvVar: &p.ExcludeTmpdirEnvVar, ExcludeSlashTmp: &p.ExcludeSlashTmp}
	}
	no := false
	return v2SandboxPolicy{Type: "readOnly", NetworkAccess: &no}
}

// configLayerSource is the v2 ConfigLayerSource union (the variants this server reports).
type configLayerSource struct {
	Type           string `json:"type"`
	File           string `json:"file,omitempty"`
	DotCodexFolder string `json:"dotCodexFolder,omitempty"`
	// Profile is the profile a user layer is for; Codex 0.169 always sends it there (null).
	Profile string `json:"-"`
}

func (s configLayerSource) MarshalJSON() ([]byte, error) {
	type plain configLayerSource
	if s.Type != "user" {
		return json.Marshal(plain(s))
	}
	return json.Marshal(struct {
		Type    string  `json:"type"`
		File    string  `json:"file"`
		Profile *string `json:"profile"`
	}{s.Type, s.File, strPtr(s.Profile)})
}

// layerName is a layer's v2 ConfigLayerSource.
func layerName(l config.Layer) configLayerSource {
	switch l.Source {
	case config.SourceUser, config.SourceProfileFile, config.SourceProfileTable:
		return configLayerSource{Type: "user", File: l.Path, Profile: l.Profile}
	case config.SourceProject:
		return configLayerSource{Type: "project", DotCodexFolder: filepath.Dir(l.Path)}
	case config.SourceManaged:
		return configLayerSource{Type: "legacyManagedConfigTomlFromFile", File: l.Path}
	}
	return configLayerSource{Type: "sessionFlags"}
}

// configWarningNotification is configWarning's params.
type configWarningNotification struct {
	Summary string  `json:"summary"`
	Details *string `json:"details"`
	Path    *string `json:"path"`
}

// commandExecOutputDelta is command/exec/outputDelta's params.
type commandExecOutputDelta struct {
	ProcessID   string `json:"processId"`
	Stream      string `json:"stream"`
	DeltaBase64 string `json:"deltaBase64"`
	CapReached  bool   `json:"capReached"`
}

// providerSettings is the v2 ProviderSettings union (openai and customGateway).
type providerSettings struct {
	Type string       `json:"type"`
	Auth *gatewayAuth `json:"auth,omitempty"`
}

type gatewayAuth struct {
	Mode   string  `json:"mode"`
	EnvKey *string `json:"envKey"`
}

// inputTooLargeData is the error data of a turn over the input limit.
type inputTooLargeData struct {
	InputErrorCode string `json:"input_error_code"`
	MaxChars       int    `json:"max_chars"`
	ActualChars    int    `json:"actual_chars"`
}
