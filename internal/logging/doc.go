// Package logging gives every face one log a person can read: log/slog text lines appended to
// a file in the log directory (config's log_dir, CODEX_HOME/log by default), with secrets
// masked before any line is written, optionally copied to stderr.
//
// Files. Each face writes gocodex-<face>.log (gocodex-exec.log, gocodex-app-server.log,
// gocodex-tui.log, ...), directory 0700, file 0600, opened O_APPEND so several gocodex
// processes share a file without overwriting each other; every line names its face and pid.
// Codex 0.169 writes a text log only from its TUI and only when log_dir is configured
// (<log_dir>/codex-tui.log, same modes, appended); otherwise it logs to a SQLite database
// (logs_2.sqlite) that gocodex does not copy. The gocodex- prefix keeps the two tools' lines
// out of each other's files when they share a log_dir.
//
// Level. GOCODEX_LOG takes trace, debug, info, warn, error or off (trace is debug: slog has
// none lower); a value outside those is reported by Open. When it is unset, RUST_LOG (Codex's
// variable) is read for a level word, e.g. RUST_LOG=debug or RUST_LOG=codex_core=warn. The
// default is info, as for Codex's TUI log.
//
// Secrets. Attributes whose key names a credential (authorization, api_key, token, password,
// secret, cookie and their spellings, at any depth of groups) are written as [REDACTED], and
// credential-shaped text in any message or value (Bearer tokens, sk- keys, JWTs, key=value
// pairs with a secret key) is masked.
package logging
