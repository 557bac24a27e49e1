// Package items folds the engine's EventMsg stream into thread items, once, for every face.
//
// # The item model
//
// A Fold (NewFold) reads one thread's events in order and reports Changes. Each change is one
// step in the life of one item:
//
//   - Started: the item exists (a command began, or waits for approval; the agent's first
//     delta arrived; the person's message was recorded). An item the engine reported only
//     by its end is Completed without a Started.
//   - Updated: something was added or changed; Delta says what (a text delta of a message or
//     plan, a reasoning summary or content delta, a summary part opened or whole, a command's
//     output chunk, a command or patch that waited for approval began, a new to-do list).
//     The fold coalesces the deltas: a message's Streamed text, a reasoning's Summary and
//     Content parts, a command's Output are the concatenation of what the deltas said
//     (FoldOptions.NoStreamCopies spares the first and the last to a face that needs neither).
//   - Completed: the item is over, once. CutShort marks the calls the end of their turn
//     completed (failed); Refused the calls Fold.Decline completed (the person said no).
//   - Dropped: an agent message or reasoning the fold forgets without completing, because the
//     response it came from was cut short (a stream error retries it, an interrupt or failure
//     ends the turn) or another message replaced it. A dropped item is not part of the turn.
//
// The kinds (Change.Body): AgentMessage, Reasoning, UserMessage, Command, Patch, McpCall,
// WebSearch, ImageView, TodoList (update_plan; one a turn, completed when the turn ends),
// ProposedPlan (plan mode), Compaction, ReviewMode (entering and leaving a review), HookRun (a
// lifecycle hook) and Notice (a warning). Ids: a tool call's is its call id, an item the engine names keeps its id, the
// to-do list's is TodoListID, a notice has none, the others come from FoldOptions.NewID.
//
// Life rules the faces share: a reasoning run completes when the agent's message, a tool
// call, a review mark, a compaction or a question to the person begins, or when its turn
// succeeds; a turn's end completes, as failed, the tool calls still open, except the
// exec_command sessions (a Command with a ProcessID) a successful turn leaves running, which
// complete when they end.
//
// Turn-level events (turn started and completed, token counts, errors, approvals' answers,
// session configuration, diffs, hooks) carry no item: a face reads them directly, after the
// changes the same event caused.
//
// # Faces
//
// Each face renders the changes in its own shape: the exec --json Projector (Item, Update:
// the `exec --json` items of Codex 0.169, whose JSON (Item.MarshalJSON) is the item id and
// "type" first, then the fields of the kind, flattened), exec's human writer, the TUI
// transcript and the app-server's v2 projector.
package items
