//go:build !linux

package appserver

import "context"

// beginWatch polls path elsewhere than on Linux (before is taken ahead of the answer).
func beginWatch(ctx context.Context, c *Conn, id, path string, before map[string]fileState) func() {
	return func() { pollPath(ctx, c, id, path, before) }
}
