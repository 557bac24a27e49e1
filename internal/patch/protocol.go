package patch

import "github.com/gocodex/gocodex/protocol"

// FileChanges converts the verified changes to the wire form of patch_apply_begin/end and
// apply_patch_approval_request, keyed by absolute path.
func (v *Verified) FileChanges() map[string]protocol.FileChange {
	out := make(map[string]protocol.FileChange, len(v.Changes))
	for _, c := range v.Changes {
		switch c.Kind {
		case AddFile:
			out[c.Path] = protocol.FileChange{Kind: protocol.FileAdd, Content: c.Content}
		case DeleteFile:
			out[c.Path] = protocol.FileChange{Kind: protocol.FileDelete, Content: c.Content}
		case UpdateFile:
			fc := protocol.FileChange{Kind: protocol.FileUpdate, UnifiedDiff: c.UnifiedDiff}
			if c.MovePath != "" {
				move := c.MovePath
				fc.MovePath = &move
			}
			out[c.Path] = fc
		}
	}
	return out
}
