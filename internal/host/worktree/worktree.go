// Package worktree makes the managed Git worktrees of `--worktree` (Codex 0.171): a session
// that runs in a fresh checkout of the repository's current commit, so the user's own
// checkout, its index and its uncommitted files are never touched.
//
// As Codex 0.171 does: the worktree is `$CODEX_HOME/worktrees/<4 hex>/<repository folder
// name>`, at a detached HEAD on the checkout's commit (no branch), without the checkout's
// uncommitted or untracked files; a session started in a subfolder runs in the same
// subfolder of the worktree; the worktree is kept afterwards, and git's administrative folder
// for it holds `codex-thread.json` naming the thread that owns it.
package worktree

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gocodex/gocodex/internal/safegit"

	"github.com/gocodex/gocodex/internal/atomicfile"
	"github.com/gocodex/gocodex/internal/config"
)

// Managed is one managed worktree.
type Managed struct {
	// Root is the worktree's top folder; Cwd the session's folder inside it.
	Root, Cwd string
	// GitDir is git's administrative folder of this worktree (in the main repository's
	// .git/worktrees), where the owner record goes.
	GitDir string
}

// OwnerFile is the record of the thread a managed worktree belongs to, in its GitDir.
const OwnerFile = "codex-thread.json"

// Create makes a managed worktree of the repository cwd is in, under codexHome. Outside a
// repository it fails as Codex does ("git command failed: fatal: not a git repository...").
// git runs through safegit: the checkout runs none of the repository's filters or hooks.
func Create(ctx context.Context, codexHome, cwd string) (*Managed, error) {
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return nil, err
	}
	if cwd, err = filepath.EvalSymlinks(cwd); err != nil {
		return nil, err
	}
	out, err := safegit.New(safegit.Options{Dir: cwd}).Output(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, gitFailed(err)
	}
	top, err := filepath.EvalSymlinks(strings.TrimSpace(string(out)))
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(top, cwd)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s is not inside the repository %s", cwd, top)
	}
	parent, err := newSlot(filepath.Join(codexHome, "worktrees"))
	if err != nil {
		return nil, err
	}
	root := filepath.Join(parent, filepath.Base(top))
	if _, err := safegit.New(safegit.Options{Dir: top}).Output(ctx, "worktree", "add", "--detach", "--quiet", root, "HEAD"); err != nil {
		_ = os.Remove(parent)
		return nil, gitFailed(err)
	}
	out, err = safegit.New(safegit.Options{Dir: root}).Output(ctx, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return nil, gitFailed(err)
	}
	m := &Managed{Root: root, Cwd: filepath.Join(root, rel), GitDir: strings.TrimSpace(string(out))}
	// A subfolder with only untracked files is not in the checkout; the session still
	// starts where the user was.
	if err := os.MkdirAll(m.Cwd, 0o755); err != nil {
		return nil, err
	}
	return m, nil
}

// RecordOwner writes codex-thread.json ({"version":1,"ownerThreadId":…}) in the worktree's
// administrative folder, atomically.
func (m *Managed) RecordOwner(threadID string) error {
	b, err := json.Marshal(struct {
		Version       int    `json:"version"`
		OwnerThreadID string `json:"ownerThreadId"`
	}{1, threadID})
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(m.GitDir, OwnerFile), b, 0o644)
}

// newSlot creates a new folder with a random 4-hex-digit name under dir.
func newSlot(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for range 64 {
		var b [2]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		p := filepath.Join(dir, hex.EncodeToString(b[:]))
		if err := os.Mkdir(p, 0o755); err == nil {
			return p, nil
		} else if !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("no free worktree name under %s", dir)
}

// gitFailed words a git failure as Codex does.
func gitFailed(err error) error {
	var ge *safegit.Error
	if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) != "" {
		return fmt.Errorf("git command failed: %s", strings.TrimSpace(ge.Stderr))
	}
	return fmt.Errorf("git command failed: %w", err)
}

// ForSession makes the managed worktree of a session that was to start in cd (-C; "" is the
// process's folder), under this process's CODEX_HOME.
func ForSession(ctx context.Context, cd string) (*Managed, error) {
	home, err := config.CodexHome(os.Getenv)
	if err != nil {
		return nil, err
	}
	if cd == "" {
		if cd, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	return Create(ctx, home, cd)
}
