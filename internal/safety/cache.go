package safety

import (
	"encoding/json"
	"sync"

	"github.com/gocodex/gocodex/internal/pathstyle"
	"github.com/gocodex/gocodex/protocol"
)

// ApprovalCache remembers what the person approved "for this session". Keys follow Codex: a
// command is keyed by argv, cwd, tty, sandbox_permissions and additional_permissions (0.169
// asks again for the same command with tty set, or in another workdir); a patch by
// each file it touches, so a later patch touching any subset of approved files is not asked
// about again. Safe for concurrent use.
type ApprovalCache struct {
	mu       sync.Mutex
	approved map[string]bool
}

// NewApprovalCache returns an empty cache; one per session.
func NewApprovalCache() *ApprovalCache {
	return &ApprovalCache{approved: map[string]bool{}}
}

// AllApproved is true when keys is not empty and every key was approved for the session.
func (c *ApprovalCache) AllApproved(keys ...string) bool {
	if c == nil || len(keys) == 0 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		if !c.approved[k] {
			return false
		}
	}
	return true
}

// Approve stores every key as approved for the session.
func (c *ApprovalCache) Approve(keys ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		c.approved[k] = true
	}
}

// Record stores keys when the decision is approved_for_session and reports whether it did.
// Other answers (approved once, an amendment, a denial) leave the cache alone.
func (c *ApprovalCache) Record(d protocol.ReviewDecision, keys ...string) bool {
	if d.EffectiveKind() != protocol.DecisionApprovedForSession || len(keys) == 0 {
		return false
	}
	c.Approve(keys...)
	return true
}

// commandKey mirrors the fields of Codex's shell approval key; it is serialised to JSON so
// that equal requests give equal strings.
type commandKey struct {
	Command               []string        `json:"command"`
	Cwd                   string          `json:"cwd"`
	Tty                   bool            `json:"tty"`
	SandboxPermissions    string          `json:"sandbox_permissions"`
	AdditionalPermissions json.RawMessage `json:"additional_permissions,omitempty"`
}

// CommandKey is the session-cache key of a command request.
func CommandKey(argv []string, cwd string, tty bool, perms SandboxPermissions, additional json.RawMessage) string {
	if perms == "" {
		perms = UseDefault
	}
	if len(additional) > 0 {
		// Compact so formatting differences in the model's JSON do not defeat the cache.
		if c, err := compactJSON(additional); err == nil {
			additional = c
		}
	}
	b, _ := json.Marshal(commandKey{argv, cwd, tty, string(perms), additional}) // cannot fail: plain data
	return "exec:" + string(b)
}

// CacheKey is the session-cache key of this command request.
func (in ExecInput) CacheKey() string {
	return CommandKey(in.Command, in.Cwd, in.Tty, in.SandboxPermissions, in.AdditionalPermissions)
}

// PatchKeys are the session-cache keys of a patch: one per file it writes (cleaned absolute
// paths, move destinations included).
func PatchKeys(paths []string, cwd string) []string {
	keys := make([]string, 0, len(paths))
	for _, p := range paths {
		keys = append(keys, "patch:"+absPath(p, cwd))
	}
	return keys
}

func absPath(p, cwd string) string { return pathstyle.Host().Resolve(cwd, p) }

func compactJSON(b json.RawMessage) ([]byte, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
