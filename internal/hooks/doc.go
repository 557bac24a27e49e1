// Package hooks runs the person's lifecycle hooks as Codex 0.169 does: commands configured
// in $CODEX_HOME/hooks.json, the .codex/hooks.json of each project folder the caller lets load
// (a trusted project's, between its root and cwd) or inline
// [[hooks.<Event>]] tables of the same layer's config.toml, each run with the event as JSON
// on stdin under /bin/bash -c, with a timeout (600 s unless the hook says otherwise) and
// its output capped. A hook runs only when trusted: a matching trusted_hash under
// [hooks.state."<key>"] in the user's config.toml, or BypassTrust
// (--dangerously-bypass-hook-trust). A hook that hangs, crashes or prints garbage is
// reported as a failed run and decides nothing.
package hooks
