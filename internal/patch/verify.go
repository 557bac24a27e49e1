package patch

// Change is what one hunk will do to one file, computed without writing anything: it feeds
// the approval request and the patch_apply_begin event.
type Change struct {
	Kind HunkKind
	// Path is absolute.
	Path string
	// Content is the new file for AddFile and the removed file for DeleteFile.
	Content string
	// UnifiedDiff (hunks only, one line of context) and NewContent describe an UpdateFile.
	UnifiedDiff string
	NewContent  string
	// MovePath is the absolute destination of a moved file, or empty.
	MovePath string
}

// Verified is a patch checked against the files it touches.
type Verified struct {
	Patch *Patch
	// Cwd is the absolute directory the patch's relative paths resolve against.
	Cwd string
	// Changes has one entry per hunk, in patch order; no two name the same path.
	Changes []Change
}

// Verify reads every file p touches and computes its change. Each hunk is checked against
// the files as they are now, not as earlier hunks would leave them. Errors carry Codex's
// texts: an *ApplyError, or a *ParseError when two hunks name the same file.
func Verify(cwd string, p *Patch) (*Verified, error) {
	v := &Verified{Patch: p, Cwd: cwd}
	put := func(c Change) { v.Changes = append(v.Changes, c) }
	seen := map[string]bool{}
	for _, h := range p.Hunks {
		abs := resolve(cwd, h.Path)
		if seen[abs] {
			// Codex's core refuses this up front (the standalone command would apply both).
			return nil, patchErr("multiple operations target " + abs)
		}
		seen[abs] = true
	}
	for _, h := range p.Hunks {
		abs := resolve(cwd, h.Path)
		switch h.Kind {
		case AddFile:
			put(Change{Kind: AddFile, Path: abs, Content: h.Contents})
		case DeleteFile:
			data, err := readText(abs, "Failed to read")
			if err != nil {
				return nil, err
			}
			put(Change{Kind: DeleteFile, Path: abs, Content: data})
		case UpdateFile:
			original, err := readForUpdate(abs)
			if err != nil {
				return nil, err
			}
			updated, err := updatedContents(original, abs, h.Chunks)
			if err != nil {
				return nil, err
			}
			c := Change{Kind: UpdateFile, Path: abs, UnifiedDiff: unifiedHunks(original, updated, 1), NewContent: updated}
			if h.MovePath != "" {
				c.MovePath = resolve(cwd, h.MovePath)
			}
			put(c)
		}
	}
	return v, nil
}

// Paths lists every absolute path the patch writes or removes, destinations included; the
// safety check and the turn diff tracker use it.
func (v *Verified) Paths() []string {
	var out []string
	for _, c := range v.Changes {
		out = append(out, c.Path)
		if c.MovePath != "" {
			out = append(out, c.MovePath)
		}
	}
	return out
}

// Write is one change a patch makes to the file system, at an absolute, cleaned path (the
// path the applier opens).
type Write struct {
	Path string
	// Removes is set when the entry itself is unlinked (a deleted file, a moved file's
	// source), so a symlink at the end of Path is removed rather than followed. Otherwise the
	// file is opened for writing, which follows a final symlink, even one whose target does
	// not exist yet.
	Removes bool
}

// Writes lists every change of the patch, in patch order: a moved file is its destination
// written and its source removed. The sandbox check resolves each.
func (v *Verified) Writes() []Write {
	var out []Write
	for _, c := range v.Changes {
		switch {
		case c.Kind == DeleteFile:
			out = append(out, Write{Path: c.Path, Removes: true})
		case c.MovePath != "":
			out = append(out, Write{Path: c.MovePath}, Write{Path: c.Path, Removes: true})
		default:
			out = append(out, Write{Path: c.Path})
		}
	}
	return out
}
