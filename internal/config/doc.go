// Package config loads gocodex's configuration the way Codex 0.169 does and
// edits config.toml without disturbing what the user wrote.
//
// Load layers, lowest precedence first: $CODEX_HOME/config.toml, the
// selected profile's $CODEX_HOME/<name>.config.toml, the .codex/config.toml
// files of a trusted project (outermost first), the [profiles.<name>] table,
// `-c key=value` overrides (and typed ValueOverrides from JSON faces), then
// the typed Overrides of dedicated flags. Users share config.toml with Codex,
// so unknown keys produce Warnings, never errors; malformed TOML and bad
// values produce a *ParseError naming the file, line and column (or the -c
// argument).
//
// EditFile (with Set, Remove and Upsert edits) changes only the bytes of the
// keys it touches and writes atomically, so `mcp add/remove` and the
// app-server's config writes keep comments, order and layout intact.
package config
