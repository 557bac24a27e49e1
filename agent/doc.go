// Package agent is the engine: threads that speak the Codex submission/event protocol, and
// the ThreadManager that owns them. Every face (exec, proto, app-server, TUI, Go programs)
// drives a Thread through Submit and reads it through NextEvent; nothing else reaches in.
//
// # Threads
//
// A Thread runs one goroutine, its submission loop, which owns the thread's settings and
// history. A running turn runs in a second goroutine that the loop starts and ends; the loop
// stays free to handle interrupts, approval answers and setting overrides while it runs.
// Shutdown (ShutdownOp) ends the turn, emits shutdown_complete and stops both goroutines;
// Done is closed after that.
//
// # Event delivery contract
//
// Events come out of NextEvent in the order the engine produced them, through an unbounded
// in-memory queue, so the engine never waits for a slow reader. To bound that queue under
// load:
//
//   - Deltas (agent_message_delta, agent_reasoning_delta, agent_reasoning_raw_content_delta,
//     exec_command_output_delta of the same call and stream) may be coalesced: when the
//     reader is behind, a delta is appended to the delta of the same kind waiting at the tail
//     of the queue. Concatenating the deltas a reader sees always gives the full text.
//   - Every other event is delivered exactly once and never merged or dropped: begin/end
//     pairs (each *_end after its *_begin), approval requests, errors, warnings,
//     turn_started, turn_complete, turn_aborted, token_count, shutdown_complete.
//   - Within a turn, turn_started comes first and exactly one of turn_complete or
//     turn_aborted comes last; nothing of that turn follows it, with one exception: a tool
//     that left work running in the background (a unified-exec session) keeps reporting
//     through its Env after its handler returned, even once the turn has ended. Those
//     events carry the turn's submission id; they stop at shutdown. Events a call emits
//     while it is still in its handler after the turn ended (it was cut short) are dropped.
//   - Every event is handed to the Recorder (the rollout) before it is queued, so anything a
//     reader saw is already recorded.
//
// After shutdown_complete, NextEvent returns ErrThreadClosed once the queue is drained.
//
// # Turn loop
//
// A turn records the user input, then samples the model until it stops asking for tools:
// each sampling builds the prompt (base instructions, the history that starts with the
// initial context, the tools for the model), streams the response, turns deltas into delta
// events, records every finished output item and dispatches tool calls to their handlers.
// Tool outputs go back into history and, when any tool ran, the model is sampled again.
// Interrupt cancels the turn's context; in-flight tool calls get an "aborted" output in
// history and the turn ends with turn_aborted.
//
// # Compaction
//
// When the tokens in use (the last response's total_tokens plus an estimate, four bytes a
// token, of what was added after the model last produced an item) reach the model's
// auto-compact limit, the history is compacted: before a turn samples, and between
// samplings when the model has more to do. The compact op does the same as a turn of its
// own (replacing a running turn). The model is asked for a checkpoint with our prompt (or
// config compact_prompt); the new history is the initial context, the user's most recent
// messages up to about 20,000 tokens, and a user message holding the summary. Within a
// turn the initial context goes just before the user's last message. The events are
// item_started and item_completed of a ContextCompaction item, token_count (before, after
// the summary response, and an estimate of the new history) and context_compacted. A
// Recorder that implements CompactionRecorder gets the new history before it is used.
//
// # Other ops
//
// thread_rollback drops the last n user turns (refused while a turn runs) and answers
// thread_rolled_back; clean_background_terminals calls ThreadConfig.OnCleanBackgroundTerminals.
//
// run_user_shell_command runs a command the person typed (ThreadConfig.UserShell) in their
// login shell, unsandboxed and unapproved, as Codex 0.169 does. With no turn running it is a
// turn of its own: turn_started, exec_command_begin/output_delta/end with source user_shell,
// a <user_shell_command> user message recorded for the model (before the initial context,
// which the next model turn records), turn_complete; interrupt kills it, records it as
// "command aborted by user" and ends with turn_aborted. During a model turn it runs beside
// it under that turn's id, and its record joins the history at the turn's next sampling.
// The record is not a user turn: rollback does not count it.
// When the server answers with another model than the one asked for (the `openai-model`
// header), the turn warns once, with Codex 0.169's text.
package agent
