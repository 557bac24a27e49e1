// Package codexstate keeps Codex 0.169's state database (CODEX_HOME/state_5.sqlite) told
// about the threads gocodex writes. Codex's `resume --last` and its pickers list threads from
// that database only: it fills it from the rollouts once, when it creates it, and later only
// from the threads it writes itself (or repairs in an app-server thread/list). Without a row
// there, a thread gocodex starts after Codex's first run stays invisible to those tools.
//
// The database is Codex's, not ours: it is never created here, rows are written only into
// the schema version this was written against (or a later one that still has its columns),
// and a failure is reported to the caller, who logs it: the rollout stays the source of
// truth, and Codex's own repair still finds the thread later.
package codexstate

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver "sqlite"; keeps CGO_ENABLED=0
)

// FileName is Codex 0.169's state database in CODEX_HOME.
const FileName = "state_5.sqlite"

// SchemaVersion is the newest migration of Codex 0.169's state database ("threads attached
// parent"); the rows written here have that version's columns.
const SchemaVersion = 62

// busyTimeoutMS bounds the wait for Codex's own writer: a turn end should not stall on it.
const busyTimeoutMS = 1000

// ErrOldSchema is returned when the database predates SchemaVersion: an older Codex, whose
// threads table lacks columns written here. Nothing is written then.
var ErrOldSchema = errors.New("codex state database is older than schema version 62")

// Exists reports whether Codex has made its state database in codexHome: without it there
// is nothing to keep told (Codex indexes every rollout when it creates it).
func Exists(codexHome string) bool {
	_, err := os.Stat(filepath.Join(codexHome, FileName))
	return err == nil
}

// open opens CODEX_HOME's state database for writing, or returns nil when there is none.
func open(codexHome string) (*sql.DB, error) {
	path := filepath.Join(codexHome, FileName)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	// mode=rw: never create the database (a missing file between Stat and here stays
	// missing); Codex keeps it in WAL mode, which needs no setting here.
	dsn := "file:" + path + fmt.Sprintf("?mode=rw&_pragma=busy_timeout(%d)", busyTimeoutMS)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	var version sql.NullInt64
	if err := db.QueryRow(`SELECT MAX(version) FROM _sqlx_migrations WHERE success`).Scan(&version); err != nil {
		db.Close()
		return nil, fmt.Errorf("read the schema version of %s: %w", path, err)
	}
	if !version.Valid || version.Int64 < SchemaVersion {
		db.Close()
		return nil, fmt.Errorf("%s: %w (it has %d)", path, ErrOldSchema, version.Int64)
	}
	return db, nil
}

// exec runs one statement against the database when there is one.
func exec(codexHome, query string, args ...any) error {
	db, err := open(codexHome)
	if err != nil || db == nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		return fmt.Errorf("update %s: %w", filepath.Join(codexHome, FileName), err)
	}
	return nil
}
