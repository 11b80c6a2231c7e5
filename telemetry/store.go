package telemetry

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// Span is one stored span, as the viewers read it.
type Span struct {
	// Seq is the row's insertion order (the rowid): spans are stored when
	// they end, so a follower reads what is new with Seq > last.
	Seq               int64          `json:"seq"`
	ID                string         `json:"id"`
	TraceID           string         `json:"trace_id"`
	ParentID          string         `json:"parent_id,omitempty"`
	Name              string         `json:"name"`
	Kind              string         `json:"kind"`
	StartTime         int64          `json:"start_time"` // ns since the epoch
	EndTime           int64          `json:"end_time"`
	DurationMS        float64        `json:"duration_ms"`
	StatusCode        string         `json:"status_code"`
	StatusDescription string         `json:"status_description,omitempty"`
	Attributes        map[string]any `json:"attributes"`
	Events            []StoredEvent  `json:"events"`
	Resource          map[string]any `json:"resource"`
}

// StoredEvent is a span event as stored.
type StoredEvent = storedEvent

// Start is the span's start time.
func (s *Span) Start() time.Time { return time.Unix(0, s.StartTime) }

// Error reports whether the span failed.
func (s *Span) Error() bool { return s.StatusCode == "ERROR" }

// Attr returns an attribute as text ("" when absent).
func (s *Span) Attr(key string) string {
	v, ok := s.Attributes[key]
	if !ok || v == nil {
		return ""
	}
	switch x := v.(type) {
	case string:
		return x
	case float64:
		if x == float64(int64(x)) {
			return fmt.Sprint(int64(x))
		}
		return fmt.Sprint(x)
	case []any:
		parts := make([]string, len(x))
		for i, p := range x {
			parts[i] = fmt.Sprint(p)
		}
		return strings.Join(parts, ",")
	default:
		return fmt.Sprint(x)
	}
}

// Category is what the span is about: agent, llm, tool, hook or other.
func (s *Span) Category() string {
	switch op := s.Attr("gen_ai.operation.name"); {
	case op == "invoke_agent":
		return "agent"
	case op == "chat" || op == "text_completion" || op == "generate_content":
		return "llm"
	case op == "execute_tool":
		return "tool"
	case op == "execute_hook":
		return "hook"
	case strings.HasPrefix(s.Name, "invoke_agent"):
		return "agent"
	case strings.HasPrefix(s.Name, "chat "):
		return "llm"
	case strings.HasPrefix(s.Name, "execute_tool"):
		return "tool"
	}
	return "other"
}

// ErrNoStore means the database does not exist yet (co has not written a
// span there).
var ErrNoStore = errors.New("no telemetry yet")

// Store reads the span database without ever writing it (a read-only
// connection, query_only), so readers never block co's writer. It opens the
// file on first use and again after it appears.
type Store struct {
	path string
	mu   sync.Mutex
	db   *sql.DB
}

// OpenStore returns a reader for the database at path. The file need not
// exist yet: queries return ErrNoStore until it does.
func OpenStore(path string) *Store { return &Store{path: path} }

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return nil
	}
	err := s.db.Close()
	s.db = nil
	return err
}

func (s *Store) conn(ctx context.Context) (*sql.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db != nil {
		return s.db, nil
	}
	if _, err := os.Stat(s.path); err != nil {
		if os.IsNotExist(err) {
			return nil, ErrNoStore
		}
		return nil, err
	}
	db, err := sql.Open("sqlite3", readerDSN(s.path))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'spans'`).Scan(&n); err != nil {
		db.Close()
		return nil, fmt.Errorf("reading %s: %w", s.path, err)
	}
	if n == 0 {
		db.Close()
		return nil, ErrNoStore
	}
	s.db = db
	return db, nil
}

// Filter selects spans.
type Filter struct {
	TraceID string // a trace id or a prefix of one
	// Tool keeps execute_tool spans (of that tool when not "*").
	Tool       string
	LLMOnly    bool // chat spans only
	ErrorsOnly bool
	Text       string // in the name, attributes, events or status
	// CoKinds keeps co's own kinds only: turns (invoke_agent), LLM
	// requests (chat) and tool calls (execute_tool); not the sandbox's
	// start or the Docker API client's HTTP spans.
	CoKinds bool
}

func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	if f.TraceID != "" {
		conds = append(conds, `trace_id LIKE ? ESCAPE '\'`)
		args = append(args, likePrefix(strings.ToLower(f.TraceID)))
	}
	switch f.Tool {
	case "":
	case "*":
		conds = append(conds, `name LIKE 'execute\_tool%' ESCAPE '\'`)
	default:
		conds = append(conds, `name = ?`)
		args = append(args, "execute_tool "+f.Tool)
	}
	if f.LLMOnly {
		conds = append(conds, `name LIKE 'chat %'`)
	}
	if f.ErrorsOnly {
		conds = append(conds, `status_code = 'ERROR'`)
	}
	if f.CoKinds {
		conds = append(conds, `(name LIKE 'invoke\_agent%' ESCAPE '\' OR name LIKE 'chat %' OR name LIKE 'execute\_tool%' ESCAPE '\')`)
	}
	if f.Text != "" {
		// Attributes and events are JSON: the text is searched for as it
		// is written there (quotes, backslashes, newlines escaped).
		raw, enc := likeContains(f.Text), likeContains(jsonEscaped(f.Text))
		conds = append(conds, `(name LIKE ? ESCAPE '\' OR status_description LIKE ? ESCAPE '\' OR attributes LIKE ? ESCAPE '\' OR events LIKE ? ESCAPE '\')`)
		args = append(args, raw, raw, enc, enc)
	}
	if len(conds) == 0 {
		return "1", nil
	}
	return strings.Join(conds, " AND "), args
}

// jsonEscaped is s as it appears inside a JSON string written by marshal.
func jsonEscaped(s string) string {
	q := marshal(s, "")
	if len(q) >= 2 {
		return q[1 : len(q)-1]
	}
	return s
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
func likePrefix(s string) string   { return likeEscape(s) + "%" }
func likeContains(s string) string { return "%" + likeEscape(s) + "%" }

const spanColumns = `rowid, id, trace_id, parent_id, name, kind, start_time, end_time, duration_ms, status_code, status_description, attributes, events, resource`

func scanSpans(rows *sql.Rows) ([]Span, error) {
	defer rows.Close()
	var out []Span
	for rows.Next() {
		var sp Span
		var parent, kind, status, desc, attrs, events, res sql.NullString
		var end sql.NullInt64
		var dur sql.NullFloat64
		if err := rows.Scan(&sp.Seq, &sp.ID, &sp.TraceID, &parent, &sp.Name, &kind, &sp.StartTime, &end, &dur, &status, &desc, &attrs, &events, &res); err != nil {
			return nil, err
		}
		sp.ParentID, sp.Kind, sp.StatusCode, sp.StatusDescription = parent.String, kind.String, status.String, desc.String
		sp.EndTime, sp.DurationMS = end.Int64, dur.Float64
		sp.Attributes = map[string]any{}
		sp.Resource = map[string]any{}
		if attrs.Valid {
			_ = json.Unmarshal([]byte(attrs.String), &sp.Attributes)
		}
		if events.Valid {
			_ = json.Unmarshal([]byte(events.String), &sp.Events)
		}
		if res.Valid {
			_ = json.Unmarshal([]byte(res.String), &sp.Resource)
		}
		if sp.Events == nil {
			sp.Events = []StoredEvent{}
		}
		out = append(out, sp)
	}
	return out, rows.Err()
}

// After returns up to limit spans stored after seq, oldest first.
func (s *Store) After(ctx context.Context, seq int64, f Filter, limit int) ([]Span, error) {
	db, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	w, args := f.where()
	args = append([]any{seq}, args...)
	args = append(args, limit)
	rows, err := db.QueryContext(ctx, `SELECT `+spanColumns+` FROM spans WHERE rowid > ? AND `+w+` ORDER BY rowid LIMIT ?`, args...)
	if err != nil {
		return nil, err
	}
	return scanSpans(rows)
}

// Last returns the last n spans stored that match f (all when n <= 0),
// oldest first.
func (s *Store) Last(ctx context.Context, n int, f Filter) ([]Span, error) {
	db, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		n = -1
	}
	w, args := f.where()
	args = append(args, n)
	rows, err := db.QueryContext(ctx, `SELECT * FROM (SELECT `+spanColumns+` FROM spans WHERE `+w+` ORDER BY rowid DESC LIMIT ?) ORDER BY rowid`, args...)
	if err != nil {
		return nil, err
	}
	return scanSpans(rows)
}

// Head returns the last seq stored and the number of spans.
func (s *Store) Head(ctx context.Context) (seq, count int64, err error) {
	db, err := s.conn(ctx)
	if err != nil {
		return 0, 0, err
	}
	var last sql.NullInt64
	err = db.QueryRowContext(ctx, `SELECT max(rowid), count(*) FROM spans`).Scan(&last, &count)
	return last.Int64, count, err
}

// ErrNoTrace means no trace matches the id.
var ErrNoTrace = errors.New("no such trace")

// Trace returns the spans of one trace (id or unique prefix) by start time.
func (s *Store) Trace(ctx context.Context, id string) ([]Span, error) {
	db, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	id = strings.ToLower(strings.TrimSpace(id))
	if len(id) < 32 {
		var ids []string
		rows, err := db.QueryContext(ctx, `SELECT DISTINCT trace_id FROM spans WHERE trace_id LIKE ? ESCAPE '\' LIMIT 2`, likePrefix(id))
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var t string
			if err := rows.Scan(&t); err != nil {
				rows.Close()
				return nil, err
			}
			ids = append(ids, t)
		}
		rows.Close()
		switch len(ids) {
		case 0:
			return nil, ErrNoTrace
		case 2:
			return nil, fmt.Errorf("%q matches several traces; give more of the id", id)
		}
		id = ids[0]
	}
	rows, err := db.QueryContext(ctx, `SELECT `+spanColumns+` FROM spans WHERE trace_id = ? ORDER BY start_time, rowid`, id)
	if err != nil {
		return nil, err
	}
	spans, err := scanSpans(rows)
	if err == nil && len(spans) == 0 {
		err = ErrNoTrace
	}
	return spans, err
}

// LatestTraceID is the trace that started last.
func (s *Store) LatestTraceID(ctx context.Context) (string, error) {
	db, err := s.conn(ctx)
	if err != nil {
		return "", err
	}
	var id string
	err = db.QueryRowContext(ctx, `SELECT trace_id FROM spans ORDER BY start_time DESC LIMIT 1`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNoTrace
	}
	return id, err
}

// TraceSummary is one line of the trace list.
type TraceSummary struct {
	TraceID    string   `json:"trace_id"`
	SessionID  string   `json:"session_id,omitempty"`
	Root       string   `json:"root"` // the root span's name
	StartTime  int64    `json:"start_time"`
	EndTime    int64    `json:"end_time"`
	DurationMS float64  `json:"duration_ms"`
	Spans      int      `json:"spans"`
	Errors     int      `json:"errors"`
	Tools      []string `json:"tools"`
	Prompt     string   `json:"prompt,omitempty"` // the user's prompt, when captured
}

// TraceFilter selects traces for the list.
type TraceFilter struct {
	SessionID  string
	Tool       string // traces that called this tool
	ErrorsOnly bool   // traces with a failed span
	Text       string // in any span's name, attributes, events or status
	Limit      int    // default 100
}

// Traces lists recent traces, newest first.
func (s *Store) Traces(ctx context.Context, f TraceFilter) ([]TraceSummary, error) {
	db, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	if f.Limit <= 0 {
		f.Limit = 100
	}
	var conds []string
	var args []any
	if f.SessionID != "" {
		conds = append(conds, `json_extract(resource, '$."session.id"') = ?`)
		args = append(args, f.SessionID)
	}
	if f.Tool != "" {
		conds = append(conds, `trace_id IN (SELECT trace_id FROM spans WHERE name = ?)`)
		args = append(args, "execute_tool "+f.Tool)
	}
	if f.ErrorsOnly {
		conds = append(conds, `trace_id IN (SELECT trace_id FROM spans WHERE status_code = 'ERROR')`)
	}
	if f.Text != "" {
		w, a := Filter{Text: f.Text}.where()
		conds = append(conds, `trace_id IN (SELECT trace_id FROM spans WHERE `+w+`)`)
		args = append(args, a...)
	}
	where := "1"
	if len(conds) > 0 {
		where = strings.Join(conds, " AND ")
	}
	args = append(args, f.Limit)
	rows, err := db.QueryContext(ctx, `SELECT trace_id, min(start_time) AS st, max(end_time), count(*),
	sum(status_code = 'ERROR'),
	max(json_extract(resource, '$."session.id"')),
	group_concat(CASE WHEN name LIKE 'execute\_tool %' ESCAPE '\' THEN substr(name, 14) END, char(31)),
	max(CASE WHEN parent_id IS NULL THEN name END),
	max(CASE WHEN parent_id IS NULL THEN json_extract(attributes, '$."gen_ai.input.messages"') END)
FROM spans WHERE `+where+` GROUP BY trace_id ORDER BY st DESC LIMIT ?`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []TraceSummary{}
	for rows.Next() {
		var t TraceSummary
		var sess, tools, root, input sql.NullString
		if err := rows.Scan(&t.TraceID, &t.StartTime, &t.EndTime, &t.Spans, &t.Errors, &sess, &tools, &root, &input); err != nil {
			return nil, err
		}
		t.SessionID, t.Root = sess.String, root.String
		if t.Root == "" {
			t.Root = "(running)"
		}
		t.DurationMS = float64(t.EndTime-t.StartTime) / 1e6
		t.Tools = uniq(strings.Split(tools.String, "\x1f"))
		t.Prompt = MessagesText(input.String)
		out = append(out, t)
	}
	return out, rows.Err()
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, s := range ss {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// SessionSummary is one co session in the store.
type SessionSummary struct {
	SessionID string `json:"session_id"`
	StartTime int64  `json:"start_time"`
	EndTime   int64  `json:"end_time"`
	Turns     int    `json:"turns"`
	Errors    int    `json:"errors"`
	Version   string `json:"version,omitempty"`
}

// Sessions lists recent sessions, newest first, from their root spans.
func (s *Store) Sessions(ctx context.Context, limit int) ([]SessionSummary, error) {
	db, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 50
	}
	rows, err := db.QueryContext(ctx, `SELECT json_extract(resource, '$."session.id"') AS sid, min(start_time) AS st, max(end_time), count(*),
	sum(status_code = 'ERROR'), max(json_extract(resource, '$."service.version"'))
FROM spans WHERE parent_id IS NULL GROUP BY sid ORDER BY st DESC LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []SessionSummary{}
	for rows.Next() {
		var x SessionSummary
		var sid, ver sql.NullString
		if err := rows.Scan(&sid, &x.StartTime, &x.EndTime, &x.Turns, &x.Errors, &ver); err != nil {
			return nil, err
		}
		x.SessionID, x.Version = sid.String, ver.String
		out = append(out, x)
	}
	return out, rows.Err()
}

// ToolNames are the tools that appear in the store.
func (s *Store) ToolNames(ctx context.Context) ([]string, error) {
	db, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT DISTINCT substr(name, 14) FROM spans WHERE name LIKE 'execute\_tool %' ESCAPE '\' ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// MessagesText is the text of a gen_ai.input/output.messages JSON value
// (the parts of type text, joined), or the value itself when it is not such
// JSON.
func MessagesText(v string) string {
	if v == "" {
		return ""
	}
	var msgs []struct {
		Role  string `json:"role"`
		Parts []struct {
			Type    string          `json:"type"`
			Content string          `json:"content"`
			Name    string          `json:"name"`
			Args    json.RawMessage `json:"arguments"`
		} `json:"parts"`
	}
	if err := json.Unmarshal([]byte(v), &msgs); err != nil {
		return v
	}
	var b strings.Builder
	for _, m := range msgs {
		for _, p := range m.Parts {
			var s string
			switch p.Type {
			case "reasoning":
				s = "thinking: " + p.Content
			case "text":
				s = p.Content
			case "tool_call":
				s = "→ " + p.Name + " " + string(p.Args)
			default:
				continue
			}
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(s)
		}
	}
	return b.String()
}
