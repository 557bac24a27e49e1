package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// externalAgentConfig/*: find another coding agent's setup (Claude Code's CLAUDE.md, skills
// and project MCP servers) next to a project or in the home folder, copy it into Codex's
// places, and keep a history of imports. gocodex detects only what it can import; Codex
// 0.169 also offers settings, commands, subagents, hooks, plugins, memory and sessions.

type namedMigration struct {
	Name string `json:"name"`
}

type migrationDetails struct {
	Commands   []namedMigration `json:"commands"`
	Hooks      []namedMigration `json:"hooks"`
	McpServers []namedMigration `json:"mcpServers"`
	Plugins    []namedMigration `json:"plugins"`
	Sessions   []namedMigration `json:"sessions"`
	Skills     []namedMigration `json:"skills"`
	Subagents  []namedMigration `json:"subagents"`
}

func newMigrationDetails() *migrationDetails {
	e := []namedMigration{}
	return &migrationDetails{Commands: e, Hooks: e, McpServers: e, Plugins: e, Sessions: e, Skills: e, Subagents: e}
}

type migrationItem struct {
	Cwd         *string           `json:"cwd"`
	Description string            `json:"description"`
	Details     *migrationDetails `json:"details"`
	ItemType    string            `json:"itemType"`
}

type importSuccess struct {
	Cwd      *string `json:"cwd"`
	ItemType string  `json:"itemType"`
	Source   *string `json:"source"`
	Target   *string `json:"target"`
	Title    *string `json:"title"`
}

type importFailure struct {
	Cwd          *string `json:"cwd"`
	ErrorType    *string `json:"errorType"`
	FailureStage string  `json:"failureStage"`
	ItemType     string  `json:"itemType"`
	Message      string  `json:"message"`
	Source       *string `json:"source"`
	SubErrorType *string `json:"subErrorType"`
}

type importTypeResult struct {
	Failures  []importFailure `json:"failures"`
	ItemType  string          `json:"itemType"`
	Successes []importSuccess `json:"successes"`
}

type importNotification struct {
	ImportID        string             `json:"importId"`
	ItemTypeResults []importTypeResult `json:"itemTypeResults"`
}

type importHistory struct {
	CompletedAtMs int64           `json:"completedAtMs"`
	Failures      []importFailure `json:"failures"`
	ImportID      string          `json:"importId"`
	ProviderID    *string         `json:"providerId"`
	Successes     []importSuccess `json:"successes"`
}

var migrationKinds = []string{"AGENTS_MD", "CONFIG", "SKILLS", "PLUGINS", "MCP_SERVER_CONFIG", "SUBAGENTS", "HOOKS", "COMMANDS", "MEMORY", "SESSIONS"}

func migrationKindRank(kind string) int {
	for i, k := range migrationKinds {
		if k == kind {
			return i
		}
	}
	return len(migrationKinds)
}

// detectAgentSetup lists what can be migrated from claudeDir (the .claude folder) into a
// scope: cwd nil is the home scope, whose AGENTS.md is $CODEX_HOME's.
func detectAgentSetup(cwd *string, claudeDir, agentsMDDir, skillsBase string) []migrationItem {
	var out []migrationItem
	claudeMD := filepath.Join(filepath.Dir(claudeDir), "CLAUDE.md")
	if cwd == nil {
		claudeMD = filepath.Join(claudeDir, "CLAUDE.md")
	}
	agentsMD := filepath.Join(agentsMDDir, "AGENTS.md")
	if isFile(claudeMD) && !exists(agentsMD) {
		out = append(out, migrationItem{Cwd: cwd, Description: "Migrate " + claudeMD + " to " + agentsMD, ItemType: "AGENTS_MD"})
	}
	if cwd != nil {
		if names := mcpJSONServers(filepath.Join(*cwd, ".mcp.json")); len(names) > 0 {
			d := newMigrationDetails()
			for _, n := range names {
				d.McpServers = append(d.McpServers, namedMigration{Name: n})
			}
			out = append(out, migrationItem{Cwd: cwd, Description: "Migrate MCP servers from " + *cwd + " into " + filepath.Join(*cwd, ".codex", "config.toml"), Details: d, ItemType: "MCP_SERVER_CONFIG"})
		}
	}
	from, to := filepath.Join(claudeDir, "skills"), filepath.Join(skillsBase, ".agents", "skills")
	if names := newSkillFolders(from, to); len(names) > 0 {
		d := newMigrationDetails()
		for _, n := range names {
			d.Skills = append(d.Skills, namedMigration{Name: n})
		}
		out = append(out, migrationItem{Cwd: cwd, Description: "Migrate skills from " + from + " to " + to, Details: d, ItemType: "SKILLS"})
	}
	return out
}

func isFile(p string) bool { fi, err := os.Stat(p); return err == nil && fi.Mode().IsRegular() }
func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// newSkillFolders are the skill folders of from that to does not have yet.
func newSkillFolders(from, to string) []string {
	entries, err := os.ReadDir(from)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && isFile(filepath.Join(from, e.Name(), "SKILL.md")) && !exists(filepath.Join(to, e.Name())) {
			out = append(out, e.Name())
		}
	}
	return out
}

type mcpJSONServer struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Type    string            `json:"type"`
}

func readMCPJSON(path string) map[string]mcpJSONServer {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var f struct {
		McpServers map[string]mcpJSONServer `json:"mcpServers"`
	}
	if json.Unmarshal(b, &f) != nil {
		return nil
	}
	return f.McpServers
}

func mcpJSONServers(path string) []string {
	var names []string
	for n, sv := range readMCPJSON(path) {
		if sv.Command != "" || sv.URL != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// importItem carries out one migration item.
func importItem(s *Server, it migrationItem) importTypeResult {
	r := importTypeResult{ItemType: it.ItemType, Successes: []importSuccess{}, Failures: []importFailure{}}
	fail := func(msg string, src *string) {
		r.Failures = append(r.Failures, importFailure{Cwd: it.Cwd, FailureStage: "import", ItemType: it.ItemType, Message: msg, Source: src})
	}
	ok := func(src, dst string) {
		r.Successes = append(r.Successes, importSuccess{Cwd: it.Cwd, ItemType: it.ItemType, Source: &src, Target: &dst})
	}
	home := s.opts.Getenv("HOME")
	base, claudeDir, agentsMDDir := home, filepath.Join(home, ".claude"), codexHome(s)
	if it.Cwd != nil && *it.Cwd != "" {
		base, claudeDir, agentsMDDir = *it.Cwd, filepath.Join(*it.Cwd, ".claude"), *it.Cwd
	}
	switch it.ItemType {
	case "AGENTS_MD":
		src := filepath.Join(base, "CLAUDE.md")
		if it.Cwd == nil || *it.Cwd == "" {
			src = filepath.Join(claudeDir, "CLAUDE.md")
		}
		dst := filepath.Join(agentsMDDir, "AGENTS.md")
		if err := migrateInstructions(src, dst); err != nil {
			fail(err.Error(), &src)
			return r
		}
		ok(src, dst)
	case "SKILLS":
		from, to := filepath.Join(claudeDir, "skills"), filepath.Join(base, ".agents", "skills")
		for _, name := range newSkillFolders(from, to) {
			src, dst := filepath.Join(from, name), filepath.Join(to, name)
			if err := copyPath(src, dst, true); err != nil {
				fail(err.Error(), &src)
				continue
			}
			ok(name, name) // as Codex: a skill's name for both
		}
	case "MCP_SERVER_CONFIG":
		if it.Cwd == nil {
			fail("gocodex migrates MCP servers of a project (.mcp.json) only", nil)
			return r
		}
		src, dst := filepath.Join(*it.Cwd, ".mcp.json"), filepath.Join(*it.Cwd, ".codex", "config.toml")
		var edits []config.Edit
		names := mcpJSONServers(src)
		for _, name := range names {
			sv := readMCPJSON(src)[name]
			key := []string{"mcp_servers", name}
			at := func(k string) []string { return append(append([]string(nil), key...), k) }
			// Key by key, in Codex's order: command, args, then the env table.
			if sv.URL != "" {
				edits = append(edits, config.Set(at("url"), sv.URL))
				continue
			}
			edits = append(edits, config.Set(at("command"), sv.Command))
			if len(sv.Args) > 0 {
				edits = append(edits, config.Set(at("args"), sv.Args))
			}
			if len(sv.Env) > 0 {
				edits = append(edits, config.Set(at("env"), sv.Env))
			}
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			fail(err.Error(), &src)
			return r
		}
		if err := config.EditFile(dst, edits...); err != nil {
			fail(err.Error(), &src)
			return r
		}
		for _, name := range names {
			ok(name, name) // as Codex: a server's name for both
		}
	default:
		fail("gocodex does not migrate "+it.ItemType+" items", nil)
	}
	return r
}

// migrateInstructions writes CLAUDE.md's text as AGENTS.md, naming Codex where it named
// Claude Code; an AGENTS.md already there is kept.
func migrateInstructions(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if exists(dst) {
		return errors.New(dst + " already exists")
	}
	text := strings.NewReplacer("Claude Code", "Codex", "CLAUDE.md", "AGENTS.md").Replace(string(b))
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		os.Remove(dst)
		return err
	}
	return f.Close()
}

// importHistories keeps the imports in a JSON file of CODEX_HOME, newest first, at most
// maxImportHistories of them.
type importHistories struct {
	mu   sync.Mutex
	path string
}

const maxImportHistories = 100

func (h *importHistories) read() ([]importHistory, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.load()
}

func (h *importHistories) load() ([]importHistory, error) {
	list := []importHistory{}
	b, err := os.ReadFile(h.path)
	if errors.Is(err, fs.ErrNotExist) {
		return list, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, errors.New(h.path + " is not a valid import history: " + err.Error())
	}
	return list, nil
}

func (h *importHistories) add(id string, provider *string, results []importTypeResult) error {
	e := importHistory{CompletedAtMs: time.Now().UnixMilli(), ImportID: id, ProviderID: provider, Successes: []importSuccess{}, Failures: []importFailure{}}
	for _, r := range results {
		e.Successes = append(e.Successes, r.Successes...)
		e.Failures = append(e.Failures, r.Failures...)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	list, err := h.load()
	if err != nil {
		return err
	}
	list = append([]importHistory{e}, list...)
	if len(list) > maxImportHistories {
		list = list[:maxImportHistories]
	}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return err
	}
	tmp := h.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, h.path)
}

// ExternalAgentConfigDetect answers externalAgentConfig/detect.
func (a *api) ExternalAgentConfigDetect(ctx context.Context, c *Conn, p ExternalAgentConfigDetectParams) (ExternalAgentConfigDetectResponse, error) {
	s := a.s
	out := ExternalAgentConfigDetectResponse{Connectors: []json.RawMessage{}, Items: []migrationItem{}}
	if p.IncludeHome != nil && *p.IncludeHome {
		if home := s.opts.Getenv("HOME"); home != "" {
			out.Items = append(out.Items, detectAgentSetup(nil, filepath.Join(home, ".claude"), codexHome(s), home)...)
		}
	}
	for _, cwd := range p.Cwds {
		if !filepath.IsAbs(cwd) {
			return out, InvalidRequest("Invalid request: cwd must be absolute: " + cwd)
		}
		cwd := cwd
		out.Items = append(out.Items, detectAgentSetup(&cwd, filepath.Join(cwd, ".claude"), cwd, cwd)...)
	}
	return out, nil
}

// ExternalAgentConfigImport answers externalAgentConfig/import.
func (a *api) ExternalAgentConfigImport(ctx context.Context, c *Conn, p ExternalAgentConfigImportParams) (ExternalAgentConfigImportResponse, error) {
	s, h := a.s, a.imports
	if p.MigrationItems == nil {
		return ExternalAgentConfigImportResponse{}, InvalidRequest("Invalid request: missing field `migrationItems`")
	}
	id := uuid.NewString()
	items := p.MigrationItems
	if len(items) == 0 {
		return ExternalAgentConfigImportResponse{ImportID: id}, nil
	}
	// After the answer, on a goroutine the connection owns.
	jsonrpc.AfterReply(ctx, func() {
		c.Go(func() {
			var results []importTypeResult
			for _, it := range items {
				r := importItem(s, it)
				if n := len(results); n > 0 && results[n-1].ItemType == it.ItemType {
					results[n-1].Successes = append(results[n-1].Successes, r.Successes...)
					results[n-1].Failures = append(results[n-1].Failures, r.Failures...)
				} else {
					results = append(results, r)
				}
			}
			for _, r := range results {
				_ = c.Notify(c.Context(), "externalAgentConfig/import/progress", importNotification{ImportID: id, ItemTypeResults: []importTypeResult{r}})
			}
			// The summary lists the kinds in Codex's order of them.
			sort.SliceStable(results, func(i, j int) bool {
				return migrationKindRank(results[i].ItemType) < migrationKindRank(results[j].ItemType)
			})
			if err := h.add(id, p.ProviderID, results); err != nil {
				s.opts.Logger.Warn("external agent import history not written", "err", err)
			}
			_ = c.Notify(c.Context(), "externalAgentConfig/import/completed", importNotification{ImportID: id, ItemTypeResults: results})
		})
	})
	return ExternalAgentConfigImportResponse{ImportID: id}, nil
}

// ExternalAgentConfigImportRecordHistory answers externalAgentConfig/import/recordHistory.
func (a *api) ExternalAgentConfigImportRecordHistory(ctx context.Context, c *Conn, p ExternalAgentConfigImportHistoryRecordParams) (ExternalAgentConfigImportHistoryRecordResponse, error) {
	if p.ItemTypeResults == nil {
		return ExternalAgentConfigImportHistoryRecordResponse{}, InvalidRequest("Invalid request: missing field `itemTypeResults`")
	}
	id := uuid.NewString()
	if err := a.imports.add(id, &p.ProviderID, p.ItemTypeResults); err != nil {
		return ExternalAgentConfigImportHistoryRecordResponse{}, internalError(err.Error())
	}
	return ExternalAgentConfigImportHistoryRecordResponse{ImportID: id}, nil
}

// ExternalAgentConfigImportReadHistories answers externalAgentConfig/import/readHistories.
func (a *api) ExternalAgentConfigImportReadHistories(ctx context.Context, c *Conn) (ExternalAgentConfigImportHistoriesReadResponse, error) {
	list, err := a.imports.read()
	if err != nil {
		return ExternalAgentConfigImportHistoriesReadResponse{}, internalError(err.Error())
	}
	return ExternalAgentConfigImportHistoriesReadResponse{Data: list, Connectors: []json.RawMessage{}}, nil
}
