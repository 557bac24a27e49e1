// Package safety decides whether a command or a patch the model asks for may run, must be
// shown to the person first, or is refused, as Codex 0.169 does: execpolicy rules, the
// forced-rm check, the approval policy and sandbox policy, the model's sandbox_permissions,
// and the session's cache of "approved for this session" answers. It also holds the shell
// parsing those rules need (plain `bash -lc` sequences) and the known-safe command list.
//
// Nothing here runs commands or talks to the person: callers (the tool handlers) turn a
// Decision into an approval request, a sandboxed run or a refusal for the model.
package safety
