// Package builtin is the host's own extensions, in the order their parts sit in the thread
// state file: a face starts them through Start and finds each with ext.Find.
package builtin

import (
	"github.com/gocodex/gocodex/internal/host/attachments"
	"github.com/gocodex/gocodex/internal/host/ext"
	"github.com/gocodex/gocodex/internal/host/gitedits"
	"github.com/gocodex/gocodex/internal/host/goals"
	"github.com/gocodex/gocodex/internal/host/readstate"
	"github.com/gocodex/gocodex/internal/host/sections"
)

// Start starts the built-in extensions: sections, attachments, git edits, goals, read
// state.
func Start(opts ext.Options) (*ext.Set, error) {
	return ext.New(opts, sections.New(), attachments.New(), gitedits.New(), goals.New(), readstate.New())
}
