// Package protocol holds the Codex submission/event wire types (SQ/EQ): Submission and Op
// going in, Event and EventMsg coming out, plus the policies, review decisions, file changes,
// input and response items they carry. The JSON is meant to be byte-identical to what Codex
// 0.169 writes: internally tagged unions put "type" first, fields keep Codex's order, and
// optional fields are omitted (or written as null) the way Codex does it.
//
// What Codex 0.169 was seen to write (rollouts and exec output of the real binary against a
// local scripted model; testdata/codex0169 holds samples):
//   - turns open and close as "task_started" / "task_complete" (the Rust variants are named
//     TurnStarted/TurnComplete, hence our Go names); "turn_started"/"turn_complete" are
//     accepted on input;
//   - sandbox policies are tagged by "type" ({"type":"workspace-write",...}, writable_roots
//     left out when empty); the older "mode" tag and camelCase spellings are accepted;
//   - token usage carries cache_write_input_tokens, token_count info carries
//     last_usage_includes_reasoning, and rate limits write every field, null when unknown.
//
// Encode with Marshal (or an Encoder with SetEscapeHTML(false)), never json.Marshal: serde
// does not escape <, > and &, and json.Marshal would. Decoders return an
// *UnknownVariantError for a "type" they do not know, so readers of newer files can skip
// such lines.
//
// The package imports nothing else from gocodex.
package protocol
