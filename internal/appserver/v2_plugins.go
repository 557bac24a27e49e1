package appserver

import (
	"context"
)

// plugin/* and marketplace/*: gocodex has no plugins (Codex's bundles of skills, MCP servers
// and apps from marketplaces), so none is ever installed and no marketplace is configured.
// Reads answer that truthfully in Codex 0.169's shapes (as Codex answers with none
// installed); whatever would install, fetch or share one is refused with a clear error.

const noPlugins = "gocodex does not support plugins"

type pluginInstalledParams struct {
	Cwds []string `json:"cwds"`
}

type pluginLocateParams struct {
	PluginName            *string `json:"pluginName"`
	MarketplacePath       *string `json:"marketplacePath"`
	RemoteMarketplaceName *string `json:"remoteMarketplaceName"`
}

type pluginUninstallParams struct {
	PluginID *string `json:"pluginId"`
}

type pluginSkillReadParams struct {
	RemoteMarketplaceName *string `json:"remoteMarketplaceName"`
	RemotePluginID        *string `json:"remotePluginId"`
	SkillName             *string `json:"skillName"`
}

type marketplaceAddParams struct {
	Source *string `json:"source"`
}

type marketplaceNameParams struct {
	MarketplaceName *string `json:"marketplaceName"`
}

func missingField(name string) error {
	return InvalidRequest("Invalid request: missing field `" + name + "`")
}

// errNotAbsolute is Codex's answer to a relative path where the protocol wants an absolute one.
func errNotAbsolute() error {
	return InvalidRequest("Invalid request: AbsolutePathBuf deserialized without a base path")
}

// locatePlugin checks a read or install names exactly one marketplace, as Codex does.
func locatePlugin(method string, p pluginLocateParams) error {
	if p.PluginName == nil {
		return missingField("pluginName")
	}
	hasPath := p.MarketplacePath != nil && *p.MarketplacePath != ""
	hasRemote := p.RemoteMarketplaceName != nil && *p.RemoteMarketplaceName != ""
	if hasPath == hasRemote {
		return InvalidRequest(method + " requires exactly one of marketplacePath or remoteMarketplaceName")
	}
	return nil
}

func registerPluginMethods(s *Server) {
	s.Handle("plugin/installed", TypedOptional(func(ctx context.Context, c *Conn, p pluginInstalledParams) (map[string]any, error) {
		return map[string]any{"marketplaces": []any{}, "marketplaceLoadErrors": []any{}}, nil
	}))
	s.Handle("plugin/reconcile", TypedOptional(func(ctx context.Context, c *Conn, _ struct{}) (map[string]any, error) {
		return map[string]any{"changedPlugins": []any{}, "failedMaterializationRemotePluginIds": []any{}, "failedRemotePluginIds": []any{}}, nil
	}))
	s.Handle("plugin/read", Typed(func(ctx context.Context, c *Conn, p pluginLocateParams) (struct{}, error) {
		if err := locatePlugin("plugin/read", p); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, InvalidRequest("plugin `" + *p.PluginName + "` was not found: " + noPlugins)
	}))
	s.Handle("plugin/install", Typed(func(ctx context.Context, c *Conn, p pluginLocateParams) (struct{}, error) {
		if err := locatePlugin("plugin/install", p); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, InvalidRequest("cannot install plugin `" + *p.PluginName + "`: " + noPlugins)
	}))
	s.Handle("plugin/uninstall", Typed(func(ctx context.Context, c *Conn, p pluginUninstallParams) (struct{}, error) {
		if p.PluginID == nil {
			return struct{}{}, missingField("pluginId")
		}
		// Nothing is installed, so nothing is left to remove: done, as Codex answers for a
		// plugin it does not have.
		return struct{}{}, nil
	}))
	s.Handle("plugin/skill/read", Typed(func(ctx context.Context, c *Conn, p pluginSkillReadParams) (struct{}, error) {
		if p.RemoteMarketplaceName == nil {
			return struct{}{}, missingField("remoteMarketplaceName")
		}
		return struct{}{}, InvalidRequest("remote plugin skill read is not enabled for marketplace " + *p.RemoteMarketplaceName + ": " + noPlugins)
	}))
	for _, m := range []string{"plugin/share/save", "plugin/share/updateTargets", "plugin/share/list", "plugin/share/checkout", "plugin/share/delete"} {
		s.Handle(m, TypedOptional(func(ctx context.Context, c *Conn, _ map[string]any) (struct{}, error) {
			return struct{}{}, InvalidRequest("plugin sharing is not enabled: " + noPlugins)
		}))
	}
	s.Handle("marketplace/add", Typed(func(ctx context.Context, c *Conn, p marketplaceAddParams) (struct{}, error) {
		if p.Source == nil {
			return struct{}{}, missingField("source")
		}
		return struct{}{}, internalError("failed to add marketplace " + *p.Source + ": " + noPlugins + " or their marketplaces")
	}))
	s.Handle("marketplace/remove", Typed(func(ctx context.Context, c *Conn, p marketplaceNameParams) (struct{}, error) {
		if p.MarketplaceName == nil {
			return struct{}{}, missingField("marketplaceName")
		}
		return struct{}{}, InvalidRequest("marketplace `" + *p.MarketplaceName + "` is not configured or installed")
	}))
	s.Handle("marketplace/upgrade", TypedOptional(func(ctx context.Context, c *Conn, p marketplaceNameParams) (map[string]any, error) {
		if p.MarketplaceName != nil && *p.MarketplaceName != "" {
			return nil, InvalidRequest("marketplace `" + *p.MarketplaceName + "` is not configured or installed")
		}
		return map[string]any{"errors": []any{}, "selectedMarketplaces": []any{}, "upgradedRoots": []any{}}, nil
	}))
}
