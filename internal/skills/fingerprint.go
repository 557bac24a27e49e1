package skills

import (
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Fingerprint summarizes the skill folders of o by the names, sizes and modification times
// of what they hold, without reading any file: a different value means the skills may have
// changed (skills/changed).
func Fingerprint(o Options) string {
	h := fnv.New64a()
	for _, r := range o.roots() {
		_ = filepath.WalkDir(r.dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // a missing root or unreadable folder; its appearance changes the sum
			}
			if d.IsDir() {
				rel, _ := filepath.Rel(r.dir, path)
				if path != r.dir && strings.HasPrefix(d.Name(), ".") ||
					rel != "." && strings.Count(rel, string(filepath.Separator))+1 > maxDepth {
					return filepath.SkipDir
				}
			}
			if d.Name() != FileName {
				return nil
			}
			info, err := os.Stat(path)
			if err != nil {
				fmt.Fprintf(h, "%s\x00gone\n", path)
				return nil
			}
			fmt.Fprintf(h, "%s\x00%d\x00%d\n", path, info.Size(), info.ModTime().UnixNano())
			return nil
		})
	}
	return fmt.Sprintf("%016x", h.Sum64())
}
