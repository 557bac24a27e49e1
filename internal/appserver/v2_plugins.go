package appserver

import (
	"context"
)

// plugin/* and marketplace/*: gocodex has no plugins (Codex's bundles of skills, MCP servers
// and apps from marketplaces), so none is ever installed and no marketplace is configured.
// Reads answer that truthfully in Codex 0.169's shapes (as Codex answers with none
// installed); whatever would install, fetch or share one is refused with a clear error.

const noPlugins = "gocodex does not support plugins"

func missingField(name string) error {
	return InvalidRequest("Invalid request: missing field `" + name + "`")
}

// errNotAbsolute is Codex's answer to a relative path where the protocol wants an absolute one.
func errNotAbsolute() error {
	return InvalidRequest("Invalid request: AbsolutePathBuf deserialized without a base path")
}

// locatePlugin checks a read or install names exactly one marketplace, as Codex does.
func locatePlugin(method string, marketplacePath *pathString, remoteMarketplaceName *string) error {
	hasPath := marketplacePath != nil && *marketplacePath != ""
	hasRemote := remoteMarketplaceName != nil && *remoteMarketplaceName != ""
	if hasPath == hasRemote {
		return InvalidRequest(method + " requires exactly one of marketplacePath or remoteMarketplaceName")
	}
	return nil
}

// PluginList answers plugin/list: no marketplace has a plugin gocodex could run.
func (a *api) PluginList(ctx context.Context, c *Conn, _ PluginListParams) (PluginListResponse, error) {
	return PluginListResponse{Marketplaces: []PluginMarketplaceEntry{}, MarketplaceLoadErrors: []MarketplaceLoadErrorInfo{}, FeaturedPluginIDs: []string{}}, nil
}

// PluginInstalled answers plugin/installed.
func (a *api) PluginInstalled(ctx context.Context, c *Conn, _ PluginInstalledParams) (PluginInstalledResponse, error) {
	return PluginInstalledResponse{Marketplaces: []PluginMarketplaceEntry{}, MarketplaceLoadErrors: []MarketplaceLoadErrorInfo{}}, nil
}

// PluginReconcile answers plugin/reconcile.
func (a *api) PluginReconcile(ctx context.Context, c *Conn, _ PluginReconcileParams) (PluginReconcileResponse, error) {
	return PluginReconcileResponse{ChangedPlugins: []PluginReconcileChangedPlugin{}, FailedRemotePluginIDs: []string{}, FailedMaterializationRemotePluginIDs: []string{}}, nil
}

// PluginRead answers plugin/read.
func (a *api) PluginRead(ctx context.Context, c *Conn, p PluginReadParams) (PluginReadResponse, error) {
	if err := locatePlugin("plugin/read", p.MarketplacePath, p.RemoteMarketplaceName); err != nil {
		return PluginReadResponse{}, err
	}
	return PluginReadResponse{}, InvalidRequest("plugin `" + p.PluginName + "` was not found: " + noPlugins)
}

// PluginInstall answers plugin/install.
func (a *api) PluginInstall(ctx context.Context, c *Conn, p PluginInstallParams) (PluginInstallResponse, error) {
	if err := locatePlugin("plugin/install", p.MarketplacePath, p.RemoteMarketplaceName); err != nil {
		return PluginInstallResponse{}, err
	}
	return PluginInstallResponse{}, InvalidRequest("cannot install plugin `" + p.PluginName + "`: " + noPlugins)
}

// PluginUninstall answers plugin/uninstall: nothing is installed, so nothing is left to
// remove: done, as Codex answers for a plugin it does not have.
func (a *api) PluginUninstall(ctx context.Context, c *Conn, _ PluginUninstallParams) (PluginUninstallResponse, error) {
	return PluginUninstallResponse{}, nil
}

// PluginSkillRead answers plugin/skill/read.
func (a *api) PluginSkillRead(ctx context.Context, c *Conn, p PluginSkillReadParams) (PluginSkillReadResponse, error) {
	return PluginSkillReadResponse{}, InvalidRequest("remote plugin skill read is not enabled for marketplace " + p.RemoteMarketplaceName + ": " + noPlugins)
}

// errNoPluginSharing answers the plugin/share/* requests.
func errNoPluginSharing() error { return InvalidRequest("plugin sharing is not enabled: " + noPlugins) }

// PluginShareSave answers plugin/share/save.
func (a *api) PluginShareSave(ctx context.Context, c *Conn, _ PluginShareSaveParams) (PluginShareSaveResponse, error) {
	return PluginShareSaveResponse{}, errNoPluginSharing()
}

// PluginShareUpdateTargets answers plugin/share/updateTargets.
func (a *api) PluginShareUpdateTargets(ctx context.Context, c *Conn, _ PluginShareUpdateTargetsParams) (PluginShareUpdateTargetsResponse, error) {
	return PluginShareUpdateTargetsResponse{}, errNoPluginSharing()
}

// PluginShareList answers plugin/share/list.
func (a *api) PluginShareList(ctx context.Context, c *Conn, _ PluginShareListParams) (PluginShareListResponse, error) {
	return PluginShareListResponse{}, errNoPluginSharing()
}

// PluginShareCheckout answers plugin/share/checkout.
func (a *api) PluginShareCheckout(ctx context.Context, c *Conn, _ PluginShareCheckoutParams) (PluginShareCheckoutResponse, error) {
	return PluginShareCheckoutResponse{}, errNoPluginSharing()
}

// PluginShareDelete answers plugin/share/delete.
func (a *api) PluginShareDelete(ctx context.Context, c *Conn, _ PluginShareDeleteParams) (PluginShareDeleteResponse, error) {
	return PluginShareDeleteResponse{}, errNoPluginSharing()
}

// MarketplaceAdd answers marketplace/add.
func (a *api) MarketplaceAdd(ctx context.Context, c *Conn, p MarketplaceAddParams) (MarketplaceAddResponse, error) {
	return MarketplaceAddResponse{}, internalError("failed to add marketplace " + p.Source + ": " + noPlugins + " or their marketplaces")
}

// MarketplaceRemove answers marketplace/remove.
func (a *api) MarketplaceRemove(ctx context.Context, c *Conn, p MarketplaceRemoveParams) (MarketplaceRemoveResponse, error) {
	return MarketplaceRemoveResponse{}, InvalidRequest("marketplace `" + p.MarketplaceName + "` is not configured or installed")
}

// MarketplaceUpgrade answers marketplace/upgrade.
func (a *api) MarketplaceUpgrade(ctx context.Context, c *Conn, p MarketplaceUpgradeParams) (MarketplaceUpgradeResponse, error) {
	if p.MarketplaceName != nil && *p.MarketplaceName != "" {
		return MarketplaceUpgradeResponse{}, InvalidRequest("marketplace `" + *p.MarketplaceName + "` is not configured or installed")
	}
	return MarketplaceUpgradeResponse{SelectedMarketplaces: []string{}, UpgradedRoots: []pathString{}, Errors: []MarketplaceUpgradeErrorInfo{}}, nil
}
