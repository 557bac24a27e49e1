// Package protocol holds the Codex submission/event wire types (SQ/EQ): Submission and Op
// going in, Event and EventMsg coming out, plus the policies, review decisions, file changes,
// input and response items they carry. The JSON is meant to be byte-identical to what Codex
// 0.169 writes: internally tagged unions put "type" first, fields keep Codex's order, and
// optional fields are omitted the way Codex omits them. Decoders accept the older spellings
// Codex used (task_started, task_complete, the pre-0.40 policy forms) so old rollouts load.
//
// The package imports nothing else from gocodex.
package protocol
