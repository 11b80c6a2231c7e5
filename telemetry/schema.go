package telemetry

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3" // the SQLite driver (cgo)

	"github.com/co-cli/co/lib/sqlitefile"
)

// DBFile is the name of co's database in the data dir.
const DBFile = "co-cli.db"

// DBPath is where the span store lives for a data dir.
func DBPath(dataDir string) string { return filepath.Join(dataDir, DBFile) }

// SchemaVersion is the version of the spans schema this code writes. The
// database records it in telemetry_schema so a later version can migrate.
// (PRAGMA user_version is left alone: co-cli.db may hold other tables.)
const SchemaVersion = 1

// migrations[v] brings the schema from version v to v+1.
var migrations = []string{
	// 0 → 1: the spans table of the design (seed 4.6), with indexes on
	// trace_id and start_time.
	`CREATE TABLE IF NOT EXISTS spans (
	id TEXT PRIMARY KEY,
	trace_id TEXT NOT NULL,
	parent_id TEXT,
	name TEXT NOT NULL,
	kind TEXT,
	start_time INTEGER NOT NULL,
	end_time INTEGER,
	duration_ms REAL,
	status_code TEXT,
	status_description TEXT,
	attributes TEXT,
	events TEXT,
	resource TEXT
);
CREATE INDEX IF NOT EXISTS spans_trace_id ON spans(trace_id);
CREATE INDEX IF NOT EXISTS spans_start_time ON spans(start_time);`,
}

// fileURI turns a path into an SQLite URI with params. The characters
// that end or escape a path in a URI are percent-encoded.
func fileURI(path, params string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return "file:" + r.Replace(path) + "?" + params
}

// writerDSN: WAL so readers never block the writer, a busy timeout for
// other co processes writing at once, BEGIN IMMEDIATE so a write
// transaction takes the lock up front (no deadlocked upgrade), NORMAL sync
// (with WAL a killed process loses nothing committed and never corrupts).
// Incremental auto-vacuum (set before WAL, which fixes the file's format)
// lets pruning give space back; secure_delete=FAST overwrites what pruning
// deletes.
func writerDSN(path string) string {
	return fileURI(path, "_auto_vacuum=incremental&_journal_mode=WAL&_busy_timeout=5000&_synchronous=NORMAL&_txlock=immediate&_secure_delete=FAST")
}

// readerDSN opens the store read-only.
func readerDSN(path string) string {
	return fileURI(path, "mode=ro&_busy_timeout=5000&_query_only=1")
}

// openWriter opens (creating when needed) the database at path, mode 0600
// in a 0700 directory since it may hold prompts, and migrates it.
func openWriter(ctx context.Context, path string) (*sql.DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("telemetry: creating the data dir: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("telemetry: opening %s: %w", path, err)
	}
	f.Close()
	// Another co creating the file at this moment can hold it in a state
	// the busy timeout does not wait out (its switch to WAL): "database is
	// locked" while preparing is retried for a while, as the session and
	// memory stores do (lib/sqlitefile).
	deadline := time.Now().Add(5 * time.Second)
	for {
		db, err := sql.Open("sqlite3", writerDSN(path))
		if err != nil {
			return nil, fmt.Errorf("telemetry: opening %s: %w", path, err)
		}
		db.SetMaxOpenConns(2) // the exporter and the pruner
		db.SetMaxIdleConns(2)
		db.SetConnMaxLifetime(0)
		err = migrate(ctx, db)
		if err == nil {
			return db, nil
		}
		db.Close()
		if !sqlitefile.Busy(err) || time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("telemetry: preparing %s: %w", path, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// migrate creates or upgrades the schema in one immediate transaction, so
// two co processes starting together do not both migrate.
func migrate(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA journal_size_limit = 8388608`); err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS telemetry_schema (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	v := 0
	switch err := tx.QueryRowContext(ctx, `SELECT version FROM telemetry_schema`).Scan(&v); err {
	case nil:
	case sql.ErrNoRows:
		if _, err := tx.ExecContext(ctx, `INSERT INTO telemetry_schema (version) VALUES (0)`); err != nil {
			return err
		}
	default:
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("the spans schema is version %d, newer than this co knows (%d); upgrade co", v, len(migrations))
	}
	for ; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migrating the spans schema to version %d: %w", v+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE telemetry_schema SET version = ?`, v); err != nil {
		return err
	}
	return tx.Commit()
}
