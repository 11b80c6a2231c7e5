package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// An undo takes turns out of the conversation: their messages, and the
// asides that followed them, stay saved but marked (messages.undone), so
// the transcript keeps them while a resume leaves them out. Summarising
// from a turn marks them "summarised" instead and saves, as a compaction,
// the history before them followed by their summary: what a resume sends.

// A message's or aside's mark (Entry.Undone, Turn.Undone).
const (
	MarkUndone     = "undone"
	MarkSummarised = "summarised"
)

// SummaryIntro begins the user message that carries a summary, as
// agent.SummaryIntro (this package stands below agent; a test holds them
// equal), and SummaryAck is the assistant's reply to it.
const (
	SummaryIntro = "[Summary of the earlier conversation]\n"
	SummaryAck   = "Understood."
)

// SummarisedNotice is the aside placed, in what the chat shows, before
// the messages a summary replaced (SummariseFrom).
const SummarisedNotice = "The turns below were summarised: the model has their summary, not these messages."

// ErrNotATurn is returned when a seq given as a turn's is not the seq of a
// live turn's user message.
var ErrNotATurn = errors.New("not a turn in the conversation")

// Turn is one turn of a saved session: its user message.
type Turn struct {
	Seq    int64  // its key: the saved seq of its user message
	Prompt string // the message's content
	Shown  string // how it was typed (/NAME ARGS), "" when as Prompt
	At     time.Time
	Undone string // "", MarkUndone or MarkSummarised
}

// Turns returns every turn of session id, oldest first: each user message
// (a !cmd is an aside, not a turn), live and taken out alike, with its mark.
func (s *Store) Turns(id string) ([]Turn, error) {
	db, err := s.conn()
	if err != nil {
		return nil, err
	}
	if err := s.exists(db, id); err != nil {
		return nil, err
	}
	saved, err := s.messages(id, `AND role = ? ORDER BY seq`, string(message.RoleUser))
	if err != nil {
		return nil, err
	}
	out := make([]Turn, 0, len(saved))
	for _, m := range saved {
		out = append(out, Turn{Seq: int64(m.seq), Prompt: m.Content, Shown: m.Shown, At: m.at, Undone: m.undone})
	}
	return out, nil
}

func (s *Store) exists(q querier, id string) error {
	var one int
	err := q.QueryRow(`SELECT 1 FROM sessions WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w %q", ErrNotFound, id)
	}
	return err
}

// UndoFrom takes every turn from the one whose user message is fromSeq
// out of session id's conversation, in one transaction: their messages
// (summarised ones too) and the asides after them are marked MarkUndone,
// the session's turns counted again, the saved compactions that cover them
// dropped (older ones still hold) and the draft of a reply removed. It
// returns how many turns it took out. fromSeq must be a live turn's
// (ErrNotATurn otherwise).
func (s *Store) UndoFrom(id string, fromSeq int64) (turns int, err error) {
	err = s.markFrom(id, fromSeq, MarkUndone, func(tx *sql.Tx, now int64) error {
		if err := tx.QueryRow(`SELECT count(*) FROM messages WHERE session_id = ? AND seq >= ? AND role = ? AND undone != ?`,
			id, fromSeq, string(message.RoleUser), MarkUndone).Scan(&turns); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE sessions SET turns = max(turns - ?, 0) WHERE id = ?`, turns, id); err != nil {
			return err
		}
		// Named by its first prompt still in the conversation ("": the
		// next one names it).
		var first string
		err := tx.QueryRow(`SELECT content FROM messages WHERE session_id = ? AND seq < ? AND role = ? AND undone != ? ORDER BY seq LIMIT 1`,
			id, fromSeq, string(message.RoleUser), MarkUndone).Scan(&first)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		_, err = tx.Exec(`UPDATE sessions SET title = ? WHERE id = ?`, Title(first), id)
		return err
	})
	if err != nil {
		return 0, err
	}
	return turns, nil
}

// SummariseFrom replaces, in what a resume sends, the turns of session id
// from the one whose user message is fromSeq with summary: those messages
// (and the asides after them) stay in the transcript marked
// MarkSummarised, and a compaction is saved of the history before fromSeq
// (as earlier compactions left it) followed by the summary (SummaryIntro)
// and its acknowledgement. Messages saved later follow it. fromSeq must be
// a live turn's (ErrNotATurn otherwise).
func (s *Store) SummariseFrom(id string, fromSeq int64, summary string) error {
	if strings.TrimSpace(summary) == "" {
		return errors.New("summarising turns: the summary is empty")
	}
	return s.markFrom(id, fromSeq, MarkSummarised, func(tx *sql.Tx, now int64) error {
		saved, err := s.messagesIn(tx, id, `ORDER BY seq`)
		if err != nil {
			return err
		}
		// The history before fromSeq: the compactions that covered it are
		// dropped, the marks (from fromSeq on) not made yet.
		h, seqs, _, err := s.resumeHistory(tx, id, saved, int(fromSeq))
		if err != nil {
			return err
		}
		var gone []message.Message
		upto := 0
		for _, m := range saved {
			upto = max(upto, m.seq)
			if m.seq >= int(fromSeq) && m.undone == "" {
				gone = append(gone, m.Message)
			}
		}
		h = append(h,
			message.Message{Role: message.RoleUser, Content: SummaryIntro + summary, Sources: summarySources(gone)},
			message.Message{Role: message.RoleAssistant, Content: SummaryAck})
		seqs = append(seqs, 0, 0)
		data, err := encodeView(h, seqs, liveOrder(saved, int(fromSeq)))
		if err != nil {
			return err
		}
		_, err = tx.Exec(`INSERT INTO compactions (session_id, upto_seq, history, created_at) VALUES (?, ?, ?, ?)`, id, upto, data, now)
		return err
	})
}

// markFrom marks, in one transaction, the messages of session id from
// fromSeq (a live turn's user message) and the asides after them with
// mark, unless an undo took them out already, drops the compactions that
// cover them and the draft; more runs before the marks, in the same
// transaction.
func (s *Store) markFrom(id string, fromSeq int64, mark string, more func(tx *sql.Tx, now int64) error) error {
	tx, err := s.begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := s.exists(tx, id); err != nil {
		return err
	}
	var role, undone string
	err = tx.QueryRow(`SELECT role, undone FROM messages WHERE session_id = ? AND seq = ?`, id, fromSeq).Scan(&role, &undone)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%w: session %s has no message %d", ErrNotATurn, id, fromSeq)
	case err != nil:
		return err
	case role != string(message.RoleUser):
		return fmt.Errorf("%w: message %d of session %s is a %s message, not a turn's prompt", ErrNotATurn, fromSeq, id, role)
	case undone != "":
		return fmt.Errorf("%w: the turn at message %d of session %s was %s already", ErrNotATurn, fromSeq, id, undone)
	}
	now := time.Now().UnixNano()
	// A compaction saved after fromSeq was sent summarises or keeps those
	// messages; one saved before holds.
	if _, err := tx.Exec(`DELETE FROM compactions WHERE session_id = ? AND upto_seq >= ?`, id, fromSeq); err != nil {
		return err
	}
	if err := more(tx, now); err != nil {
		return err
	}
	if _, err := tx.Exec(`UPDATE messages SET undone = ?, undone_at = ? WHERE session_id = ? AND seq >= ? AND undone != ?`, mark, now, id, fromSeq, MarkUndone); err != nil {
		return err
	}
	if _, err := tx.Exec(`UPDATE asides SET undone = ? WHERE session_id = ? AND after_seq >= ? AND undone != ?`, mark, id, fromSeq, MarkUndone); err != nil {
		return err
	}
	if _, err := tx.Exec(`UPDATE sessions SET updated_at = ? WHERE id = ?`, now, id); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	// The draft is a reply of the last turn, now out of the conversation.
	os.Remove(s.draftPath(id))
	return nil
}

// liveOrder numbers the live messages of saved (below seq before) in
// order: consecutive ones can be saved as one range of a compaction.
func liveOrder(saved []savedMessage, before int) map[int]int {
	order := map[int]int{}
	for _, m := range saved {
		if m.undone == "" && m.seq < before {
			order[m.seq] = len(order)
		}
	}
	return order
}

// summarySources are what a summary of msgs carries, as agent's: their
// untrusted sources, and a private one when any of them was private (a
// tool result or a user message with a private or no source, an
// attachment), so the conversation keeps its risk.
func summarySources(msgs []message.Message) []tools.Origin {
	var out []tools.Origin
	private := false
	for _, m := range msgs {
		switch m.Role {
		case message.RoleTool:
			private = private || len(m.Sources) == 0
		case message.RoleUser:
			private = private || len(m.Attachments) > 0 || strings.Contains(m.Content, "<attached-file path=")
		}
		for _, o := range m.Sources {
			if !o.Public && m.Role != message.RoleAssistant {
				private = true
			}
			if o.Untrusted && !slices.ContainsFunc(out, func(x tools.Origin) bool { return x.Label == o.Label }) {
				out = append(out, o)
			}
		}
	}
	if private {
		out = append(out, tools.Origin{Kind: "workspace", Label: "summarised messages"})
	}
	return out
}
