// Package memory keeps what co remembers across sessions: short notes the
// model saved (with the user's approval, or memory_auto_save), in SQLite
// (memory.db in the data dir) with full-text search, so that each turn can
// recall the few most relevant to what the user asked.
//
// # Full-text search
//
// The SQLite that github.com/mattn/go-sqlite3 compiles by default has FTS3
// and FTS4 but not FTS5 (FTS5 needs the sqlite_fts5 build tag, which would
// change the README's build command; `CREATE VIRTUAL TABLE … USING fts5`
// fails with "no such module: fts5" in the version go.mod names). So the
// index is FTS4 with the porter tokenizer, and ranking is Okapi BM25
// computed here from FTS4's matchinfo (see rank.go).
//
// # Safety
//
// Text in which the span store's redaction patterns find a secret (or
// that holds a configured key) is refused, never stored redacted: a memory
// is sent to the model in every later session.
//
// The store has a schema version (PRAGMA user_version) and migrates
// forward; a damaged file, or one written by a newer co, gives a clear
// error and is never overwritten (as sessions.Store). Several co processes
// may share the file (WAL, busy timeout, immediate transactions).
//
// This package imports nothing of ours but leaves.
package memory

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3" // the SQLite driver (cgo)

	"github.com/co-cli/co/lib/redact"
	"github.com/co-cli/co/lib/sqlitefile"
)

// FileName is the store's file in the data dir.
const FileName = "memory.db"

// Limits.
const (
	MaxContent = 2000 // characters of one memory
	MaxTags    = 10
	MaxTagLen  = 40
)

// schema is the memory file's: its migrations, each taking one version
// to the next (the version this co writes is their number).
var schema = sqlitefile.Schema{Name: "memory", Migrations: migrations, BusyTimeout: 10 * time.Second}

var migrations = []string{
	// 0 → 1. Times are Unix nanoseconds; tags are space-separated. The
	// index's docid is the memory's rowid.
	`CREATE TABLE memories (
		rowid      INTEGER PRIMARY KEY,
		id         TEXT NOT NULL UNIQUE,
		content    TEXT NOT NULL,
		tags       TEXT NOT NULL DEFAULT '',
		pinned     INTEGER NOT NULL DEFAULT 0,
		session_id TEXT NOT NULL DEFAULT '',
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL,
		used_at    INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX memories_pinned ON memories(pinned) WHERE pinned = 1;
	CREATE VIRTUAL TABLE memories_fts USING fts4(content, tags, tokenize=porter);`,
}

// Memory is one remembered note.
type Memory struct {
	ID      string    `json:"id"`
	Content string    `json:"content"`
	Tags    []string  `json:"tags,omitempty"`
	Pinned  bool      `json:"pinned,omitempty"`
	Session string    `json:"session,omitempty"` // the saved session it came from
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	Used    time.Time `json:"last_used,omitzero"` // last recalled or found by search_memory
	// Score is the BM25 rank of a search result (higher is better).
	Score float64 `json:"-"`
}

// Options configure a Store.
type Options struct {
	// Secrets are configured values (API keys, tokens) a memory must never
	// contain, besides the shapes lib/redact knows.
	Secrets []string
}

// Store is the memory database. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
	red  *redact.Redactor
}

// ErrNotFound is returned for an unknown memory id.
var ErrNotFound = errors.New("no such memory")

// SecretError refuses text that holds a secret.
type SecretError struct{ Kinds []string }

func (e *SecretError) Error() string {
	return fmt.Sprintf("refused: the text contains what looks like a secret (%s); memories never store secrets — leave the secret out", strings.Join(e.Kinds, ", "))
}

// Open opens (creating or migrating) the store at path.
func Open(path string, opts Options) (*Store, error) {
	db, err := sqlitefile.Open(path, schema)
	if err != nil {
		return nil, err
	}
	return &Store{db: db, path: path, red: redact.NewRedactor(opts.Secrets)}, nil
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// Validate checks content and tags as Save would, without saving: an empty
// or too long text, bad tags, or a secret (a *SecretError).
func (s *Store) Validate(content string, tags []string) (string, []string, error) {
	return validate(s.red, content, tags)
}

func validate(red *redact.Redactor, content string, tags []string) (string, []string, error) {
	content = strings.TrimSpace(content)
	if content == "" {
		return "", nil, errors.New("the memory is empty: give the fact to remember as content")
	}
	if n := len([]rune(content)); n > MaxContent {
		return "", nil, fmt.Errorf("the memory is %d characters; the most is %d: keep one short fact per memory", n, MaxContent)
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.ToLower(strings.Join(strings.Fields(t), "-"))
		if t == "" || seen[t] {
			continue
		}
		if len(t) > MaxTagLen {
			return "", nil, fmt.Errorf("tag %q is longer than %d characters", t, MaxTagLen)
		}
		seen[t] = true
		out = append(out, t)
	}
	if len(out) > MaxTags {
		return "", nil, fmt.Errorf("%d tags; the most is %d", len(out), MaxTags)
	}
	if kinds := red.Find(content + "\n" + strings.Join(out, " ")); len(kinds) > 0 {
		return "", nil, &SecretError{Kinds: kinds}
	}
	return content, out, nil
}

func newID() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

const cols = `rowid, id, content, tags, pinned, session_id, created_at, updated_at, used_at`

func scan(sc interface{ Scan(...any) error }) (Memory, int64, error) {
	var m Memory
	var rowid, c, u, used int64
	var tags string
	var pinned int
	err := sc.Scan(&rowid, &m.ID, &m.Content, &tags, &pinned, &m.Session, &c, &u, &used)
	m.Tags = strings.Fields(tags)
	m.Pinned = pinned != 0
	m.Created, m.Updated = time.Unix(0, c), time.Unix(0, u)
	if used != 0 {
		m.Used = time.Unix(0, used)
	}
	return m, rowid, err
}

// Save stores a memory from session (may be ""). The same text saved
// again is not duplicated: the existing memory is returned (its tags
// merged). Secrets are refused with a *SecretError.
func (s *Store) Save(content string, tags []string, session string) (Memory, error) {
	content, tags, err := validate(s.red, content, tags)
	if err != nil {
		return Memory{}, err
	}
	tx, err := s.db.Begin()
	if err != nil {
		return Memory{}, err
	}
	defer tx.Rollback()
	now := time.Now().UnixNano()
	if m, rowid, err := scan(tx.QueryRow(`SELECT `+cols+` FROM memories WHERE content = ?`, content)); err == nil {
		merged := mergeTags(m.Tags, tags)
		if len(merged) != len(m.Tags) {
			m.Tags = merged
			if _, err := tx.Exec(`UPDATE memories SET tags = ?, updated_at = ? WHERE rowid = ?`, strings.Join(merged, " "), now, rowid); err != nil {
				return Memory{}, err
			}
			if _, err := tx.Exec(`UPDATE memories_fts SET tags = ? WHERE docid = ?`, strings.Join(merged, " "), rowid); err != nil {
				return Memory{}, err
			}
		}
		return m, tx.Commit()
	} else if !errors.Is(err, sql.ErrNoRows) {
		return Memory{}, err
	}
	m := Memory{Content: content, Tags: tags, Session: session, Created: time.Unix(0, now), Updated: time.Unix(0, now)}
	var rowid int64
	for try := 0; ; try++ {
		m.ID = newID()
		res, err := tx.Exec(`INSERT INTO memories (id, content, tags, session_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
			m.ID, content, strings.Join(tags, " "), session, now, now)
		if err == nil {
			rowid, _ = res.LastInsertId()
			break
		}
		var se sqlite3.Error
		if try > 5 || !errors.As(err, &se) || se.Code != sqlite3.ErrConstraint {
			return Memory{}, err
		}
	}
	if _, err := tx.Exec(`INSERT INTO memories_fts (docid, content, tags) VALUES (?, ?, ?)`, rowid, content, strings.Join(tags, " ")); err != nil {
		return Memory{}, err
	}
	return m, tx.Commit()
}

func mergeTags(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, t := range b {
		found := false
		for _, x := range a {
			found = found || x == t
		}
		if !found {
			out = append(out, t)
		}
	}
	return out
}

// Get returns the memory whose id is id or uniquely starts with it.
func (s *Store) Get(id string) (Memory, error) {
	m, _, err := s.find(s.db, id)
	return m, err
}

type querier interface {
	Query(string, ...any) (*sql.Rows, error)
}

func (s *Store) find(q querier, id string) (Memory, int64, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return Memory{}, 0, fmt.Errorf("%w: empty id", ErrNotFound)
	}
	rows, err := q.Query(`SELECT `+cols+` FROM memories WHERE id >= ? AND id < ? ORDER BY id LIMIT 2`, id, id+"\xff")
	if err != nil {
		return Memory{}, 0, err
	}
	defer rows.Close()
	var found []Memory
	var rowids []int64
	for rows.Next() {
		m, r, err := scan(rows)
		if err != nil {
			return Memory{}, 0, err
		}
		found, rowids = append(found, m), append(rowids, r)
	}
	if err := rows.Err(); err != nil {
		return Memory{}, 0, err
	}
	switch {
	case len(found) == 0:
		return Memory{}, 0, fmt.Errorf("%w %q (co memory list shows them)", ErrNotFound, id)
	case len(found) > 1 && found[0].ID != id:
		return Memory{}, 0, fmt.Errorf("memory id %q is ambiguous: give more of it", id)
	}
	return found[0], rowids[0], nil
}

// change finds memory id and runs f on it in one transaction; it returns
// the memory as f left it.
func (s *Store) change(id string, f func(tx *sql.Tx, m *Memory, rowid int64) error) (Memory, error) {
	tx, err := s.db.Begin()
	if err != nil {
		return Memory{}, err
	}
	defer tx.Rollback()
	m, rowid, err := s.find(tx, id)
	if err != nil {
		return Memory{}, err
	}
	if err := f(tx, &m, rowid); err != nil {
		return Memory{}, err
	}
	return m, tx.Commit()
}

// Update replaces a memory's text (same checks as Save).
func (s *Store) Update(id, content string) (Memory, error) {
	content, _, err := validate(s.red, content, nil)
	if err != nil {
		return Memory{}, err
	}
	return s.change(id, func(tx *sql.Tx, m *Memory, rowid int64) error {
		now := time.Now()
		if _, err := tx.Exec(`UPDATE memories SET content = ?, updated_at = ? WHERE rowid = ?`, content, now.UnixNano(), rowid); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE memories_fts SET content = ? WHERE docid = ?`, content, rowid); err != nil {
			return err
		}
		m.Content, m.Updated = content, now
		return nil
	})
}

// Pin sets whether a memory is recalled on every turn.
func (s *Store) Pin(id string, pinned bool) (Memory, error) {
	return s.change(id, func(tx *sql.Tx, m *Memory, rowid int64) error {
		if _, err := tx.Exec(`UPDATE memories SET pinned = ? WHERE rowid = ?`, pinned, rowid); err != nil {
			return err
		}
		m.Pinned = pinned
		return nil
	})
}

// Forget deletes a memory and returns what it was.
func (s *Store) Forget(id string) (Memory, error) {
	return s.change(id, func(tx *sql.Tx, _ *Memory, rowid int64) error {
		if _, err := tx.Exec(`DELETE FROM memories WHERE rowid = ?`, rowid); err != nil {
			return err
		}
		_, err := tx.Exec(`DELETE FROM memories_fts WHERE docid = ?`, rowid)
		return err
	})
}

// List returns every memory, pinned first, then most recently saved.
func (s *Store) List() ([]Memory, error) {
	return s.query(`SELECT ` + cols + ` FROM memories ORDER BY pinned DESC, created_at DESC, rowid DESC`)
}

// Count is the number of memories.
func (s *Store) Count() (int, error) {
	var n int
	err := s.db.QueryRow(`SELECT count(*) FROM memories`).Scan(&n)
	return n, err
}

func (s *Store) query(q string, args ...any) ([]Memory, error) {
	rows, err := s.db.Query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Memory
	for rows.Next() {
		m, _, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// touch records that the memories were used (recalled or found).
func (s *Store) touch(ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	q := `UPDATE memories SET used_at = ? WHERE id IN (?` + strings.Repeat(",?", len(ids)-1) + `)`
	args := []any{time.Now().UnixNano()}
	for _, id := range ids {
		args = append(args, id)
	}
	_, err := s.db.Exec(q, args...)
	return err
}
