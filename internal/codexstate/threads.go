package codexstate

import (
	"database/sql"
	"time"
)

// Thread is one row of Codex's threads table, as Codex's own repair fills it from a
// rollout: the rollout's head (session_meta and first user message) and its latest turn
// settings and token count.
type Thread struct {
	ID          string
	RolloutPath string
	CreatedAt   time.Time // session_meta's timestamp
	UpdatedAt   time.Time // the last line written
	// Source is session_meta's source ("exec", "cli", "vscode", ...).
	Source        string
	ModelProvider string
	Cwd           string
	// FirstUserMessage is the first message the user typed: Codex's title, first message and
	// preview. A row without it is hidden from Codex's lists.
	FirstUserMessage string
	// SandboxPolicy is Codex's permission profile JSON (see PermissionProfile).
	SandboxPolicy string
	// ApprovalMode is the approval policy ("never", "on-request", ...).
	ApprovalMode    string
	TokensUsed      int64
	CLIVersion      string
	Model           string
	ReasoningEffort string
	GitSHA          string
	GitBranch       string
	GitOriginURL    string
	HistoryMode     string // "paginated" or "legacy"
	Originator      string
	// Name is the thread's name (session_index.jsonl) when it has one; a name already in
	// the row (Codex's, or a later rename's) stays.
	Name string
}

// upsertThread inserts the row, or brings an existing one up to date: what changes from
// turn to turn, and the first message if the row had none (Codex's own title wins).
const upsertThread = `INSERT INTO threads (id, rollout_path, created_at, updated_at, source, model_provider, cwd,
	title, sandbox_policy, approval_mode, tokens_used, has_user_event, archived, git_sha, git_branch,
	git_origin_url, cli_version, first_user_message, memory_mode, model, reasoning_effort,
	created_at_ms, updated_at_ms, preview, recency_at, recency_at_ms, history_mode, originator, name)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 0, 0, ?12, ?13, ?14, ?15, ?8, 'enabled', ?16, ?17,
	?18, ?19, ?8, ?4, ?19, ?20, ?21, ?22)
ON CONFLICT(id) DO UPDATE SET
	rollout_path = excluded.rollout_path,
	updated_at = excluded.updated_at, updated_at_ms = excluded.updated_at_ms,
	recency_at = excluded.recency_at, recency_at_ms = excluded.recency_at_ms,
	sandbox_policy = excluded.sandbox_policy, approval_mode = excluded.approval_mode,
	tokens_used = excluded.tokens_used, model = excluded.model,
	reasoning_effort = excluded.reasoning_effort,
	name = COALESCE(threads.name, excluded.name),
	title = CASE WHEN threads.title = '' THEN excluded.title ELSE threads.title END,
	first_user_message = CASE WHEN threads.first_user_message = '' THEN excluded.first_user_message ELSE threads.first_user_message END,
	preview = CASE WHEN threads.preview = '' THEN excluded.preview ELSE threads.preview END`

// IndexThread writes t's row into CODEX_HOME's state database, when Codex has made one.
// Without a database it does nothing: Codex indexes every rollout when it creates it.
func IndexThread(codexHome string, t Thread) error {
	historyMode := t.HistoryMode
	if historyMode == "" {
		historyMode = "legacy"
	}
	return exec(codexHome, upsertThread,
		t.ID, t.RolloutPath, t.CreatedAt.Unix(), t.UpdatedAt.Unix(), t.Source, t.ModelProvider, t.Cwd,
		t.FirstUserMessage, t.SandboxPolicy, t.ApprovalMode, t.TokensUsed,
		orNull(t.GitSHA), orNull(t.GitBranch), orNull(t.GitOriginURL), t.CLIVersion,
		orNull(t.Model), orNull(t.ReasoningEffort),
		t.CreatedAt.UnixMilli(), t.UpdatedAt.UnixMilli(), historyMode, orNull(t.Originator), orNull(t.Name))
}

// SetArchived records that gocodex archived (or unarchived) the thread and where its
// rollout now is, as Codex's own archive does.
func SetArchived(codexHome, id, rolloutPath string, archived bool, at time.Time) error {
	if !archived {
		return exec(codexHome, `UPDATE threads SET archived = 0, archived_at = NULL, rollout_path = ? WHERE id = ?`, rolloutPath, id)
	}
	return exec(codexHome, `UPDATE threads SET archived = 1, archived_at = ?, rollout_path = ? WHERE id = ?`, at.Unix(), rolloutPath, id)
}

// DeleteThread removes the thread's row after gocodex deleted its rollout, so Codex's lists
// do not offer a thread that is gone.
func DeleteThread(codexHome, id string) error {
	return exec(codexHome, `DELETE FROM threads WHERE id = ?`, id)
}

// SetName records the thread's name (Codex shows it in its lists in place of the title).
func SetName(codexHome, id, name string) error {
	return exec(codexHome, `UPDATE threads SET name = ? WHERE id = ?`, orNull(name), id)
}

func orNull(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
