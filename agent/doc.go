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
//     turn_aborted comes last; nothing of that turn follows it.
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
package agent
