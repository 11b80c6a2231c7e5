// Package sqlitefile opens co's own SQLite files (saved sessions, memories)
// the one careful way: the file is private (created 0600 before SQLite
// does); an existing file is checked through a read-only connection
// before anything writes to it, so one that is damaged, written by a newer
// co or not co's at all is reported and left exactly as it is; the schema
// version (PRAGMA user_version) migrates forward in one immediate
// transaction, so two co's opening a new file at once agree; and "database
// is locked" at open, which SQLite's busy timeout does not always wait out
// (a journal-mode switch, WAL recovery by another process), is retried for
// a while.
//
// It is a leaf: it imports nothing of co's.
package sqlitefile

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mattn/go-sqlite3" // the SQLite driver (cgo)
)

// Schema describes one kind of co file.
type Schema struct {
	// Name names the kind in messages: "session" gives "a co session
	// store" and "session schema 3".
	Name string
	// Migrations[i] takes the schema from version i to i+1; the version
	// this co writes is len(Migrations).
	Migrations []string
	// BusyTimeout is how long a statement waits for another process's
	// lock.
	BusyTimeout time.Duration
	// ForeignKeys turns on foreign-key enforcement.
	ForeignKeys bool
}

// Version is the schema version this co writes.
func (sc Schema) Version() int { return len(sc.Migrations) }

// openRetry is how long a locked file is retried at open.
const openRetry = 5 * time.Second

// Open opens (creating or migrating) the file at path.
func Open(path string, sc Schema) (*sql.DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the %s directory: %w", sc.Name, err)
	}
	deadline := time.Now().Add(openRetry)
	for {
		db, err := openOnce(path, sc)
		if err == nil || !Busy(err) || time.Now().After(deadline) {
			return db, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Busy reports whether err is SQLite's "database is locked" or "busy".
func Busy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

// Damaged is the error for a file that cannot be read as sc's kind.
func Damaged(path string, sc Schema, err error) error {
	return fmt.Errorf("%s cannot be read as a %s store (%w): it may be damaged; move it away to start afresh (it was left untouched)", path, sc.Name, err)
}

func newer(path string, sc Schema, v int) error {
	return fmt.Errorf("%s was written by a newer co (%s schema %d; this co knows %d): upgrade co; the file was left untouched", path, sc.Name, v, sc.Version())
}

func foreign(path string, sc Schema) error {
	return fmt.Errorf("%s is not a co %s store (it has tables but no %s schema version); move it away; it was left untouched", path, sc.Name, sc.Name)
}

func openOnce(path string, sc Schema) (*sql.DB, error) {
	ms := strconv.FormatInt(sc.BusyTimeout.Milliseconds(), 10)
	if _, err := os.Stat(path); err == nil {
		// Checked read-only first: opening read-write would already
		// switch its journal mode.
		if err := check(path, sc, ms); err != nil {
			return nil, err
		}
	} else {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil && !os.IsExist(err) {
			return nil, fmt.Errorf("cannot create %s: %w", path, err)
		}
		if f != nil {
			f.Close()
		}
	}
	params := map[string]string{"_journal_mode": "WAL", "_busy_timeout": ms, "_synchronous": "NORMAL", "_txlock": "immediate"}
	if sc.ForeignKeys {
		params["_foreign_keys"] = "on"
	}
	db, err := sql.Open("sqlite3", dsn(path, params))
	if err != nil {
		return nil, err
	}
	if err := migrate(db, path, sc); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func dsn(path string, params map[string]string) string {
	q := url.Values{}
	for k, v := range params {
		q.Set(k, v)
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// check validates an existing file through a read-only connection.
func check(path string, sc Schema, busyMs string) error {
	db, err := sql.Open("sqlite3", dsn(path, map[string]string{"mode": "ro", "_busy_timeout": busyMs}))
	if err != nil {
		return Damaged(path, sc, err)
	}
	defer db.Close()
	// One statement, so one snapshot: another co creating the file at this
	// moment must not be seen with its tables but not yet its version.
	var v, n int
	if err := db.QueryRow(`SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_master)`).Scan(&v, &n); err != nil {
		return Damaged(path, sc, err) // wraps a busy error: Open retries it
	}
	switch {
	case v > sc.Version():
		return newer(path, sc, v)
	case v == 0 && n > 0:
		return foreign(path, sc)
	}
	return nil
}

func migrate(db *sql.DB, path string, sc Schema) error {
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return Damaged(path, sc, err)
	}
	if v > sc.Version() {
		return newer(path, sc, v)
	}
	if v == sc.Version() {
		return nil
	}
	// Another co may be creating or migrating the file at this moment: the
	// version read above is only a hint. The transaction is immediate (the
	// DSN's _txlock), so it waits for the other's to end; what counts is
	// the version read inside it.
	tx, err := db.Begin()
	if err != nil {
		return Damaged(path, sc, err)
	}
	defer tx.Rollback()
	if err := tx.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return Damaged(path, sc, err)
	}
	if v > sc.Version() {
		return newer(path, sc, v)
	}
	if v == sc.Version() {
		return nil // the other co migrated it
	}
	if v == 0 {
		// A version-0 file must be empty: anything else is not ours.
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM sqlite_master`).Scan(&n); err != nil {
			return Damaged(path, sc, err)
		}
		if n > 0 {
			return foreign(path, sc)
		}
	}
	for i := v; i < sc.Version(); i++ {
		if _, err := tx.Exec(sc.Migrations[i]); err != nil {
			return fmt.Errorf("migrating %s to %s schema %d: %w", path, sc.Name, i+1, err)
		}
	}
	if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, sc.Version())); err != nil {
		return err
	}
	return tx.Commit()
}
