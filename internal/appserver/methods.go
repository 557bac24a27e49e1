package appserver

import "path/filepath"

// registerMethods registers every method family. This file belongs to the methods (v2/v1):
// add one call per family, e.g. registerThreadMethods(s). The core registers only
// initialize/initialized, in handshake.go.
func (s *Server) registerMethods() {
	r := newThreads(s)
	s.threads = r
	a := &api{s: s, r: r, features: &runtimeFeatures{values: map[string]bool{}}, logins: &logins{active: map[string]func(){}},
		imports: &importHistories{path: filepath.Join(codexHome(s), "external_agent_imports.json")}}
	registerThreadAPI(s, a)
	registerThreadSectionAPI(s, a)
	registerTurnAPI(s, a)
	registerReviewAPI(s, a)
	r.registerCollaboration(s)
	r.registerRollback(s)
	registerHooksAPI(s, a)
	r.registerV1(s)
	registerConfigRequirementsAPI(s, a)
	registerExperimentalFeatureAPI(s, a)
	registerMcpServerAPI(s, a)
	registerMcpServerStatusAPI(s, a)
	registerConfigAPI(s, a)
	registerAccountAPI(s, a)
	registerModelAPI(s, a)
	registerFsAPI(s, a)
	registerFuzzyFileSearchAPI(s, a)
	registerCommandAPI(s, a)
	registerSkillsAPI(s, a)
	registerModelProviderAPI(s, a)
	registerPermissionProfileAPI(s, a)
	registerWindowsSandboxAPI(s, a)
	registerExternalAgentConfigAPI(s, a)
	registerFeedbackAPI(s, a)
	registerPluginAPI(s, a)
	registerMarketplaceAPI(s, a)
	registerAppAPI(s, a)
	r.registerThreadFamilies(s)
	r.registerExperimental(s)
}
