package sessions

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// PendingState is where a kept-waiting call stands.
type PendingState string

const (
	// Waiting: an unattended run could not make the call alone; it waits
	// for the user (co inbox lists it, /inbox approve ID decides it).
	Waiting PendingState = "waiting"
	// Approved: the user approved it (the chat then runs it).
	Approved PendingState = "approved"
	// Denied: the user said no.
	Denied PendingState = "denied"
)

// Pending is a tool call an unattended (scheduled) run was not allowed to
// make alone: it did not run, and waits for the user with what they need
// to decide (why it asks, what the run had read before it).
type Pending struct {
	ID        int64
	SessionID string
	CallID    string // the tool call's id in that session's history
	Tool      string
	Args      string // JSON
	Reason    string // why it needs approval (tools.Check.Reason)
	// Untrusted: labels of the untrusted content seen before the call
	// (provenance, issue 22), e.g. "web 127.0.0.1:8765/page".
	Untrusted []string
	// To and Sends: for an outbound call, where it goes and what it
	// sends (tools.Check.Outbound); "" otherwise.
	To, Sends string
	Created   time.Time
	State     PendingState
	Decided   time.Time // zero while Waiting
	// Schedule is the name of the schedule whose run made the call (read
	// from its session; AddPending ignores it).
	Schedule string
}

// ErrNoPending is returned for an unknown pending call id.
var ErrNoPending = errors.New("no such waiting call")

// AddPending keeps a call waiting (its State is saved as Waiting, its
// Created as now when zero) and returns its id. The session must be saved
// already (it has a message).
func (s *Store) AddPending(p Pending) (int64, error) {
	if p.SessionID == "" || p.Tool == "" {
		return 0, fmt.Errorf("a waiting call needs its session and its tool (got session %q, tool %q)", p.SessionID, p.Tool)
	}
	if p.Created.IsZero() {
		p.Created = time.Now()
	}
	untrusted := p.Untrusted
	if untrusted == nil {
		untrusted = []string{}
	}
	u, err := json.Marshal(untrusted)
	if err != nil {
		return 0, err
	}
	res, err := s.exec(`INSERT INTO pending (session_id, call_id, tool, args, reason, untrusted, to_whom, sends, created_at, state)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.SessionID, p.CallID, p.Tool, p.Args, p.Reason, string(u), p.To, p.Sends, p.Created.UnixNano(), string(Waiting))
	if err != nil {
		return 0, fmt.Errorf("keeping the call to %s waiting: %w", p.Tool, err)
	}
	return res.LastInsertId()
}

const pendingCols = `p.id, p.session_id, p.call_id, p.tool, p.args, p.reason, p.untrusted, p.to_whom, p.sends, p.created_at, p.state, p.decided_at, s.schedule`

func (s *Store) scanPending(sc interface{ Scan(...any) error }) (Pending, error) {
	var p Pending
	var untrusted string
	var created, decided int64
	if err := sc.Scan(&p.ID, &p.SessionID, &p.CallID, &p.Tool, &p.Args, &p.Reason, &untrusted, &p.To, &p.Sends, &created, &p.State, &decided, &p.Schedule); err != nil {
		return Pending{}, err
	}
	if err := json.Unmarshal([]byte(untrusted), &p.Untrusted); err != nil {
		return Pending{}, s.damaged(err)
	}
	p.Created = time.Unix(0, created)
	if decided != 0 {
		p.Decided = time.Unix(0, decided)
	}
	return p, nil
}

// PendingCalls returns the kept calls in state st ("": every state),
// newest first.
func (s *Store) PendingCalls(st PendingState) ([]Pending, error) {
	q := `SELECT ` + pendingCols + ` FROM pending p JOIN sessions s ON s.id = p.session_id`
	var args []any
	if st != "" {
		q += ` WHERE p.state = ?`
		args = append(args, string(st))
	}
	q += ` ORDER BY p.id DESC`
	rows, err := s.query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Pending
	for rows.Next() {
		p, err := s.scanPending(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// PendingCall returns one kept call.
func (s *Store) PendingCall(id int64) (Pending, error) {
	p, err := s.scanPending(s.queryRow(`SELECT `+pendingCols+` FROM pending p JOIN sessions s ON s.id = p.session_id WHERE p.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Pending{}, fmt.Errorf("%w: %d (co inbox lists them)", ErrNoPending, id)
	}
	return p, err
}

// DecidePending records the user's decision on a waiting call. Only a
// Waiting call can be decided, once: deciding it again (in another co at
// the same moment, say) is an error that says how it was decided.
func (s *Store) DecidePending(id int64, st PendingState) error {
	if st != Approved && st != Denied {
		return fmt.Errorf("a waiting call is decided %q or %q, not %q", Approved, Denied, st)
	}
	res, err := s.exec(`UPDATE pending SET state = ?, decided_at = ? WHERE id = ? AND state = ?`, string(st), time.Now().UnixNano(), id, string(Waiting))
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	p, err := s.PendingCall(id)
	if err != nil {
		return err
	}
	return fmt.Errorf("call %d (%s) was already %s on %s", id, p.Tool, p.State, p.Decided.Local().Format("2006-01-02 15:04"))
}

// ScheduledSince returns the scheduled runs started after t, newest
// first; limit <= 0 means no limit.
func (s *Store) ScheduledSince(t time.Time, limit int) ([]Info, error) {
	q := `SELECT ` + infoCols + ` FROM sessions WHERE kind = ? AND created_at > ? ORDER BY created_at DESC`
	if limit > 0 {
		q += fmt.Sprintf(` LIMIT %d`, limit)
	}
	var after int64
	if !t.IsZero() {
		after = t.UnixNano()
	}
	return s.infos(q, string(Scheduled), after)
}

// OutcomeRunning is a scheduled run's outcome from its start until it
// ends: what co inbox shows of one still running, or killed on the way.
const OutcomeRunning = "running, or stopped before it ended"

// SetOutcome saves how the run ended (a scheduled run's: "done",
// "done, 2 calls waiting", "failed: …"), shown by co inbox and
// co schedule list.
func (r *Session) SetOutcome(outcome string) error {
	return r.tx(func(tx *sql.Tx, now int64) error {
		_, err := tx.Exec(`UPDATE sessions SET outcome = ? WHERE id = ?`, outcome, r.id)
		return err
	})
}

// SetOutcome is Session.SetOutcome of the saved session id.
func (s *Store) SetOutcome(id, outcome string) error {
	res, err := s.exec(`UPDATE sessions SET outcome = ? WHERE id = ?`, outcome, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w %q", ErrNotFound, id)
	}
	return nil
}

// The marks of what the user saw of the inbox: markLooked when they last
// listed it (co inbox, /inbox), markNoticed when co last told them what
// was new (the chat's start notice). Looking is noticing too.
const (
	markLooked  = "inbox_looked"
	markNoticed = "inbox_noticed"
)

func (s *Store) mark(name string) (time.Time, error) {
	var at int64
	err := s.queryRow(`SELECT at FROM marks WHERE name = ?`, name).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(0, at), nil
}

// setMarks moves the marks named to t, never back (a co started earlier
// that marks later does not bring old runs back).
func (s *Store) setMarks(t time.Time, names ...string) error {
	tx, err := s.begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, n := range names {
		if _, err := tx.Exec(`INSERT INTO marks (name, at) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET at = max(at, excluded.at)`, n, t.UnixNano()); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// LastLooked is when the user last listed what scheduled runs left
// (co inbox, /inbox); zero when never.
func (s *Store) LastLooked() (time.Time, error) { return s.mark(markLooked) }

// Looked records that the user listed what scheduled runs left up to t
// (co inbox, /inbox): it moves the notice's mark too.
func (s *Store) Looked(t time.Time) error { return s.setMarks(t, markLooked, markNoticed) }

// LastNoticed is when co last told the user what scheduled runs left (the
// chat's start notice, or a listing); zero when never.
func (s *Store) LastNoticed() (time.Time, error) { return s.mark(markNoticed) }

// Noticed records that co told the user of the runs up to t (the start
// notice); co inbox still lists them as new until the user looks.
func (s *Store) Noticed(t time.Time) error { return s.setMarks(t, markNoticed) }
