package sessions

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// A session leaves co as one JSON document (co sessions export --format
// json) and comes back as a new session (co sessions import): every saved
// row, its seq and mark kept, so that the imported session resumes as the
// exported one would (the same messages, compactions, undone turns).

// ExportFormat and ExportVersion name the JSON document; Import takes no
// other.
const (
	ExportFormat  = "co-session"
	ExportVersion = 1
)

// Exported is a saved session as one document.
type Exported struct {
	Format  string          `json:"format"`
	Version int             `json:"version"`
	Session ExportedInfo    `json:"session"`
	Steps   []ExportedStep  `json:"steps"`
	Compact []ExportedCompn `json:"compactions,omitempty"`
}

// ExportedInfo is the session's row.
type ExportedInfo struct {
	ID           string    `json:"id"`
	Workspace    string    `json:"workspace"`
	Title        string    `json:"title"`
	Kind         Kind      `json:"kind"`
	Schedule     string    `json:"schedule,omitempty"`
	Outcome      string    `json:"outcome,omitempty"`
	Created      time.Time `json:"created"`
	Updated      time.Time `json:"updated"`
	Turns        int       `json:"turns"`
	Undone       int       `json:"undone_turns,omitempty"`
	InputTokens  int       `json:"input_tokens"`
	OutputTokens int       `json:"output_tokens"`
	// CachedTokens is the part of InputTokens the provider served from
	// its cache; CostUSD what the session cost by lib/cost's table (0 for
	// a local model); Unpriced names a model used with no known price.
	CachedTokens int     `json:"cached_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	Unpriced     string  `json:"unpriced,omitempty"`
}

// ExportedStep is one saved step, in transcript order: a message (Seq
// set), an approval decision or an aside. Mark is the step's undo mark
// ("", MarkUndone, MarkSummarised).
type ExportedStep struct {
	Seq      int              `json:"seq,omitempty"`
	Message  *message.Message `json:"message,omitempty"`
	Decision *DecisionRecord  `json:"decision,omitempty"`
	// Aside is the aside as saved; After is the seq it followed.
	Aside *AsideData `json:"aside,omitempty"`
	After int        `json:"after_seq,omitempty"`
	At    time.Time  `json:"at"`
	Mark  string     `json:"mark,omitempty"`
	// Draft marks the reply being streamed when the session was exported
	// (not saved as a message yet): imported as an interrupted reply.
	Draft bool `json:"draft,omitempty"`
}

// ExportedCompn is a saved compaction: the history sent in place of the
// messages up to UptoSeq.
type ExportedCompn struct {
	UptoSeq int        `json:"upto_seq"`
	History []viewItem `json:"history"`
	At      time.Time  `json:"at"`
}

// Export returns session id as a document, every text in it passed
// through clean (the secrets redacted).
func (s *Store) Export(id string, clean func(string) string) (Exported, error) {
	info, entries, err := s.Transcript(id)
	if err != nil {
		return Exported{}, err
	}
	d := Exported{Format: ExportFormat, Version: ExportVersion, Session: ExportedInfo{
		ID: info.ID, Workspace: info.Workspace, Title: clean(info.Title), Kind: info.Kind, Schedule: info.Schedule,
		Outcome: clean(info.Outcome), Created: info.Created, Updated: info.Updated, Turns: info.Turns, Undone: info.Undone,
		InputTokens: info.InputTokens, OutputTokens: info.OutputTokens,
		CachedTokens: info.CachedTokens, CostUSD: info.Cost, Unpriced: clean(info.Unpriced),
	}}
	saved, err := s.messages(id, `ORDER BY seq`)
	if err != nil {
		return Exported{}, err
	}
	xs, err := s.asides(id)
	if err != nil {
		return Exported{}, err
	}
	// Transcript's order, with each message's seq and each aside's place.
	mi, xi, seq := 0, 0, 0
	for _, e := range entries {
		st := ExportedStep{At: e.At, Mark: e.Undone}
		switch {
		case e.Decision != nil:
			dr := *e.Decision
			st.Decision = &dr
		case e.Aside != nil:
			ad, err := encodeAside(*e.Aside)
			if err != nil {
				return Exported{}, err
			}
			var a AsideData
			if err := json.Unmarshal(ad, &a); err != nil {
				return Exported{}, err
			}
			a.clean(clean)
			st.Aside, st.After = &a, seq
			if xi < len(xs) {
				st.After = xs[xi].after
			}
			xi++
		default:
			m := cleanMessage(e.Message, clean)
			st.Message = &m
			if mi < len(saved) {
				st.Seq = saved[mi].seq
				seq = st.Seq
				mi++
			} else {
				st.Draft = true
			}
		}
		d.Steps = append(d.Steps, st)
	}
	rows, err := s.query(`SELECT upto_seq, history, created_at FROM compactions WHERE session_id = ? ORDER BY rowid`, id)
	if err != nil {
		return Exported{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var c ExportedCompn
		var h string
		var at int64
		if err := rows.Scan(&c.UptoSeq, &h, &at); err != nil {
			return Exported{}, err
		}
		if err := json.Unmarshal([]byte(h), &c.History); err != nil {
			return Exported{}, s.damaged(err)
		}
		for i, it := range c.History {
			if it.Msg != nil {
				m := cleanMessage(*it.Msg, clean)
				c.History[i].Msg = &m
			}
		}
		c.At = time.Unix(0, at)
		d.Compact = append(d.Compact, c)
	}
	return d, rows.Err()
}

// cleanMessage is m with its texts passed through clean.
func cleanMessage(m message.Message, clean func(string) string) message.Message {
	m.Content, m.Reasoning, m.Shown = clean(m.Content), clean(m.Reasoning), clean(m.Shown)
	if len(m.ToolCalls) > 0 {
		calls := make([]message.ToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			c.Args = clean(c.Args)
			calls[i] = c
		}
		m.ToolCalls = calls
	}
	if len(m.Sources) > 0 { // a label may name a URL with a token in it
		srcs := make([]tools.Origin, len(m.Sources))
		for i, o := range m.Sources {
			o.Label = clean(o.Label)
			srcs[i] = o
		}
		m.Sources = srcs
	}
	return m
}

func (a *AsideData) clean(clean func(string) string) {
	a.Notice, a.Args, a.Display, a.Err = clean(a.Notice), clean(a.Args), clean(a.Display), clean(a.Err)
}

// ErrNotExport is returned by ParseExport for a document that is not a
// session co exported, or of a version this co does not read.
var ErrNotExport = errors.New("not a co session export")

// ParseExport reads an exported session, refusing another format or
// version with what was found.
func ParseExport(b []byte) (Exported, error) {
	var head struct {
		Format  *string `json:"format"`
		Version *int    `json:"version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Exported{}, fmt.Errorf("%w: not JSON (%v); co sessions import takes the file co sessions export --format json writes", ErrNotExport, err)
	}
	switch {
	case head.Format == nil:
		return Exported{}, fmt.Errorf(`%w: no "format" field; co sessions import takes the file co sessions export --format json writes`, ErrNotExport)
	case *head.Format != ExportFormat:
		return Exported{}, fmt.Errorf(`%w: its format is %q, not %q`, ErrNotExport, *head.Format, ExportFormat)
	case head.Version == nil:
		return Exported{}, fmt.Errorf(`%w: no "version" field`, ErrNotExport)
	case *head.Version != ExportVersion:
		return Exported{}, fmt.Errorf("%w: version %d; this co reads version %d (export it again with this co, or update co)", ErrNotExport, *head.Version, ExportVersion)
	}
	var d Exported
	if err := json.Unmarshal(b, &d); err != nil {
		return Exported{}, fmt.Errorf("%w: %v", ErrNotExport, err)
	}
	seen := map[int]bool{}
	for i, st := range d.Steps {
		n := 0
		for _, set := range []bool{st.Message != nil, st.Decision != nil, st.Aside != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return Exported{}, fmt.Errorf("%w: step %d holds %d of message, decision and aside (one expected)", ErrNotExport, i+1, n)
		}
		if st.Message != nil && !st.Draft {
			if st.Seq <= 0 || seen[st.Seq] {
				return Exported{}, fmt.Errorf("%w: step %d: message seq %d missing or repeated", ErrNotExport, i+1, st.Seq)
			}
			seen[st.Seq] = true
		}
	}
	return d, nil
}

// Import saves d as a new session of workspace (d's own when workspace
// is "") and returns its id; nothing is saved on error.
func (s *Store) Import(d Exported, workspace string) (string, error) {
	if d.Format != ExportFormat || d.Version != ExportVersion {
		return "", fmt.Errorf("%w: format %q version %d", ErrNotExport, d.Format, d.Version)
	}
	if workspace == "" {
		workspace = d.Session.Workspace
	}
	kind := d.Session.Kind
	if kind == "" {
		kind = Chat
	}
	id := newID()
	tx, err := s.begin()
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	in := d.Session
	if _, err := tx.Exec(`INSERT INTO sessions (id, workspace, title, created_at, updated_at, turns, input_tokens, output_tokens, kind, schedule, outcome, cached_tokens, cost, unpriced) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, workspace, in.Title, in.Created.UnixNano(), time.Now().UnixNano(), in.Turns, in.InputTokens, in.OutputTokens, string(kind), in.Schedule, in.Outcome, in.CachedTokens, in.CostUSD, in.Unpriced); err != nil {
		return "", err
	}
	last := 0
	for _, st := range d.Steps {
		last = max(last, st.Seq)
	}
	for _, st := range d.Steps {
		at := st.At.UnixNano()
		switch {
		case st.Decision != nil:
			_, err = tx.Exec(`INSERT INTO decisions (session_id, call_id, tool, verdict, created_at) VALUES (?, ?, ?, ?, ?)`, id, st.Decision.CallID, st.Decision.Tool, st.Decision.Verdict, at)
		case st.Aside != nil:
			var b []byte
			if b, err = json.Marshal(st.Aside); err == nil {
				_, err = tx.Exec(`INSERT INTO asides (session_id, after_seq, data, created_at, undone) VALUES (?, ?, ?, ?, ?)`, id, st.After, string(b), at, st.Mark)
			}
		default:
			m, seq := *st.Message, st.Seq
			if st.Draft { // the reply cut short by the export: saved as interrupted
				last++
				m.Interrupted, seq = true, last
			}
			err = insertMessage(tx, id, seq, m, at, st.Mark)
		}
		if err != nil {
			return "", err
		}
	}
	for _, c := range d.Compact {
		h, err := json.Marshal(c.History)
		if err != nil {
			return "", err
		}
		if _, err := tx.Exec(`INSERT INTO compactions (session_id, upto_seq, history, created_at) VALUES (?, ?, ?, ?)`, id, c.UptoSeq, string(h), c.At.UnixNano()); err != nil {
			return "", err
		}
	}
	return id, tx.Commit()
}

// insertMessage saves m as message seq of session id, with its mark.
func insertMessage(tx *sql.Tx, id string, seq int, m message.Message, at int64, mark string) error {
	var calls, meta any
	if len(m.ToolCalls) > 0 {
		b, err := json.Marshal(m.ToolCalls)
		if err != nil {
			return err
		}
		calls = string(b)
	}
	if mm := (messageMeta{m.Reasoning, m.ReasoningField, m.Origin, m.Model, m.Shown, m.Sources, m.Attachments, m.InputTokens}); !mm.empty() {
		b, err := json.Marshal(mm)
		if err != nil {
			return err
		}
		meta = string(b)
	}
	undoneAt := int64(0)
	if mark != "" {
		undoneAt = at
	}
	_, err := tx.Exec(`INSERT INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, tool_name, interrupted, created_at, meta, undone, undone_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, seq, string(m.Role), m.Content, calls, nullable(m.ToolCallID), nullable(m.ToolName), m.Interrupted, at, meta, mark, undoneAt)
	return err
}
