// Package patch implements the apply_patch format Codex models write, with Codex 0.169's
// exact behaviour and messages. It knows nothing about the agent; the tool handler in
// internal/tools/applypatch wires it in.
//
// The entry points:
//
//   - Parse: the lenient parser (padded markers, heredoc-wrapped bodies, CRLF). Errors are
//     *ParseError; Error() is the core's wording, Report() the standalone command's.
//   - Verify: computes each file's change without writing (the FileChanges of
//     patch_apply_begin and of approval requests); errors carry the core's texts.
//   - Apply: applies hunks in order with no rollback; Affected.Summary is the success text.
//   - RunStandalone: the `apply_patch` command the gocodex binary becomes under that name.
//   - ParseInvocation: finds a patch in a shell or exec command's argv.
//   - TurnDiff: the per-turn baseline tracker behind the turn_diff event.
//   - LarkGrammar: the grammar of the freeform tool.
//
// Where Codex's documentation is silent, the behaviour was taken from the Codex binary
// itself: TestDifferentialAgainstCodex compares the two on random patches, and the tests
// that pin texts say which cases were observed there. Notable rules: each line keeps its own
// terminator and new lines take the file's first one; context lines keep the file's text
// even when they matched loosely; an End of File anchor never searches before the previous
// chunk; only hunk headers and End Patch end an update hunk. Diffs (FileChange.unified_diff,
// turn_diff) reproduce the `similar` crate's edit scripts and hunk headers exactly, which a
// general diff library does not.
package patch
