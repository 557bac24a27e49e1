package appserver

import (
	"encoding/json"
	"errors"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	threadsvc "github.com/gocodex/gocodex/internal/host/threads"
	"github.com/gocodex/gocodex/internal/version"
	"github.com/gocodex/gocodex/protocol"
)

func newSubmissionID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

// sandboxFromV2 reads turn/start's sandboxPolicy.
func sandboxFromV2(raw json.RawMessage) (*protocol.SandboxPolicy, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var w struct {
		Type                string   `json:"type"`
		WritableRoots       []string `json:"writableRoots"`
		NetworkAccess       any      `json:"networkAccess"`
		ExcludeTmpdirEnvVar bool     `json:"excludeTmpdirEnvVar"`
		ExcludeSlashTmp     bool     `json:"excludeSlashTmp"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, InvalidParams("invalid sandboxPolicy: " + err.Error())
	}
	p := protocol.SandboxPolicy{WritableRoots: w.WritableRoots, ExcludeTmpdirEnvVar: w.ExcludeTmpdirEnvVar, ExcludeSlashTmp: w.ExcludeSlashTmp}
	if b, ok := w.NetworkAccess.(bool); ok {
		p.NetworkAccess = b
	}
	switch w.Type {
	case "dangerFullAccess":
		p.Mode = protocol.SandboxDangerFullAccess
	case "workspaceWrite":
		p.Mode = protocol.SandboxWorkspaceWrite
	case "readOnly", "externalSandbox":
		p.Mode = protocol.SandboxReadOnly
	default:
		return nil, InvalidParams("unknown sandboxPolicy type " + w.Type)
	}
	return &p, nil
}

// threadOverrides are the settings thread/start, thread/resume and thread/fork may change.
type threadOverrides struct {
	Model                 *string                  `json:"model"`
	ModelProvider         *string                  `json:"modelProvider"`
	Profile               *string                  `json:"profile"`
	Cwd                   *string                  `json:"cwd"`
	ApprovalPolicy        *protocol.AskForApproval `json:"approvalPolicy"`
	Sandbox               *protocol.SandboxMode    `json:"sandbox"`
	Config                map[string]any           `json:"config"`
	BaseInstructions      *string                  `json:"baseInstructions"`
	DeveloperInstructions *string                  `json:"developerInstructions"`
}

// loadThreadConfig loads the configuration a thread runs with: the server's sources, the
// request's overrides on top.
func (s *Server) loadThreadConfig(o threadOverrides) (*config.Config, error) {
	cfg, _, err := s.loadThreadConfigWarn(o)
	return cfg, err
}

// loadThreadConfigWarn is loadThreadConfig with the loader's warnings.
func (s *Server) loadThreadConfigWarn(o threadOverrides) (*config.Config, []config.Warning, error) {
	lo := s.opts.LoadOptions
	if s.opts.Config != nil && lo.CodexHome == "" {
		lo.CodexHome = s.opts.Config.CodexHome
	}
	lo = faceopts.ThreadOverrides{
		Cwd:                   o.Cwd,
		Profile:               o.Profile,
		Model:                 o.Model,
		ModelProvider:         o.ModelProvider,
		ApprovalPolicy:        o.ApprovalPolicy,
		SandboxMode:           o.Sandbox,
		BaseInstructions:      o.BaseInstructions,
		DeveloperInstructions: o.DeveloperInstructions,
		Config:                o.Config,
	}.Apply(lo)
	if lo.Env == nil {
		lo.Env = s.opts.Getenv
	}
	cfg, warnings, err := s.opts.LoadConfig(lo)
	if err != nil {
		return nil, nil, InvalidRequest(err.Error())
	}
	cfg.SkillExtraRoots = s.skillRoots.get()
	return cfg, warnings, nil
}

type warnedKey struct{}

// freshWarnings keeps the warnings not yet sent on c: each goes out once per connection
// (every thread/start reloads the same files).
func freshWarnings(c *Conn, warnings []config.Warning) []config.Warning {
	if c == nil || len(warnings) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	seen, _ := c.values[warnedKey{}].(map[string]bool)
	if seen == nil {
		seen = map[string]bool{}
		c.values[warnedKey{}] = seen
	}
	var fresh []config.Warning
	for _, w := range warnings {
		if !seen[w.String()] {
			seen[w.String()] = true
			fresh = append(fresh, w)
		}
	}
	return fresh
}

// sendWarnings sends configWarning notifications.
func sendWarnings(c *Conn, warnings []config.Warning) {
	for _, w := range warnings {
		_ = c.Notify(c.Context(), "configWarning", configWarningNotification{Summary: w.String(), Path: strPtr(w.File)})
	}
}

// v2Thread is the v2 Thread object, its keys in the order Codex 0.169 sends them. Codex also
// sends the experimental keys (environments, extra, attachedToThreadId,
// canAcceptDirectInput, daybreakEnabled) to every client; so does gocodex.
type v2Thread struct {
	ID                 string           `json:"id"`
	Environments       []v2Environment  `json:"environments"`
	Extra              any              `json:"extra"`
	SessionID          string           `json:"sessionId"`
	ForkedFromID       *string          `json:"forkedFromId"`
	AttachedToThreadID *string          `json:"attachedToThreadId"`
	ParentThreadID     *string          `json:"parentThreadId"`
	Preview            string           `json:"preview"`
	Ephemeral          bool             `json:"ephemeral"`
	Section            *v2ThreadSection `json:"section"` // v2_thread_sections.go
	SectionEnteredAt   *int64           `json:"sectionEnteredAt"`
	ProjectID          *string          `json:"projectId"`
	HistoryMode        string           `json:"historyMode"` // "paginated" or "legacy"
	ModelProvider      string           `json:"modelProvider"`
	Model              *string          `json:"model"` // v2_thread_model.go
	ReasoningEffort    *string          `json:"reasoningEffort"`
	CreatedAt          int64            `json:"createdAt"`
	UpdatedAt          int64            `json:"updatedAt"`
	RecencyAt          int64            `json:"recencyAt"`
	Status             any              `json:"status"`
	Path               *string          `json:"path"`
	Cwd                string           `json:"cwd"`
	CLIVersion         string           `json:"cliVersion"`
	Originator         string           `json:"originator"`
	Source             string           `json:"source"`
	// CanAcceptDirectInput is true for a loaded thread, unknown (null) for one on disk.
	CanAcceptDirectInput *bool         `json:"canAcceptDirectInput"`
	ThreadSource         *string       `json:"threadSource"`
	AgentNickname        *string       `json:"agentNickname"`
	AgentRole            *string       `json:"agentRole"`
	GitInfo              *gitInfo      `json:"gitInfo"`
	Name                 *string       `json:"name"`
	DaybreakEnabled      *bool         `json:"daybreakEnabled"`
	Turns                []wire.V2Turn `json:"turns"`
}

// v2Environment is where a thread runs: gocodex has one, the local machine, as Codex's
// default environment "local".
type v2Environment struct {
	EnvironmentID         string   `json:"environmentId"`
	Cwd                   string   `json:"cwd"`
	RuntimeWorkspaceRoots []string `json:"runtimeWorkspaceRoots"`
}

func localEnvironment(cwd string) []v2Environment {
	return []v2Environment{{EnvironmentID: "local", Cwd: cwd, RuntimeWorkspaceRoots: []string{cwd}}}
}

// historyModeOf names a rollout's form as Codex's thread objects do.
func historyModeOf(mode string) string {
	if mode == threadsvc.HistoryModePaginated {
		return "paginated"
	}
	return "legacy"
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func gitFromRollout(g *threadsvc.GitInfo) *gitInfo {
	if g == nil || *g == (threadsvc.GitInfo{}) { // Codex 0.169 writes "git":{} outside a repository
		return nil
	}
	return &gitInfo{Sha: strPtr(g.CommitHash), Branch: strPtr(g.Branch), OriginURL: strPtr(g.RepositoryURL)}
}

// v2ThreadOf describes a loaded thread; withTurns includes its turns.
func (lt *loadedThread) v2(withTurns bool) v2Thread {
	lt.mu.Lock()
	info := lt.info
	status := lt.proj.Status()
	var turns []wire.V2Turn
	if withTurns {
		turns = lt.proj.Turns()
	}
	lt.mu.Unlock()
	if turns == nil {
		turns = []wire.V2Turn{}
	}
	accepts := true
	t := v2Thread{ID: lt.id, Environments: localEnvironment(lt.cfg.Cwd), SessionID: lt.id, ForkedFromID: strPtr(info.ForkedFromID),
		Preview: info.Preview, Ephemeral: info.Ephemeral, HistoryMode: historyModeOf(info.HistoryMode),
		ModelProvider: lt.cfg.ModelProviderID, CreatedAt: info.CreatedAt.Unix(), UpdatedAt: info.UpdatedAt.Unix(),
		RecencyAt: info.UpdatedAt.Unix(), Status: status, Path: strPtr(info.Path), Cwd: lt.cfg.Cwd, CLIVersion: version.Version,
		Originator: info.Originator, Source: "vscode", CanAcceptDirectInput: &accepts, GitInfo: info.Git,
		Name: strPtr(info.Name), Turns: turns}
	t.Model, t.ReasoningEffort = lt.modelAndEffort()
	if info.Ephemeral {
		t.Path = nil
	}
	if lt.reg != nil {
		lt.reg.decorate(&t)
	}
	return t
}

// v2ThreadFromSummary describes a thread on disk: no environment (Codex 0.169 gives one
// to loaded threads only), model and effort left to the caller (v2_thread_model.go).
func v2ThreadFromSummary(s threadsvc.Summary, status any) v2Thread {
	src := s.Source
	switch src {
	case "cli", "vscode", "exec", "appServer":
	case "app-server", "app_server":
		src = "appServer"
	default:
		src = "unknown"
	}
	return v2Thread{ID: s.ID, SessionID: s.ID, ForkedFromID: strPtr(s.ForkedFromID),
		Preview: s.Preview, HistoryMode: historyModeOf(s.HistoryMode), ModelProvider: s.ModelProvider,
		CreatedAt: s.CreatedAt.Unix(), UpdatedAt: s.UpdatedAt.Unix(), RecencyAt: s.UpdatedAt.Unix(), Status: status,
		Path: strPtr(s.Path), Cwd: s.Cwd, CLIVersion: s.CLIVersion, Originator: s.Originator, Source: src,
		GitInfo: gitFromRollout(s.Git), Turns: []wire.V2Turn{}}
}

// threadSettings is the part of thread/start, /resume and /fork answers that describes how
// the thread runs.
type threadSettings struct {
	Thread        v2Thread `json:"thread"`
	Model         string   `json:"model"`
	ModelProvider string   `json:"modelProvider"`
	ServiceTier   *string  `json:"serviceTier"`
	// ActivePermissionProfile, RuntimeWorkspaceRoots and MultiAgentMode are sent as Codex
	// 0.169 sends them: no permission profiles, the cwd as the one root, sub-agents only
	// when asked for (gocodex starts none). The keys are in Codex 0.171's order.
	DisabledPluginIDs       []string        `json:"disabledPluginIds"`
	Cwd                     string          `json:"cwd"`
	RuntimeWorkspaceRoots   []string        `json:"runtimeWorkspaceRoots"`
	InstructionSources      []string        `json:"instructionSources"`
	ApprovalPolicy          any             `json:"approvalPolicy"`
	ApprovalsReviewer       string          `json:"approvalsReviewer"`
	Sandbox                 v2SandboxPolicy `json:"sandbox"`
	ActivePermissionProfile *string         `json:"activePermissionProfile"`
	ReasoningEffort         *string         `json:"reasoningEffort"`
	MultiAgentMode          string          `json:"multiAgentMode"`
}

func (lt *loadedThread) settings(withTurns bool) threadSettings {
	cfg := lt.cfg
	return threadSettings{Thread: lt.v2(withTurns), Model: cfg.Model, ModelProvider: cfg.ModelProviderID, ServiceTier: strPtr(cfg.ServiceTier),
		DisabledPluginIDs: []string{}, Cwd: cfg.Cwd, RuntimeWorkspaceRoots: []string{cfg.Cwd}, InstructionSources: []string{},
		ApprovalPolicy: cfg.ApprovalPolicy, ApprovalsReviewer: "user", Sandbox: v2Sandbox(cfg.SandboxPolicy),
		ReasoningEffort: strPtr(cfg.ReasoningEffort), MultiAgentMode: "explicitRequestOnly"}
}

// errNoThread is Codex's answer for an unknown thread id.
func errNoThread(id string) error {
	if msg := threadIDError(id); msg != "" { // Codex parses the id first
		return InvalidRequest("invalid thread id: " + msg)
	}
	return InvalidRequest("thread not found: " + id)
}

const noRolloutPrefix = "no rollout found for thread id "

// findRollout locates a thread's rollout (live or archived).
func findRollout(codexHome, id string) (string, bool, error) {
	if msg := threadIDError(id); msg != "" {
		return "", false, InvalidRequest("invalid thread id: " + msg)
	}
	if u, err := uuid.Parse(id); err == nil {
		id = u.String() // Codex names the id in its canonical form
	}
	p, archived, err := threadsvc.New(codexHome).Find(id)
	if errors.Is(err, threadsvc.ErrNotFound) {
		return "", false, errNoThread(id) // each method rewords it (v2_thread_errors.go)
	}
	if err != nil {
		return "", false, internalError(err.Error())
	}
	return p, archived, nil
}

// replayTurns rebuilds a stored thread's turns from its rollout's persisted events.
func replayTurns(r *threadsvc.Rollout) ([]wire.V2Turn, string) {
	rp := replayStored(r)
	return rp.turns, rp.preview
}

// storedReplay is what one projection of a stored thread's events gives: its turns, its
// preview (the first user message) and its latest token usage.
type storedReplay struct {
	turns    []wire.V2Turn
	preview  string
	usage    wire.V2TokenUsageUpdated
	hasUsage bool
}

// replayStored projects the rollout's persisted events once.
func replayStored(r *threadsvc.Rollout) storedReplay {
	proj := wire.NewV2Projector(r.Meta.ID, nil)
	var out storedReplay
	for _, m := range r.InitialMessages() {
		if um, ok := m.(protocol.UserMessageEvent); ok && out.preview == "" {
			out.preview = um.Message
		}
		if rb, ok := m.(protocol.ThreadRolledBackEvent); ok {
			// A rollback or revert dropped turns: the projection drops them too.
			proj = dropUserTurns(r.Meta.ID, proj.Turns(), rb.NumTurns)
			continue
		}
		proj.Apply(protocol.Event{Msg: m})
		if _, ok := m.(protocol.TokenCountEvent); ok {
			if u, ok := proj.LastUsage(); ok {
				out.usage, out.hasUsage = u, true
			}
		}
	}
	if _, ok := proj.TurnRunning(); ok {
		// The process ended during this turn: show what it had, as interrupted.
		proj.Apply(protocol.Event{Msg: protocol.TurnAbortedEvent{Reason: protocol.AbortInterrupted}})
	}
	out.turns = proj.Turns()
	return out
}

func codexHome(s *Server) string {
	if s.opts.Config != nil {
		return s.opts.Config.CodexHome
	}
	return s.opts.LoadOptions.CodexHome
}
