// Package snapshot keeps, for one thread, a snapshot of the working tree before and after each
// turn, so that rewinding the last N turns can restore the files those turns changed (created,
// edited, deleted, chmod'ed) along with the conversation.
//
// Where the turn's working directory is inside a git work tree, the snapshots are git trees
// written through a private index (the user's index, HEAD, branches and files are never
// touched) and pinned by refs under refs/gocodex/snapshots/<thread-id>/, which keep them
// from git gc and never show as branches. Ignored files (.gitignore, info/exclude) are out of
// scope there: they are not snapshotted and a rewind leaves them alone. Submodules and
// nested repositories are recorded by git as links and are not restored either. Without git,
// a private content-addressed store under the journal directory holds the files, with a stat
// cache so that unchanged files are not hashed again each turn.
//
// A rewind restores only the paths the rewound turns changed. Paths changed by hand between
// or after those turns are reported and kept; a path changed both by a rewound turn and by
// hand is a conflict, and the rewind is refused with nothing changed. The journal records the
// machine and the root it was made for; a rewind elsewhere is refused.
//
// Use: Open per thread (or per turn: every operation re-reads the journal under a lock, so
// several handles, even in several processes, agree); BeginTurn and EndTurn around each turn
// (a *Thread is the engine's TurnSnapshotter); Plan for a dry run; Rewind to apply; Prune
// when the thread is deleted. Turns carries each turn's id: a turn whose BeginTurn failed is
// not recorded, so a caller rewinding conversation turns matches ids rather than counts.
// The errors ErrNotEnoughTurns, ErrForeign and ErrConflict mark the refusals.
//
// Empty directories are not recorded (as in git): a rewind recreates the directories the
// restored files need and removes the directories left empty by the files it removes.
package snapshot
