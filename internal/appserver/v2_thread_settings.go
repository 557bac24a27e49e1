package appserver

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/protocol"
)

// thread/settings/updated: when a turn/start changes a thread's settings (model, effort,
// cwd, approvals, sandbox, summary, collaboration mode), Codex 0.169 tells the thread's
// experimental clients the settings now in force, before that turn starts. A turn/start that
// changes nothing sends nothing.

// v2ThreadSettings is ThreadSettings, keys in the order Codex 0.169 writes them (environments
// is an experimental field; only experimental clients get this notification).
type v2ThreadSettings struct {
	DisabledPluginIDs       []string                   `json:"disabledPluginIds"`
	Cwd                     string                     `json:"cwd"`
	Environments            []v2SettingsEnvironment    `json:"environments"`
	ApprovalPolicy          protocol.AskForApproval    `json:"approvalPolicy"`
	ApprovalsReviewer       string                     `json:"approvalsReviewer"`
	SandboxPolicy           v2SandboxPolicy            `json:"sandboxPolicy"`
	ActivePermissionProfile *json.RawMessage           `json:"activePermissionProfile"`
	Model                   string                     `json:"model"`
	ModelProvider           string                     `json:"modelProvider"`
	ServiceTier             *string                    `json:"serviceTier"`
	Effort                  *string                    `json:"effort"`
	Summary                 *string                    `json:"summary"`
	CollaborationMode       protocol.CollaborationMode `json:"collaborationMode"`
	MultiAgentMode          string                     `json:"multiAgentMode"`
	Personality             *string                    `json:"personality"`
}

type v2SettingsEnvironment struct {
	EnvironmentID         string   `json:"environmentId"`
	Cwd                   string   `json:"cwd"`
	RuntimeWorkspaceRoots []string `json:"runtimeWorkspaceRoots"`
}

// threadSettingsState is what turn/start overrides have made of a thread's settings.
type threadSettingsState struct {
	mu      sync.Mutex
	current *v2ThreadSettings // nil until the first turn/start
}

// initialSettings are a thread's settings as it started.
func (lt *loadedThread) initialSettings() *v2ThreadSettings {
	cfg := lt.cfg
	s := &v2ThreadSettings{DisabledPluginIDs: []string{}, Cwd: cfg.Cwd, ApprovalPolicy: cfg.ApprovalPolicy, ApprovalsReviewer: "user",
		SandboxPolicy: v2Sandbox(cfg.SandboxPolicy), Model: cfg.Model, ModelProvider: cfg.ModelProviderID,
		ServiceTier: strPtr(cfg.ServiceTier), Effort: strPtr(cfg.ReasoningEffort), Summary: strPtr(cfg.ReasoningSummary),
		CollaborationMode: protocol.CollaborationMode{Mode: "default"}, MultiAgentMode: "explicitRequestOnly"}
	s.syncDerived()
	return s
}

// syncDerived fills the fields that follow from others.
func (s *v2ThreadSettings) syncDerived() {
	s.Environments = []v2SettingsEnvironment{{EnvironmentID: "local", Cwd: s.Cwd, RuntimeWorkspaceRoots: []string{s.Cwd}}}
	s.CollaborationMode.Settings.Model = s.Model
	s.CollaborationMode.Settings.ReasoningEffort = s.Effort
}

// settingsChange applies a turn/start's overrides and, when the settings changed, tells the
// thread's experimental subscribers through their queues (so before the turn's own
// notifications).
func (lt *loadedThread) settingsChange(p TurnStartParams, sandbox *protocol.SandboxPolicy) {
	lt.settingsState.mu.Lock()
	defer lt.settingsState.mu.Unlock()
	cur := lt.settingsState.current
	if cur == nil {
		cur = lt.initialSettings()
	}
	next := *cur
	if p.Cwd != nil {
		next.Cwd = *p.Cwd
	}
	if p.ApprovalPolicy != nil {
		next.ApprovalPolicy = *p.ApprovalPolicy
	}
	if sandbox != nil {
		next.SandboxPolicy = v2Sandbox(*sandbox)
	}
	if p.Model != nil {
		next.Model = *p.Model
	}
	if p.Effort != nil {
		next.Effort = p.Effort
	}
	if p.Summary != nil {
		next.Summary = p.Summary
	}
	if cm := p.CollaborationMode; cm != nil {
		next.CollaborationMode = *cm
		if cm.Settings.Model != "" {
			next.Model = cm.Settings.Model
		}
		if cm.Settings.ReasoningEffort != nil {
			next.Effort = cm.Settings.ReasoningEffort
		}
	}
	next.syncDerived()
	lt.settingsState.current = &next
	before, _ := json.Marshal(cur)
	after, _ := json.Marshal(&next)
	if bytes.Equal(before, after) {
		return
	}
	n := wire.V2Notification{Method: "thread/settings/updated", Params: struct {
		ThreadID       string            `json:"threadId"`
		ThreadSettings *v2ThreadSettings `json:"threadSettings"`
	}{lt.id, &next}}
	lt.mu.Lock()
	subs := append([]*Conn(nil), lt.subs...)
	lt.mu.Unlock()
	for _, c := range subs {
		if c.Capabilities().ExperimentalAPI {
			lt.notifySub(c, n)
		}
	}
}

// warnUnknownModel tells the thread's subscribers, before each turn, that its model has no
// metadata in the catalog, in Codex 0.169's words (it says so at every turn).
func (lt *loadedThread) warnUnknownModel() {
	lt.settingsState.mu.Lock()
	m := lt.cfg.Model
	if cur := lt.settingsState.current; cur != nil {
		m = cur.Model
	}
	lt.settingsState.mu.Unlock()
	if m == "" || app.KnownModel(m) {
		return
	}
	id := lt.id
	n := wire.V2Notification{Method: "warning", Params: wire.V2Warning{ThreadID: &id,
		Message: "Model metadata for `" + m + "` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."}}
	lt.mu.Lock()
	subs := append([]*Conn(nil), lt.subs...)
	lt.mu.Unlock()
	for _, c := range subs {
		lt.notifySub(c, n)
	}
}
