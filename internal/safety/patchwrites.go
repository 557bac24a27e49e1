package safety

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/gocodex/gocodex/internal/patch"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/protocol"
)

// BlockedWrite is a write a sandboxed policy does not allow, found by resolving the path the
// way the kernel will: every symlink followed and every `..` taken from where the symlink led.
type BlockedWrite struct {
	patch.Write
	// Resolved is where the write lands.
	Resolved string
	// Via is the first symlink on the way, or empty when the path leads where it reads.
	Via string
	// Protected is the read-only entry of a writable root (.git, .codex, .agents, .aws, a
	// worktree's git directory) the write lands in; empty when it lands outside every root.
	Protected string
	// Hidden is set when the path as written is writable and only a symlink takes it
	// elsewhere: nothing in the patch itself shows the person where it goes.
	Hidden bool
	// Err is set when the path cannot be resolved (a symlink loop); the write is refused.
	Err error
}

// Error is the text the model and the person get, worded like Codex's failed write ("Failed
// to write file X") with the reason after it.
func (b BlockedWrite) Error() string {
	what := "Failed to write file"
	if b.Removes {
		what = "Failed to delete file"
	}
	if b.Err != nil {
		return fmt.Sprintf("%s %s: the sandbox cannot tell where it leads: %v", what, b.Path, b.Err)
	}
	where := "it is"
	if b.Via != "" {
		where = fmt.Sprintf("it resolves through the symlink %s to %s,", b.Via, b.Resolved)
	}
	if b.Protected != "" {
		return fmt.Sprintf("%s %s: %s inside %s, which the sandbox keeps read-only", what, b.Path, where, b.Protected)
	}
	return fmt.Sprintf("%s %s: %s outside the sandbox's writable roots", what, b.Path, where)
}

// BlockedPatchWrites lists the writes of a patch that the sandbox of policy would refuse:
// every path is resolved through its symlinks and `..` and checked against the writable
// roots (resolved the same way) and their protected entries. Nothing is blocked under
// danger-full-access; everything is under read-only. getenv resolves $TMPDIR as the sandbox
// does.
func BlockedPatchWrites(writes []patch.Write, policy protocol.SandboxPolicy, cwd string, getenv func(string) string) []BlockedWrite {
	if policy.HasFullDiskWriteAccess() {
		return nil
	}
	lexical := sandbox.WritableRoots(policy, cwd, getenv)
	real := resolveRoots(lexical)
	var blocked []BlockedWrite
	for _, w := range writes {
		path := absPath(w.Path, cwd)
		resolved, via, err := resolveWrite(path, w.Removes)
		if err != nil {
			blocked = append(blocked, BlockedWrite{Write: w, Err: err})
			continue
		}
		ok, protected := writableIn(resolved, real)
		if ok {
			continue
		}
		blocked = append(blocked, BlockedWrite{
			Write: w, Resolved: resolved, Via: via, Protected: protected,
			Hidden: isWritable(path, lexical),
		})
	}
	return blocked
}

// resolvedRoot is a writable root and its read-only entries, symlinks resolved.
type resolvedRoot struct {
	root      string
	protected [][2]string // {as named, where it leads}
}

func resolveRoots(roots []sandbox.WritableRoot) []resolvedRoot {
	out := make([]resolvedRoot, 0, len(roots))
	for _, r := range roots {
		root, _, err := resolvePath(r.Root, true)
		if err != nil {
			continue // a root that cannot be resolved lets nothing through
		}
		rr := resolvedRoot{root: root}
		for _, p := range r.ReadOnlySubpaths {
			// Both the entry itself (a symlink named .git can be replaced) and what it leads
			// to stay read-only.
			named, _, err1 := resolvePath(p, false)
			target, _, err2 := resolvePath(p, true)
			if err1 != nil || err2 != nil {
				// Unresolvable: protect the whole root rather than guess.
				named, target = root, root
			}
			rr.protected = append(rr.protected, [2]string{named, target})
		}
		out = append(out, rr)
	}
	return out
}

// writableIn says whether a resolved path is inside some root and outside its read-only
// entries; when it is not, protected names the entry that blocks it (empty when no root
// contains the path).
func writableIn(path string, roots []resolvedRoot) (ok bool, protected string) {
	for _, r := range roots {
		if !within(path, r.root) {
			continue
		}
		blockedBy := ""
		for _, p := range r.protected {
			for _, entry := range p {
				if within(path, entry) {
					blockedBy = entry
				}
			}
		}
		if blockedBy == "" {
			return true, ""
		}
		protected = blockedBy
	}
	return false, protected
}

// resolveWrite is where a write to path lands: for a removal the entry in its resolved
// directory, otherwise the file a final symlink leads to.
func resolveWrite(path string, removes bool) (resolved, via string, err error) {
	return resolvePath(path, !removes)
}

// maxSymlinks is Linux's limit on symlinks followed in one lookup (ELOOP beyond it).
const maxSymlinks = 40

// errSymlinkLoop is the resolution failure for a path with too many symlinks.
var errSymlinkLoop = fmt.Errorf("too many levels of symbolic links: %w", syscall.ELOOP)

// resolvePath follows path component by component as the kernel's lookup does: a symlink's
// target replaces it (from / when absolute, from the symlink's directory when relative), `..`
// goes to the parent of where the walk stands, and with followFinal a symlink in the last
// place is followed too, even when its target does not exist. From the first component that
// does not exist (or cannot be examined) on, nothing can be a symlink, so the rest is joined
// as written. via is the first symlink followed.
func resolvePath(path string, followFinal bool) (resolved, via string, err error) {
	if !filepath.IsAbs(path) {
		return "", "", fmt.Errorf("resolve %q: not an absolute path", path)
	}
	pending := components(path)
	resolved = string(filepath.Separator)
	links := 0
	for len(pending) > 0 {
		name := pending[0]
		pending = pending[1:]
		switch name {
		case ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, name)
		if len(pending) == 0 && !followFinal {
			return next, via, nil
		}
		info, lerr := os.Lstat(next)
		if lerr != nil {
			return filepath.Join(append([]string{next}, pending...)...), via, nil
		}
		if info.Mode()&os.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		if links > maxSymlinks {
			return "", "", errSymlinkLoop
		}
		target, rerr := os.Readlink(next)
		if rerr != nil {
			return "", "", fmt.Errorf("read symlink %s: %w", next, rerr)
		}
		if target == "" {
			return "", "", fmt.Errorf("symlink %s: %w", next, errors.New("empty target"))
		}
		if via == "" {
			via = next
		}
		if filepath.IsAbs(target) {
			resolved = string(filepath.Separator)
		}
		pending = append(components(target), pending...)
	}
	return resolved, via, nil
}

// components splits a path into its names, dropping empty ones (repeated or leading
// separators).
func components(path string) []string {
	var out []string
	for _, c := range strings.Split(path, string(filepath.Separator)) {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}
