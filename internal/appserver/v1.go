package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/pelletier/go-toml/v2"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/auth"
	threadsvc "github.com/gocodex/gocodex/internal/host/threads"
	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/internal/safegit"
	"github.com/gocodex/gocodex/protocol"
)

// The v1 conversation API of Codex's app-server 0.63: conversations are engine threads;
// events reach a client only through addConversationListener, as codex/event/<type>
// notifications whose params are the Event ({id, msg}) plus conversationId.

func (r *threads) registerV1(s *Server) {
	s.Handle("newConversation", TypedOptional(r.newConversation))
	s.Handle("resumeConversation", TypedOptional(r.resumeConversation))
	s.Handle("sendUserMessage", Typed(r.sendUserMessage))
	s.Handle("sendUserTurn", Typed(r.sendUserTurn))
	s.Handle("interruptConversation", Typed(r.interruptConversation))
	s.Handle("addConversationListener", Typed(r.addListener))
	s.Handle("removeConversationListener", Typed(r.removeListener))
	s.Handle("listConversations", TypedOptional(r.listConversations))
	s.Handle("archiveConversation", Typed(r.archiveConversation))
	s.Handle("getConversationSummary", Typed(r.conversationSummary))
	s.Handle("gitDiffToRemote", Typed(gitDiffToRemote))
	s.Handle("loginApiKey", Typed(func(ctx context.Context, c *Conn, p struct {
		APIKey string `json:"apiKey"`
	}) (struct{}, error) {
		if p.APIKey == "" {
			return struct{}{}, InvalidRequest("apiKey must not be empty")
		}
		key := p.APIKey
		if err := accountStore(s).Save(&auth.File{Mode: auth.ModeAPIKey, APIKey: &key}); err != nil {
			return struct{}{}, InvalidRequest(err.Error())
		}
		return struct{}{}, nil
	}))
	s.Handle("getAuthStatus", TypedOptional(func(ctx context.Context, c *Conn, p struct {
		IncludeToken *bool `json:"includeToken"`
	}) (authStatusResponse, error) {
		return authStatus(s, p.IncludeToken != nil && *p.IncludeToken), nil
	}))
	s.Handle("getUserSavedConfig", TypedOptional(func(ctx context.Context, c *Conn, _ struct{}) (userSavedConfigResponse, error) {
		return userSavedConfig(s)
	}))
	s.Handle("setDefaultModel", TypedOptional(func(ctx context.Context, c *Conn, p struct {
		Model           *string `json:"model"`
		ReasoningEffort *string `json:"reasoningEffort"`
	}) (struct{}, error) {
		edits := []ConfigEdit{{KeyPath: "model", Value: jsonOrNull(p.Model)}, {KeyPath: "model_reasoning_effort", Value: jsonOrNull(p.ReasoningEffort)}}
		_, err := configWrite(s, nil, nil, edits)
		return struct{}{}, err
	}))
	s.Handle("userInfo", TypedOptional(func(ctx context.Context, c *Conn, _ struct{}) (userInfoResponse, error) {
		return userInfoResponse{}, nil
	}))
	s.Handle("execOneOffCommand", Typed(func(ctx context.Context, c *Conn, p struct {
		Command       []string                `json:"command"`
		TimeoutMs     *int64                  `json:"timeoutMs"`
		Cwd           *string                 `json:"cwd"`
		SandboxPolicy *protocol.SandboxPolicy `json:"sandboxPolicy"`
	}) (commandExecResponse, error) {
		return commandExec(ctx, s, c, commandExecParams{Command: p.Command, TimeoutMs: p.TimeoutMs, Cwd: p.Cwd, policy: p.SandboxPolicy})
	}))
}

// v1EventParams is a codex/event notification's params: the event and the conversation.
type v1EventParams struct {
	ID             string          `json:"id"`
	Msg            json.RawMessage `json:"msg"`
	ConversationID string          `json:"conversationId"`
}

// sendV1Event sends an engine event to a v1 listener as codex/event/<type>.
func sendV1Event(c *Conn, conversationID string, ev protocol.Event) {
	msg, err := protocol.MarshalEventMsg(ev.Msg)
	if err != nil {
		return
	}
	_ = c.Notify(c.Context(), "codex/event/"+ev.Msg.EventType(), v1EventParams{ID: ev.ID, Msg: msg, ConversationID: conversationID})
}

type newConversationParams struct {
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

func (p newConversationParams) overrides() threadOverrides {
	return threadOverrides{Model: p.Model, ModelProvider: p.ModelProvider, Profile: p.Profile, Cwd: p.Cwd, ApprovalPolicy: p.ApprovalPolicy,
		Sandbox: p.Sandbox, Config: p.Config, BaseInstructions: p.BaseInstructions, DeveloperInstructions: p.DeveloperInstructions}
}

type newConversationResponse struct {
	ConversationID  string  `json:"conversationId"`
	Model           string  `json:"model"`
	ReasoningEffort *string `json:"reasoningEffort"`
	RolloutPath     string  `json:"rolloutPath"`
}

func (r *threads) newConversation(ctx context.Context, c *Conn, p newConversationParams) (newConversationResponse, error) {
	lt, err := r.startThread(ctx, nil, p.overrides(), app.ThreadOptions{}, threadInfo{})
	if err != nil {
		return newConversationResponse{}, err
	}
	r.subscribeV1(c, lt)
	jsonrpc.AfterReply(ctx, lt.markReady)
	return newConversationResponse{ConversationID: lt.id, Model: lt.cfg.Model, ReasoningEffort: strPtr(lt.cfg.ReasoningEffort), RolloutPath: lt.info.Path}, nil
}

type resumeConversationParams struct {
	Path           *string                `json:"path"`
	ConversationID *string                `json:"conversationId"`
	Overrides      *newConversationParams `json:"overrides"`
}

type resumeConversationResponse struct {
	ConversationID  string            `json:"conversationId"`
	Model           string            `json:"model"`
	InitialMessages []json.RawMessage `json:"initialMessages"`
	RolloutPath     string            `json:"rolloutPath"`
}

func (r *threads) resumeConversation(ctx context.Context, c *Conn, p resumeConversationParams) (resumeConversationResponse, error) {
	path := ""
	switch {
	case p.Path != nil && *p.Path != "":
		path = *p.Path
	case p.ConversationID != nil:
		found, _, err := findRollout(codexHome(r.srv), *p.ConversationID)
		if err != nil {
			return resumeConversationResponse{}, err
		}
		path = found
	default:
		return resumeConversationResponse{}, InvalidRequest("either path or conversationId is required")
	}
	ro, err := threadsvc.New(codexHome(r.srv)).Read(path)
	if err != nil {
		return resumeConversationResponse{}, InvalidRequest("failed to load rollout `" + path + "`: " + err.Error())
	}
	var o threadOverrides
	if p.Overrides != nil {
		o = p.Overrides.overrides()
	}
	if o.Cwd == nil && ro.Meta.Cwd != "" {
		o.Cwd = &ro.Meta.Cwd
	}
	turns, preview := replayTurns(ro)
	lt, err := r.startThread(ctx, nil, o, app.ThreadOptions{Resume: ro}, threadInfo{Path: path, Preview: preview})
	if err != nil {
		return resumeConversationResponse{}, err
	}
	lt.mu.Lock()
	lt.proj.Seed(turns)
	lt.mu.Unlock()
	r.subscribeV1(c, lt)
	jsonrpc.AfterReply(ctx, lt.markReady)
	msgs := []json.RawMessage{}
	for _, m := range ro.InitialMessages() {
		if raw, err := protocol.MarshalEventMsg(m); err == nil {
			msgs = append(msgs, raw)
		}
	}
	return resumeConversationResponse{ConversationID: lt.id, Model: lt.cfg.Model, InitialMessages: msgs, RolloutPath: path}, nil
}

// v1Input is a 0.63 InputItem: {"type":"text","data":{"text":…}} and friends.
type v1Input struct {
	Type string `json:"type"`
	Data struct {
		Text     string `json:"text"`
		ImageURL string `json:"image_url"`
		Path     string `json:"path"`
	} `json:"data"`
}

func v1EngineInput(in []v1Input) ([]protocol.InputItem, error) {
	out := make([]protocol.InputItem, 0, len(in))
	for _, it := range in {
		switch it.Type {
		case "text":
			out = append(out, protocol.TextInput(it.Data.Text))
		case "image":
			out = append(out, protocol.InputItem{Type: protocol.InputImage, ImageURL: it.Data.ImageURL})
		case "localImage":
			out = append(out, protocol.InputItem{Type: protocol.InputLocalImage, Path: it.Data.Path})
		default:
			return nil, InvalidParams("unknown variant `" + it.Type + "`, expected one of `text`, `image`, `localImage`")
		}
	}
	return out, nil
}

type sendUserMessageParams struct {
	ConversationID string    `json:"conversationId"`
	Items          []v1Input `json:"items"`
}

func (r *threads) sendUserMessage(ctx context.Context, c *Conn, p sendUserMessageParams) (struct{}, error) {
	lt, err := r.conversation(p.ConversationID)
	if err != nil {
		return struct{}{}, err
	}
	input, err := v1EngineInput(p.Items)
	if err != nil {
		return struct{}{}, err
	}
	if _, err := lt.th.Submit(protocol.UserInputOp{Items: input}); err != nil {
		return struct{}{}, internalError(err.Error())
	}
	return struct{}{}, nil
}

type sendUserTurnParams struct {
	ConversationID string                  `json:"conversationId"`
	Items          []v1Input               `json:"items"`
	Cwd            string                  `json:"cwd"`
	ApprovalPolicy protocol.AskForApproval `json:"approvalPolicy"`
	SandboxPolicy  protocol.SandboxPolicy  `json:"sandboxPolicy"`
	Model          string                  `json:"model"`
	Effort         *string                 `json:"effort"`
	Summary        string                  `json:"summary"`
}

func (r *threads) sendUserTurn(ctx context.Context, c *Conn, p sendUserTurnParams) (struct{}, error) {
	lt, err := r.conversation(p.ConversationID)
	if err != nil {
		return struct{}{}, err
	}
	input, err := v1EngineInput(p.Items)
	if err != nil {
		return struct{}{}, err
	}
	op := protocol.UserTurnOp{Items: input, Cwd: p.Cwd, ApprovalPolicy: p.ApprovalPolicy, SandboxPolicy: p.SandboxPolicy, Model: p.Model, Summary: p.Summary}
	if p.Effort != nil {
		op.Effort = *p.Effort
	}
	if _, err := lt.th.Submit(op); err != nil {
		return struct{}{}, internalError(err.Error())
	}
	return struct{}{}, nil
}

type conversationIDParams struct {
	ConversationID string `json:"conversationId"`
}

func (r *threads) conversation(id string) (*loadedThread, error) {
	lt, ok := r.get(id)
	if !ok {
		return nil, InvalidRequest("conversation not found: " + id)
	}
	return lt, nil
}

// interruptConversation answers once the running turn has been aborted.
func (r *threads) interruptConversation(ctx context.Context, c *Conn, p conversationIDParams) (map[string]string, error) {
	lt, err := r.conversation(p.ConversationID)
	if err != nil {
		return nil, err
	}
	ch := make(chan string, 1)
	lt.mu.Lock()
	lt.aborts = append(lt.aborts, ch)
	lt.mu.Unlock()
	if _, err := lt.th.Submit(protocol.InterruptOp{}); err != nil {
		return nil, internalError(err.Error())
	}
	select {
	case reason := <-ch:
		return map[string]string{"abortReason": reason}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type addListenerParams struct {
	ConversationID        string `json:"conversationId"`
	ExperimentalRawEvents bool   `json:"experimentalRawEvents"`
}

func (r *threads) addListener(ctx context.Context, c *Conn, p addListenerParams) (map[string]string, error) {
	lt, err := r.conversation(p.ConversationID)
	if err != nil {
		return nil, err
	}
	id := uuid.NewString()
	lt.mu.Lock()
	lt.listeners[id] = c
	lt.watchedLocked()
	lt.mu.Unlock()
	r.hookClose(c)
	return map[string]string{"subscriptionId": id}, nil
}

func (r *threads) removeListener(ctx context.Context, c *Conn, p struct {
	SubscriptionID string `json:"subscriptionId"`
}) (struct{}, error) {
	for _, lt := range r.list() {
		lt.mu.Lock()
		_, ok := lt.listeners[p.SubscriptionID]
		delete(lt.listeners, p.SubscriptionID)
		lt.mu.Unlock()
		if ok {
			return struct{}{}, nil
		}
	}
	return struct{}{}, InvalidRequest("subscription not found: " + p.SubscriptionID)
}

type conversationSummary struct {
	ConversationID string     `json:"conversationId"`
	Path           string     `json:"path"`
	Preview        string     `json:"preview"`
	Timestamp      *string    `json:"timestamp"`
	ModelProvider  string     `json:"modelProvider"`
	Cwd            string     `json:"cwd"`
	CLIVersion     string     `json:"cliVersion"`
	Source         string     `json:"source"`
	GitInfo        *v1GitInfo `json:"gitInfo"`
}

type v1GitInfo struct {
	Sha       *string `json:"sha"`
	Branch    *string `json:"branch"`
	OriginURL *string `json:"origin_url"`
}

func summaryOf(s threadsvc.Summary) conversationSummary {
	ts := threadsvc.FormatTimestamp(s.CreatedAt)
	out := conversationSummary{ConversationID: s.ID, Path: s.Path, Preview: s.Preview, Timestamp: &ts, ModelProvider: s.ModelProvider,
		Cwd: s.Cwd, CLIVersion: s.CLIVersion, Source: s.Source}
	if s.Git != nil {
		out.GitInfo = &v1GitInfo{Sha: strPtr(s.Git.CommitHash), Branch: strPtr(s.Git.Branch), OriginURL: strPtr(s.Git.RepositoryURL)}
	}
	return out
}

func (r *threads) listConversations(ctx context.Context, c *Conn, p struct {
	PageSize       *int     `json:"pageSize"`
	Cursor         *string  `json:"cursor"`
	ModelProviders []string `json:"modelProviders"`
}) (listConversationsResponse, error) {
	opts := threadsvc.ListOptions{Providers: p.ModelProviders}
	if p.PageSize != nil {
		opts.PageSize = *p.PageSize
	}
	if p.Cursor != nil {
		opts.Cursor = *p.Cursor
	}
	page, err := threadsvc.New(codexHome(r.srv)).List(opts)
	if err != nil {
		return listConversationsResponse{}, internalError(err.Error())
	}
	items := make([]conversationSummary, 0, len(page.Threads))
	for _, t := range page.Threads {
		items = append(items, summaryOf(t))
	}
	return listConversationsResponse{Items: items, NextCursor: strPtr(page.NextCursor)}, nil
}

func (r *threads) archiveConversation(ctx context.Context, c *Conn, p struct {
	ConversationID string `json:"conversationId"`
	RolloutPath    string `json:"rolloutPath"`
}) (struct{}, error) {
	_, err := (&api{r: r}).ThreadArchive(ctx, c, ThreadArchiveParams{p.ConversationID})
	return struct{}{}, err
}

func (r *threads) conversationSummary(ctx context.Context, c *Conn, p struct {
	RolloutPath    *string `json:"rolloutPath"`
	ConversationID *string `json:"conversationId"`
}) (conversationSummaryResponse, error) {
	var none conversationSummaryResponse
	path := ""
	switch {
	case p.RolloutPath != nil:
		path = *p.RolloutPath
		if !filepath.IsAbs(path) {
			path = filepath.Join(codexHome(r.srv), path)
		}
	case p.ConversationID != nil:
		found, _, err := findRollout(codexHome(r.srv), *p.ConversationID)
		if err != nil {
			return none, err
		}
		path = found
	default:
		return none, InvalidParams("rolloutPath or conversationId is required")
	}
	ro, err := threadsvc.New(codexHome(r.srv)).Read(path)
	if err != nil {
		return none, InvalidRequest("failed to load conversation summary from " + path + ": " + err.Error())
	}
	_, preview := replayTurns(ro)
	sum := threadsvc.Summary{ID: ro.Meta.ID, Path: path, Preview: preview, Cwd: ro.Meta.Cwd, ModelProvider: ro.Meta.ModelProvider,
		CLIVersion: ro.Meta.CLIVersion, Git: ro.Meta.Git}
	if len(ro.Meta.Source) > 1 {
		sum.Source = strings.Trim(string(ro.Meta.Source), `"`)
	}
	if t, err := time.Parse(threadsvc.TimestampFormat, ro.Meta.Timestamp); err == nil {
		sum.CreatedAt = t
	}
	return conversationSummaryResponse{Summary: summaryOf(sum)}, nil
}

// gitDiffToRemote diffs the work tree (untracked files included) against the closest commit
// the upstream has: the merge base with the upstream branch, else HEAD.
func gitDiffToRemote(ctx context.Context, c *Conn, p struct {
	Cwd string `json:"cwd"`
}) (gitDiffToRemoteResponse, error) {
	var none gitDiffToRemoteResponse
	sha, diff, err := safegit.New(safegit.Options{Dir: p.Cwd}).DiffToRemote(ctx)
	if errors.Is(err, safegit.ErrRefused) { // gocodex's own refusal says why
		return none, InvalidRequest("failed to compute git diff to remote for cwd: " + p.Cwd + ": " + err.Error())
	}
	if err != nil {
		return none, InvalidRequest("failed to compute git diff to remote for cwd: " + p.Cwd)
	}
	return gitDiffToRemoteResponse{Sha: sha, Diff: diff}, nil
}

func authStatus(s *Server, includeToken bool) authStatusResponse {
	var out authStatusResponse
	cfg := s.opts.Config
	if cfg == nil {
		return out
	}
	out.RequiresOpenaiAuth = cfg.ModelProvider.RequiresOpenAIAuth
	if key, err := app.ProviderAPIKey(cfg, s.opts.Getenv); err == nil && key != "" {
		method := "apikey"
		out.AuthMethod = &method
		if includeToken {
			out.AuthToken = &key
		}
		return out
	}
	f, err := accountStore(s).Load()
	if err != nil {
		return out
	}
	method := string(f.Mode)
	out.AuthMethod = &method
	if includeToken {
		switch {
		case f.Mode == auth.ModeAPIKey && f.APIKey != nil:
			out.AuthToken = f.APIKey
		case f.Tokens != nil:
			out.AuthToken = &f.Tokens.AccessToken
		}
	}
	return out
}

// userSavedConfig reads the user's config.toml into 0.63's UserSavedConfig. The values are
// passed on as the file has them (a string, or whatever else the user wrote).
func userSavedConfig(s *Server) (userSavedConfigResponse, error) {
	var file savedConfigFile
	if b, err := os.ReadFile(filepath.Join(codexHome(s), "config.toml")); err == nil {
		if err := toml.Unmarshal(b, &file); err != nil {
			return userSavedConfigResponse{}, InvalidRequest("config.toml: " + err.Error())
		}
	}
	cfg := savedConfig{
		ApprovalPolicy: file.ApprovalPolicy, SandboxMode: file.SandboxMode,
		ForcedChatgptWorkspaceID: file.ForcedChatgptWorkspaceID, ForcedLoginMethod: file.ForcedLoginMethod,
		Model: file.Model, ModelReasoningEffort: file.ModelReasoningEffort, ModelReasoningSummary: file.ModelReasoningSummary,
		ModelVerbosity: file.ModelVerbosity, Profile: file.Profile, Profiles: map[string]savedProfile{},
	}
	if sw := file.SandboxWorkspaceWrite; sw != nil {
		roots := sw.WritableRoots
		if roots == nil {
			roots = []any{}
		}
		cfg.SandboxSettings = &savedSandboxSettings{WritableRoots: roots, NetworkAccess: sw.NetworkAccess,
			ExcludeTmpdirEnvVar: sw.ExcludeTmpdirEnvVar, ExcludeSlashTmp: sw.ExcludeSlashTmp}
	}
	for name, p := range file.Profiles {
		cfg.Profiles[name] = savedProfile{Model: p.Model, ModelProvider: p.ModelProvider, ApprovalPolicy: p.ApprovalPolicy,
			ModelReasoningEffort: p.ModelReasoningEffort, ModelReasoningSummary: p.ModelReasoningSummary,
			ModelVerbosity: p.ModelVerbosity, ChatgptBaseURL: p.ChatgptBaseURL}
	}
	return userSavedConfigResponse{Config: cfg}, nil
}

func jsonOrNull(s *string) json.RawMessage {
	if s == nil {
		return json.RawMessage("null")
	}
	b, _ := json.Marshal(*s)
	return b
}
