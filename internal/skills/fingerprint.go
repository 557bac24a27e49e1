package skills

import (
	"fmt"
	"hash/fnv"
	"os"
)

// Fingerprint summarizes the skill folders of o by the names, sizes and modification times
// of what they hold, without reading any file: a different value means the skills may have
// changed (skills/changed).
func Fingerprint(o Options) string {
	h := fnv.New64a()
	for _, r := range o.roots() {
		fmt.Fprintf(h, "root %s\n", r.dir)
		walkRoot(r.dir, func(file string) {
			info, err := os.Stat(file)
			if err != nil {
				fmt.Fprintf(h, "%s\x00gone\n", file)
				return
			}
			fmt.Fprintf(h, "%s\x00%d\x00%d\n", file, info.Size(), info.ModTime().UnixNano())
		}, func(dir string, err error) { fmt.Fprintf(h, "%s\x00unreadable\n", dir) })
	}
	return fmt.Sprintf("%016x", h.Sum64())
}
