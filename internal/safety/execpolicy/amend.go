package execpolicy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gocodex/gocodex/internal/filelock"
)

// DefaultRulesPath is CODEX_HOME/rules/default.rules.
func DefaultRulesPath(codexHome string) string {
	return filepath.Join(codexHome, RulesDirName, DefaultRulesFile)
}

// AllowRuleLine renders the line an amendment appends:
// prefix_rule(pattern=["git", "pull"], decision="allow").
func AllowRuleLine(prefix []string) string {
	return fmt.Sprintf(`prefix_rule(pattern=%s, decision="allow")`, jsonStrings(prefix))
}

// AppendAllowRule appends an allow rule for prefix to CODEX_HOME/rules/default.rules,
// creating the folder and file as needed. The file is locked while it is read and appended
// to, so concurrent sessions never interleave lines; a line already present is not added
// twice; a file missing its final newline gets one first.
func AppendAllowRule(codexHome string, prefix []string) error {
	if len(prefix) == 0 {
		return errors.New("prefix rule requires at least one token")
	}
	return appendLockedLine(DefaultRulesPath(codexHome), AllowRuleLine(prefix))
}

func appendLockedLine(path, line string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("failed to create policy directory %s: %w", dir, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("failed to open policy file %s: %w", path, err)
	}
	defer f.Close()
	if err := filelock.Lock(f, filelock.ModeExclusive); err != nil {
		return fmt.Errorf("failed to lock policy file %s: %w", path, err)
	}
	// Closing the file releases the lock.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("failed to seek policy file %s: %w", path, err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("failed to read policy file %s: %w", path, err)
	}
	contents := string(data)
	for _, existing := range strings.Split(contents, "\n") {
		if strings.TrimSuffix(existing, "\r") == line {
			return nil
		}
	}
	var out strings.Builder
	if contents != "" && !strings.HasSuffix(contents, "\n") {
		out.WriteByte('\n')
	}
	out.WriteString(line)
	out.WriteByte('\n')
	// One write on an O_APPEND file: the line lands whole at the end.
	if _, err := f.WriteString(out.String()); err != nil {
		return fmt.Errorf("failed to write to policy file %s: %w", path, err)
	}
	return f.Close()
}

// Store holds the session's current policy and applies amendments: the file on disk and the
// rules in memory change together, so the very next command sees the new rule. Readers never
// block; amendments are serialised.
type Store struct {
	codexHome string
	current   atomic.Pointer[Policy]
	mu        sync.Mutex
}

// NewStore starts from a loaded policy (nil means no rules).
func NewStore(codexHome string, p *Policy) *Store {
	if p == nil {
		p = Empty()
	}
	s := &Store{codexHome: codexHome}
	s.current.Store(p)
	return s
}

// Current returns the policy to evaluate commands against.
func (s *Store) Current() *Policy { return s.current.Load() }

// AppendAllowRule persists an allow rule for prefix and adds it to the in-memory policy.
func (s *Store) AppendAllowRule(prefix []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := AppendAllowRule(s.codexHome, prefix); err != nil {
		return fmt.Errorf("failed to update rules file %s: %w", DefaultRulesPath(s.codexHome), err)
	}
	cur := s.current.Load()
	ev := cur.Check([][]string{prefix}, nil, MatchOptions{ResolveHostExecutables: true})
	if ev.HasDecision() && ev.Decision == Allow {
		return nil // already allowed; nothing to add in memory
	}
	next := cur.Clone()
	if err := next.AddPrefixRule(prefix, Allow); err != nil {
		return err
	}
	s.current.Store(next)
	return nil
}
