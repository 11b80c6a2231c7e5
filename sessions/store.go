// Package sessions saves conversations in SQLite (sessions.db in the data
// dir) as they happen, so that nothing a user did is lost when co exits,
// crashes or the machine reboots, and lists, loads and deletes them for
// `co sessions`, `co --continue`, `co --resume ID` and /sessions.
//
// Every completed step (user message, assistant message, tool result,
// approval decision) is written in its own transaction; the assistant text
// being streamed is appended, chunk by chunk before it is shown, to a draft
// file beside the database (drafts/ID.txt) that the final message replaces:
// one write per chunk, which survives kill -9. A loaded history is always valid to resume: a
// draft becomes an interrupted assistant message and dangling tool calls are
// answered "Interrupted by the user.", as after an interrupt.
//
// The store has a schema version (PRAGMA user_version) and migrates forward.
// A damaged file, or one written by a newer co, gives a clear error and is
// never overwritten.
//
// Concurrency: a Store is safe for concurrent use; a Session records from
// one goroutine (the agent's turn goroutine) at a time. Several co processes
// may share the file (WAL, busy timeout).
package sessions

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/co-cli/co/lib/sqlitefile"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// FileName is the store's file in the data dir.
const FileName = "sessions.db"

// schema is the sessions file's: its migrations, each taking one version
// to the next (the version this co writes is their number).
var schema = sqlitefile.Schema{Name: "session", Migrations: migrations, BusyTimeout: 5 * time.Second, ForeignKeys: true}

var migrations = []string{
	// 0 → 1
	`CREATE TABLE sessions (
		id            TEXT PRIMARY KEY,
		workspace     TEXT NOT NULL,
		title         TEXT NOT NULL DEFAULT '',
		created_at    INTEGER NOT NULL,
		updated_at    INTEGER NOT NULL,
		turns         INTEGER NOT NULL DEFAULT 0,
		input_tokens  INTEGER NOT NULL DEFAULT 0,
		output_tokens INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX sessions_workspace_updated ON sessions(workspace, updated_at);
	CREATE TABLE messages (
		session_id   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
		seq          INTEGER NOT NULL,
		role         TEXT NOT NULL,
		content      TEXT NOT NULL DEFAULT '',
		tool_calls   TEXT,
		tool_call_id TEXT,
		tool_name    TEXT,
		interrupted  INTEGER NOT NULL DEFAULT 0,
		created_at   INTEGER NOT NULL,
		PRIMARY KEY (session_id, seq)
	);
	CREATE TABLE decisions (
		session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
		call_id    TEXT NOT NULL,
		tool       TEXT NOT NULL,
		verdict    TEXT NOT NULL,
		created_at INTEGER NOT NULL
	);`,
	// 1 → 2: what travels with an assistant message (its reasoning, the
	// endpoint and model that produced it), as JSON; tool calls' provider
	// data (thought signatures) is in tool_calls already.
	`ALTER TABLE messages ADD COLUMN meta TEXT;`,
	// 2 → 3: what the conversation showed that is not a message to the
	// model (a !cmd and its output, the notice that older messages were
	// summarised), placed after the message seq it followed, as JSON.
	`CREATE TABLE asides (
		session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
		after_seq  INTEGER NOT NULL,
		data       TEXT NOT NULL,
		created_at INTEGER NOT NULL
	);`,
	// 3 → 4: what started the session, chat or co run (Kind), so that
	// co --continue in the chat does not resume a co run and the other way
	// round. Sessions saved before are counted as the chat's: which ones
	// a co run saved was not recorded.
	`ALTER TABLE sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'chat';`,
	// 4 → 5 (issue 29): a scheduled run's session names its schedule and
	// keeps its outcome; a call an unattended run may not make alone waits
	// in pending for the user; marks keeps when the user last looked at
	// what scheduled runs left (the start notice, co inbox).
	`ALTER TABLE sessions ADD COLUMN schedule TEXT NOT NULL DEFAULT '';
	ALTER TABLE sessions ADD COLUMN outcome TEXT NOT NULL DEFAULT '';
	CREATE INDEX sessions_kind_created ON sessions(kind, created_at);
	CREATE TABLE pending (
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
		call_id    TEXT NOT NULL,
		tool       TEXT NOT NULL,
		args       TEXT NOT NULL DEFAULT '',
		reason     TEXT NOT NULL DEFAULT '',
		untrusted  TEXT NOT NULL DEFAULT '[]',
		to_whom    TEXT NOT NULL DEFAULT '',
		sends      TEXT NOT NULL DEFAULT '',
		created_at INTEGER NOT NULL,
		state      TEXT NOT NULL DEFAULT 'waiting',
		decided_at INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX pending_state ON pending(state, id);
	CREATE TABLE marks (
		name TEXT PRIMARY KEY,
		at   INTEGER NOT NULL
	);`,
	// 5 → 6 (issue 39): each compaction of the history (a summary in
	// place of older messages), so that a resumed session starts from the
	// compacted history instead of summarising every saved message again.
	// history is what the model was sent from then on in place of the
	// messages saved up to upto_seq, as JSON (compaction.go): ranges of
	// saved messages and the messages that are nowhere else (the summary,
	// its acknowledgement). The messages table keeps every message.
	`CREATE TABLE compactions (
		session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
		upto_seq   INTEGER NOT NULL,
		history    TEXT NOT NULL,
		created_at INTEGER NOT NULL
	);
	CREATE INDEX compactions_session ON compactions(session_id);`,
	// 6 → 7 (issue 41, undo): a message taken out of the conversation by
	// an undo ('undone') or replaced by a summary ('summarised'), and when
	// (undone.go); '' is a live message. The rows stay, for the
	// transcript, and seqs are never reused. An aside that followed such a
	// message carries its mark. The index counts undone turns for List.
	`ALTER TABLE messages ADD COLUMN undone TEXT NOT NULL DEFAULT '';
	ALTER TABLE messages ADD COLUMN undone_at INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE asides ADD COLUMN undone TEXT NOT NULL DEFAULT '';
	CREATE INDEX messages_undone ON messages(session_id, role) WHERE undone = 'undone';`,
	// 7 → 8 (issue 43, cost): the session's cached prompt tokens and what
	// it cost in US dollars (lib/cost), and a model it used that has no
	// known price ('' when every call was priced).
	`ALTER TABLE sessions ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE sessions ADD COLUMN cost REAL NOT NULL DEFAULT 0;
	ALTER TABLE sessions ADD COLUMN unpriced TEXT NOT NULL DEFAULT '';`,
}

// Kind is what started a saved session: the chat (co, co --plain) or co
// run. --continue continues the latest of its own kind; --resume ID and
// /sessions ID take either.
type Kind string

const (
	Chat Kind = "chat"
	Run  Kind = "run"
	// Scheduled is a run started by the system's scheduler for one of the
	// user's schedules (co schedule): unattended, so what needs approval
	// waits (Pending) instead of running.
	Scheduled Kind = "scheduled"
)

// AsideData is an aside as saved (the data column of asides, and an
// export's): a notice, or a !cmd run and how it ended.
type AsideData struct {
	Notice   string         `json:"notice,omitempty"`
	Args     string         `json:"args,omitempty"` // a !cmd's shell arguments
	Name     string         `json:"name,omitempty"`
	Status   string         `json:"status,omitempty"`
	Display  string         `json:"display,omitempty"`
	Meta     map[string]any `json:"meta,omitempty"`
	Err      string         `json:"err,omitempty"`
	Decision string         `json:"decision,omitempty"`
	Millis   int64          `json:"ms,omitempty"`
}

func encodeAside(x message.Aside) ([]byte, error) {
	d := AsideData{Notice: x.Notice}
	if b := x.Bang; b != nil {
		f := b.Finished
		d.Args, d.Name, d.Status, d.Display, d.Meta = b.Args, f.Name, f.Status.String(), f.Result.Display, f.Result.Meta
		d.Err, d.Decision, d.Millis = f.Err, string(f.Decision), f.Duration.Milliseconds()
	}
	return json.Marshal(d)
}

func decodeAside(b []byte) (message.Aside, error) {
	var d AsideData
	if err := json.Unmarshal(b, &d); err != nil {
		return message.Aside{}, err
	}
	x := message.Aside{Notice: d.Notice}
	if d.Args != "" {
		st := message.CallFailed
		for c := message.CallDone; c <= message.CallWaiting; c++ {
			if c.String() == d.Status {
				st = c
			}
		}
		x.Bang = &message.BangRun{Args: d.Args, Finished: message.ToolCallFinished{
			CallID: message.BangCallID, Name: d.Name, Status: st, Result: tools.Result{Display: d.Display, Meta: d.Meta},
			Err: d.Err, Decision: message.Source(d.Decision), Duration: time.Duration(d.Millis) * time.Millisecond, Bang: true,
		}}
	}
	return x, nil
}

// messageMeta is the meta column of a message.
type messageMeta struct {
	Reasoning      string `json:"reasoning,omitempty"`
	ReasoningField string `json:"reasoning_field,omitempty"`
	Origin         string `json:"origin,omitempty"`
	Model          string `json:"model,omitempty"`
	Shown          string `json:"shown,omitempty"` // a user message typed as /NAME ARGS
	// Sources: where the message's content came from (web, mail, MCP, …),
	// so a resumed conversation keeps its risk state (agent.Risk).
	Sources []tools.Origin `json:"sources,omitempty"`
	// Attachments: the images and PDFs of a user message, by reference
	// and hash (path, sha256, size, type, dimensions), never their bytes.
	Attachments []message.Attachment `json:"attachments,omitempty"`
	// InputTokens: the prompt tokens of the request that produced an
	// assistant message, so a resumed conversation compacts when the
	// window was nearly full (agent.Restore).
	InputTokens int `json:"input_tokens,omitempty"`
}

func (mm messageMeta) empty() bool {
	return mm.Reasoning == "" && mm.ReasoningField == "" && mm.Origin == "" && mm.Model == "" && mm.Shown == "" && len(mm.Sources) == 0 && len(mm.Attachments) == 0 && mm.InputTokens == 0
}

// Store is the saved-sessions database.
type Store struct {
	path string
	// The file is opened once, at Open or, for OpenLater, at first use
	// (conn); err is why it could not be.
	once sync.Once
	db   *sql.DB
	err  error
}

// ErrNotFound is returned for an unknown session id.
var ErrNotFound = errors.New("no such session")

// Open opens (creating or migrating) the store at path.
func Open(path string) (*Store, error) {
	s := OpenLater(path)
	if err := s.Ready(); err != nil {
		return nil, err
	}
	return s, nil
}

// OpenLater returns the store at path without touching the file: it is
// opened (created, migrated) at the first call that needs it, or at
// Ready, and a failure is that call's error. The full-screen chat's start
// uses it, so that the file is not on the way to the first frame (a new
// data folder's first start creates and migrates it: issue 44).
func OpenLater(path string) *Store { return &Store{path: path} }

// Ready opens the store if it is not open yet and reports whether it
// could be.
func (s *Store) Ready() error {
	_, err := s.conn()
	return err
}

// errClosed is the error of a store closed before it was opened.
var errClosed = errors.New("the sessions store is closed")

func (s *Store) conn() (*sql.DB, error) {
	s.once.Do(func() { s.db, s.err = sqlitefile.Open(s.path, schema) })
	return s.db, s.err
}

func (s *Store) query(q string, args ...any) (*sql.Rows, error) {
	db, err := s.conn()
	if err != nil {
		return nil, err
	}
	return db.Query(q, args...)
}

func (s *Store) exec(q string, args ...any) (sql.Result, error) {
	db, err := s.conn()
	if err != nil {
		return nil, err
	}
	return db.Exec(q, args...)
}

func (s *Store) begin() (*sql.Tx, error) {
	db, err := s.conn()
	if err != nil {
		return nil, err
	}
	return db.Begin()
}

// scanner is a *sql.Row, or failedRow when the store could not be opened.
type scanner interface{ Scan(...any) error }

type failedRow struct{ err error }

func (f failedRow) Scan(...any) error { return f.err }

func (s *Store) queryRow(q string, args ...any) scanner {
	db, err := s.conn()
	if err != nil {
		return failedRow{err}
	}
	return db.QueryRow(q, args...)
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// Close closes the store.
func (s *Store) Close() error {
	s.once.Do(func() { s.err = errClosed }) // never opened: it never will be
	if s.db == nil {
		return nil
	}
	return s.db.Close()
}

func (s *Store) damaged(err error) error { return sqlitefile.Damaged(s.path, schema, err) }

// Info describes a saved session.
type Info struct {
	ID           string
	Workspace    string
	Title        string
	Created      time.Time
	Updated      time.Time
	Turns        int
	InputTokens  int
	OutputTokens int
	Kind         Kind // what started it: Chat, Run or Scheduled
	// Schedule is the schedule's name of a Scheduled session, "" for
	// the others.
	Schedule string
	// Outcome is how a scheduled run ended, as SetOutcome saved it
	// ("" while it runs or when it was never saved).
	Outcome string
	// Undone is how many turns an undo took out (UndoFrom); Turns counts
	// the others.
	Undone int
	// CachedTokens is the part of InputTokens served from the provider's
	// cache; Cost what the session cost in US dollars; Unpriced a model
	// it used with no known price ("" when every call was priced).
	CachedTokens int
	Cost         float64
	Unpriced     string
}

// Usage is the session's usage as the agent counts it.
func (i Info) Usage() message.Usage {
	return message.Usage{InputTokens: i.InputTokens, OutputTokens: i.OutputTokens, CachedTokens: i.CachedTokens, Cost: i.Cost, Unpriced: i.Unpriced}
}

const infoCols = `id, workspace, title, created_at, updated_at, turns, input_tokens, output_tokens, kind, schedule, outcome,
	(SELECT count(*) FROM messages m WHERE m.session_id = sessions.id AND m.role = 'user' AND m.undone = 'undone'),
	cached_tokens, cost, unpriced`

func scanInfo(sc scanner) (Info, error) {
	var i Info
	var created, updated int64
	err := sc.Scan(&i.ID, &i.Workspace, &i.Title, &created, &updated, &i.Turns, &i.InputTokens, &i.OutputTokens, &i.Kind, &i.Schedule, &i.Outcome, &i.Undone, &i.CachedTokens, &i.Cost, &i.Unpriced)
	i.Created, i.Updated = time.Unix(0, created), time.Unix(0, updated)
	return i, err
}

// List returns saved sessions, most recently active first: those of
// workspace, or all when workspace is "". limit <= 0 means no limit.
func (s *Store) List(workspace string, limit int) ([]Info, error) {
	return s.ListKind(workspace, "", limit)
}

// ListKind is List of the sessions of kind k only ("": every kind).
func (s *Store) ListKind(workspace string, k Kind, limit int) ([]Info, error) {
	q := `SELECT ` + infoCols + ` FROM sessions`
	var where []string
	var args []any
	if workspace != "" {
		where = append(where, `workspace = ?`)
		args = append(args, workspace)
	}
	if k != "" {
		where = append(where, `kind = ?`)
		args = append(args, string(k))
	}
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, ` AND `)
	}
	q += ` ORDER BY updated_at DESC`
	if limit > 0 {
		q += fmt.Sprintf(` LIMIT %d`, limit)
	}
	return s.infos(q, args...)
}

// infos runs q, a query of infoCols, and scans its rows.
func (s *Store) infos(q string, args ...any) ([]Info, error) {
	rows, err := s.query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Info
	for rows.Next() {
		i, err := scanInfo(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, i)
	}
	return out, rows.Err()
}

// Latest returns the most recently active session of workspace of kind k
// ("": of any kind).
func (s *Store) Latest(workspace string, k Kind) (Info, error) {
	l, err := s.ListKind(workspace, k, 1)
	if err != nil {
		return Info{}, err
	}
	if len(l) == 0 {
		what := "saved session"
		switch k {
		case Chat:
			what = "saved chat session"
		case Run:
			what = "saved co run session"
		case Scheduled:
			what = "saved scheduled run"
		}
		return Info{}, fmt.Errorf("%w: no %s in %s", ErrNotFound, what, workspace)
	}
	return l[0], nil
}

// Find returns the session whose id is id or starts with it.
func (s *Store) Find(id string) (Info, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return Info{}, fmt.Errorf("%w: empty id", ErrNotFound)
	}
	rows, err := s.query(`SELECT `+infoCols+` FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT 2`, id, id+"\xff")
	if err != nil {
		return Info{}, err
	}
	defer rows.Close()
	var found []Info
	for rows.Next() {
		i, err := scanInfo(rows)
		if err != nil {
			return Info{}, err
		}
		found = append(found, i)
	}
	switch {
	case len(found) == 0:
		return Info{}, fmt.Errorf("%w %q (co sessions lists them)", ErrNotFound, id)
	case len(found) > 1 && found[0].ID != id:
		return Info{}, fmt.Errorf("session id %q is ambiguous: give more of it", id)
	}
	return found[0], rows.Err()
}

func (s *Store) draftPath(id string) string {
	return filepath.Join(filepath.Dir(s.path), "drafts", id+".txt")
}

// Delete removes a session and everything saved of it.
func (s *Store) Delete(id string) error {
	os.Remove(s.draftPath(id))
	res, err := s.exec(`DELETE FROM sessions WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w %q", ErrNotFound, id)
	}
	return nil
}

// Entry is one step of a saved transcript: a message, or an approval
// decision (Decision set).
type Entry struct {
	Message  message.Message
	Decision *DecisionRecord
	// Aside is a !cmd run or a notice the conversation showed (After is
	// not set: the entry's place is its position).
	Aside *message.Aside
	At    time.Time
	// Undone is the step's mark: "" (in the conversation), MarkUndone
	// (taken out by an undo) or MarkSummarised (replaced by a summary).
	Undone string
}

// DecisionRecord is a saved approval decision.
type DecisionRecord struct {
	CallID, Tool, Verdict string
}

// Load returns a session's saved messages, ready to resume: a draft
// becomes an interrupted assistant message, dangling tool calls are
// patched. Messages an undo took out are left out; summarised ones are
// in (LoadResume's History has their summary instead).
func (s *Store) Load(id string) (Info, []message.Message, error) {
	info, entries, err := s.Transcript(id)
	if err != nil {
		return Info{}, nil, err
	}
	msgs, _ := split(entries)
	return info, message.PatchDangling(msgs), nil
}

// LoadAsides is Load with the asides the conversation showed, each placed
// by the number of (patched) history messages before it.
func (s *Store) LoadAsides(id string) (Info, []message.Message, []message.Aside, error) {
	info, entries, err := s.Transcript(id)
	if err != nil {
		return Info{}, nil, nil, err
	}
	msgs, xs := split(entries)
	msgs, xs = message.PatchDanglingAsides(msgs, xs)
	return info, msgs, xs, nil
}

// split takes the messages and asides out of a transcript: those an undo
// took out are left out; before the first of a run of summarised ones
// goes SummarisedNotice, so what the chat shows marks them.
func split(entries []Entry) ([]message.Message, []message.Aside) {
	msgs := make([]message.Message, 0, len(entries))
	var xs []message.Aside
	summarised := false
	for _, e := range entries {
		if e.Undone == MarkUndone {
			continue
		}
		if e.Aside == nil && e.Decision == nil {
			if s := e.Undone == MarkSummarised; s != summarised {
				if s {
					xs = append(xs, message.Aside{After: len(msgs), Notice: SummarisedNotice})
				}
				summarised = s
			}
		}
		switch {
		case e.Aside != nil:
			x := *e.Aside
			x.After = len(msgs)
			xs = append(xs, x)
		case e.Decision == nil:
			msgs = append(msgs, e.Message)
		}
	}
	return msgs, xs
}

// Transcript returns a session's steps in order, approval decisions
// included, with the draft (if any) as a final interrupted reply.
func (s *Store) Transcript(id string) (Info, []Entry, error) {
	info, err := scanInfo(s.queryRow(`SELECT `+infoCols+` FROM sessions WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Info{}, nil, fmt.Errorf("%w %q", ErrNotFound, id)
	}
	if err != nil {
		return Info{}, nil, s.damaged(err)
	}
	saved, err := s.messages(id, `ORDER BY seq`)
	if err != nil {
		return Info{}, nil, err
	}
	entries := make([]Entry, 0, len(saved))
	for _, m := range saved {
		entries = append(entries, Entry{Message: m.Message, At: m.at, Undone: m.undone})
	}
	if err := s.mergeDecisions(id, &entries); err != nil {
		return Info{}, nil, err
	}
	if err := s.mergeAsides(id, &entries); err != nil {
		return Info{}, nil, err
	}
	if b, err := os.ReadFile(s.draftPath(id)); err == nil && len(b) > 0 {
		at := time.Now()
		if st, err := os.Stat(s.draftPath(id)); err == nil {
			at = st.ModTime()
		}
		entries = append(entries, Entry{Message: message.Message{Role: message.RoleAssistant, Content: string(b), Interrupted: true}, At: at})
	}
	return info, entries, nil
}

// savedMessage is a row of messages.
type savedMessage struct {
	message.Message
	seq    int
	at     time.Time
	undone string // its mark: "", MarkUndone or MarkSummarised
}

// querier is a *sql.DB or a *sql.Tx.
type querier interface {
	Query(query string, args ...any) (*sql.Rows, error)
	QueryRow(query string, args ...any) *sql.Row
}

// messages returns session id's saved messages; more is the rest of the
// query after its WHERE (an ORDER BY, more conditions), with its args.
func (s *Store) messages(id, more string, args ...any) ([]savedMessage, error) {
	db, err := s.conn()
	if err != nil {
		return nil, err
	}
	return s.messagesIn(db, id, more, args...)
}

// messagesIn is messages read through q (a transaction's view).
func (s *Store) messagesIn(q querier, id, more string, args ...any) ([]savedMessage, error) {
	rows, err := q.Query(`SELECT seq, role, content, tool_calls, tool_call_id, tool_name, interrupted, created_at, meta, undone FROM messages WHERE session_id = ? `+more, append([]any{id}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []savedMessage
	for rows.Next() {
		var m message.Message
		var calls, callID, toolName, meta sql.NullString
		var seq, interrupted int
		var at int64
		var undone string
		if err := rows.Scan(&seq, &m.Role, &m.Content, &calls, &callID, &toolName, &interrupted, &at, &meta, &undone); err != nil {
			return nil, err
		}
		if meta.Valid && meta.String != "" {
			var mm messageMeta
			if err := json.Unmarshal([]byte(meta.String), &mm); err != nil {
				return nil, s.damaged(err)
			}
			m.Reasoning, m.ReasoningField, m.Origin, m.Model, m.Shown, m.Sources = mm.Reasoning, mm.ReasoningField, mm.Origin, mm.Model, mm.Shown, mm.Sources
			m.Attachments, m.InputTokens = mm.Attachments, mm.InputTokens
		}
		if calls.Valid && calls.String != "" {
			if err := json.Unmarshal([]byte(calls.String), &m.ToolCalls); err != nil {
				return nil, s.damaged(err)
			}
		}
		m.ToolCallID, m.ToolName, m.Interrupted = callID.String, toolName.String, interrupted != 0
		out = append(out, savedMessage{Message: m, seq: seq, at: time.Unix(0, at), undone: undone})
	}
	return out, rows.Err()
}

// mergeAsides places each aside after the message it followed (entries
// hold messages in seq order, seq counting from 1).
func (s *Store) mergeAsides(id string, entries *[]Entry) error {
	xs, err := s.asides(id)
	if err != nil || len(xs) == 0 {
		return err
	}
	out := make([]Entry, 0, len(*entries)+len(xs))
	seq, k := 0, 0
	for _, e := range *entries {
		if e.Decision == nil {
			// Asides that followed message seq come before message seq+1
			// (and its decision, which comes just before it).
			for k < len(xs) && xs[k].after <= seq {
				out = append(out, xs[k].e)
				k++
			}
			seq++
		}
		out = append(out, e)
	}
	for ; k < len(xs); k++ {
		out = append(out, xs[k].e)
	}
	*entries = out
	return nil
}

// placedAside is a row of asides: x follows the message of seq after.
type placedAside struct {
	after int
	e     Entry
}

// asides returns session id's asides in the order they were saved.
func (s *Store) asides(id string) ([]placedAside, error) {
	rows, err := s.query(`SELECT after_seq, data, created_at, undone FROM asides WHERE session_id = ? ORDER BY rowid`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var xs []placedAside
	for rows.Next() {
		var after int
		var data, undone string
		var at int64
		if err := rows.Scan(&after, &data, &at, &undone); err != nil {
			return nil, err
		}
		x, err := decodeAside([]byte(data))
		if err != nil {
			return nil, s.damaged(err)
		}
		xs = append(xs, placedAside{after, Entry{Aside: &x, At: time.Unix(0, at), Undone: undone}})
	}
	return xs, rows.Err()
}

// mergeDecisions places each decision before the result of its call.
func (s *Store) mergeDecisions(id string, entries *[]Entry) error {
	rows, err := s.query(`SELECT call_id, tool, verdict, created_at FROM decisions WHERE session_id = ? ORDER BY rowid`, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	// A call id can repeat across turns (servers that number calls per
	// response): a call's decision is the first one left for its id.
	var ds []Entry
	byCall := map[string][]int{}
	for rows.Next() {
		var d DecisionRecord
		var at int64
		if err := rows.Scan(&d.CallID, &d.Tool, &d.Verdict, &at); err != nil {
			return err
		}
		byCall[d.CallID] = append(byCall[d.CallID], len(ds))
		ds = append(ds, Entry{Decision: &d, At: time.Unix(0, at)})
	}
	if err := rows.Err(); err != nil || len(ds) == 0 {
		return err
	}
	placed := make([]bool, len(ds))
	out := make([]Entry, 0, len(*entries)+len(ds))
	for _, e := range *entries {
		if id := e.Message.ToolCallID; e.Message.Role == message.RoleTool && len(byCall[id]) > 0 {
			k := byCall[id][0]
			byCall[id] = byCall[id][1:]
			ds[k].Undone = e.Undone // a decision goes with its call's result
			out = append(out, ds[k])
			placed[k] = true
		}
		out = append(out, e)
	}
	for k, d := range ds { // decided, but the result was never saved
		if !placed[k] {
			out = append(out, d)
		}
	}
	*entries = out
	return nil
}

// Session records one conversation; it implements agent.Recorder. Its row
// is created with the first message, so an empty chat leaves nothing.
type Session struct {
	store     *Store
	id        string
	workspace string
	kind      Kind
	schedule  string
	seq       int
	created   bool
	draft     *os.File // open while a reply streams
}

// New starts a new chat session of workspace.
func (s *Store) New(workspace string) *Session { return s.NewKind(workspace, Chat) }

// NewKind starts a new session of workspace, started by k.
func (s *Store) NewKind(workspace string, k Kind) *Session {
	if k == "" {
		k = Chat
	}
	return &Session{store: s, id: newID(), workspace: workspace, kind: k}
}

// NewScheduled starts a new session of kind Scheduled: the run of the
// schedule named schedule.
func (s *Store) NewScheduled(workspace, schedule string) *Session {
	return &Session{store: s, id: newID(), workspace: workspace, kind: Scheduled, schedule: schedule}
}

// Resume continues saving into an existing session. It first repairs what
// a crash left: the draft becomes an interrupted assistant message and
// unanswered tool calls get "Interrupted by the user." results, saved, so
// the stored history is valid from then on.
func (s *Store) Resume(id string) (*Session, error) {
	r, err := s.reopen(id)
	if err != nil {
		return nil, err
	}
	_, entries, err := s.Transcript(id)
	if err != nil {
		return nil, err
	}
	msgs, _ := split(entries)
	if _, err := os.Stat(s.draftPath(id)); err == nil && len(msgs) > 0 {
		if last := msgs[len(msgs)-1]; last.Role == message.RoleAssistant && last.Interrupted {
			if err := r.Append(last); err != nil { // also removes the draft
				return nil, err
			}
		} else {
			os.Remove(s.draftPath(id))
		}
	}
	for _, m := range message.Unanswered(msgs) {
		if err := r.Append(m); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (s *Store) reopen(id string) (*Session, error) {
	var seq sql.NullInt64
	if err := s.queryRow(`SELECT max(seq) FROM messages WHERE session_id = ?`, id).Scan(&seq); err != nil {
		return nil, err
	}
	var ws string
	if err := s.queryRow(`SELECT workspace FROM sessions WHERE id = ?`, id).Scan(&ws); err != nil {
		return nil, fmt.Errorf("%w %q", ErrNotFound, id)
	}
	return &Session{store: s, id: id, workspace: ws, seq: int(seq.Int64), created: true}, nil
}

// ID is the session's id.
func (r *Session) ID() string { return r.id }

// Seq is the seq of the last message r appended (0: none yet): right
// after a turn's user message is saved, the turn's key. Seqs are never
// reused: after UndoFrom, r appends after the undone messages.
func (r *Session) Seq() int64 { return int64(r.seq) }

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	// Time first, so ids sort by creation.
	return fmt.Sprintf("%x%s", time.Now().Unix(), hex.EncodeToString(b[:4]))
}

// Title makes a session title from the first prompt: its first line, at
// most 60 characters.
func Title(prompt string) string {
	t := strings.TrimSpace(prompt)
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	t = strings.Join(strings.Fields(t), " ")
	if r := []rune(t); len(r) > 60 {
		t = string(r[:59]) + "…"
	}
	return t
}

func (r *Session) tx(f func(tx *sql.Tx, now int64) error) error {
	tx, err := r.store.begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := time.Now().UnixNano()
	if !r.created {
		if _, err := tx.Exec(`INSERT INTO sessions (id, workspace, kind, schedule, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`, r.id, r.workspace, string(r.kind), r.schedule, now, now); err != nil {
			return err
		}
	}
	if err := f(tx, now); err != nil {
		return err
	}
	if _, err := tx.Exec(`UPDATE sessions SET updated_at = ? WHERE id = ?`, now, r.id); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	r.created = true
	return nil
}

// Append implements agent.Recorder.
func (r *Session) Append(m message.Message) error {
	var calls any
	if len(m.ToolCalls) > 0 {
		b, err := json.Marshal(m.ToolCalls)
		if err != nil {
			return err
		}
		calls = string(b)
	}
	var meta any
	if mm := (messageMeta{m.Reasoning, m.ReasoningField, m.Origin, m.Model, m.Shown, m.Sources, m.Attachments, m.InputTokens}); !mm.empty() {
		b, err := json.Marshal(mm)
		if err != nil {
			return err
		}
		meta = string(b)
	}
	seq := r.seq + 1
	err := r.tx(func(tx *sql.Tx, now int64) error {
		if _, err := tx.Exec(`INSERT INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, tool_name, interrupted, created_at, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.id, seq, string(m.Role), m.Content, calls, nullable(m.ToolCallID), nullable(m.ToolName), m.Interrupted, now, meta); err != nil {
			return err
		}
		switch m.Role {
		case message.RoleUser:
			if _, err := tx.Exec(`UPDATE sessions SET turns = turns + 1 WHERE id = ?`, r.id); err != nil {
				return err
			}
			// Named by its first prompt, even when a !cmd came first
			// (a prompt never starts with "!": that is a command).
			_, err := tx.Exec(`UPDATE sessions SET title = ? WHERE id = ? AND (title = '' OR title LIKE '!%')`, Title(m.Content), r.id)
			return err
		}
		return nil
	})
	if err == nil {
		r.seq = seq
		if m.Role == message.RoleAssistant {
			r.dropDraft()
		}
	}
	return err
}

// dropDraft removes the draft once the reply it held is saved.
func (r *Session) dropDraft() {
	if r.draft != nil {
		r.draft.Close()
		r.draft = nil
	}
	os.Remove(r.store.draftPath(r.id))
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Draft implements agent.Recorder: one append to the draft file.
func (r *Session) Draft(chunk string) error {
	if r.draft == nil {
		if !r.created {
			// The session row must exist before a draft can belong to it.
			if err := r.tx(func(*sql.Tx, int64) error { return nil }); err != nil {
				return err
			}
		}
		p := r.store.draftPath(r.id)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return err
		}
		r.draft = f
	}
	_, err := r.draft.WriteString(chunk)
	return err
}

// Decision implements agent.Recorder.
func (r *Session) Decision(callID, tool string, v message.Verdict) error {
	return r.tx(func(tx *sql.Tx, now int64) error {
		_, err := tx.Exec(`INSERT INTO decisions (session_id, call_id, tool, verdict, created_at) VALUES (?, ?, ?, ?, ?)`, r.id, callID, tool, v.String(), now)
		return err
	})
}

// Aside implements agent.Recorder: x is placed after the messages saved
// so far (x.After counts the agent's history, which summarising shortens;
// the store keeps every message).
func (r *Session) Aside(x message.Aside) error {
	data, err := encodeAside(x)
	if err != nil {
		return err
	}
	return r.tx(func(tx *sql.Tx, now int64) error {
		if _, err := tx.Exec(`INSERT INTO asides (session_id, after_seq, data, created_at) VALUES (?, ?, ?, ?)`, r.id, r.seq, string(data), now); err != nil {
			return err
		}
		if x.Bang == nil {
			return nil
		}
		// A session that so far only ran commands is named by the first.
		var a struct{ Cmd string }
		_ = json.Unmarshal([]byte(x.Bang.Args), &a)
		_, err := tx.Exec(`UPDATE sessions SET title = ? WHERE id = ? AND title = ''`, Title("!"+a.Cmd), r.id)
		return err
	})
}

// Usage implements agent.Recorder.
func (r *Session) Usage(u message.Usage) error {
	return r.tx(func(tx *sql.Tx, now int64) error {
		_, err := tx.Exec(`UPDATE sessions SET input_tokens = ?, output_tokens = ?, cached_tokens = ?, cost = ?, unpriced = ? WHERE id = ?`,
			u.InputTokens, u.OutputTokens, u.CachedTokens, u.Cost, u.Unpriced, r.id)
		return err
	})
}
