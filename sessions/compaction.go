package sessions

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/co-cli/co/message"
)

// A compaction is saved as the history the model is sent from then on, in
// place of the messages saved up to then (upto_seq). Its messages that are
// saved messages, unchanged and in order (the first exchange, the recent
// ones), are kept as ranges of seq; the others (the summary, its
// acknowledgement, a message the agent patched) as themselves. Resuming
// takes the latest compaction and the messages saved after it; the
// messages table keeps every message, for the transcript.

// viewItem is one piece of a saved compaction's history: saved messages
// From..To, or one message that is nowhere else.
type viewItem struct {
	From int              `json:"from,omitempty"`
	To   int              `json:"to,omitempty"`
	Msg  *message.Message `json:"msg,omitempty"`
}

// sameMessage reports whether a history message is the saved one, as it
// would be sent and resumed.
func sameMessage(h message.Message, saved message.Message) bool {
	a, err1 := json.Marshal(h)
	b, err2 := json.Marshal(saved)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

// Compacted implements agent's CompactionRecorder: h is the history as
// compacted, every message of which was in the history before (saved, as
// the agent saves each message it adds) but the summary's. The history
// before holds the live messages (those no undo took out or summary
// replaced): h begins and ends with some of them.
func (r *Session) Compacted(h []message.Message) error {
	upto := r.seq
	var live []int // the live seqs, in order
	bySeq := map[int]message.Message{}
	if r.created && upto > 0 && len(h) > 0 {
		var err error
		if live, err = r.store.liveSeqs(r.id, upto); err != nil {
			return err
		}
		if n := len(live); n > 0 {
			// The saved messages h may begin or end with: the first len(h)
			// live ones and the last len(h).
			lo, hi := live[min(len(h), n)-1], live[max(n-len(h), 0)]
			saved, err := r.store.messages(r.id, `AND undone = '' AND (seq <= ? OR seq >= ?) ORDER BY seq`, lo, hi)
			if err != nil {
				return err
			}
			for _, m := range saved {
				bySeq[m.seq] = m.Message
			}
		}
	}
	same := func(i, seq int) bool {
		m, ok := bySeq[seq]
		return ok && sameMessage(h[i], m)
	}
	seqs := make([]int, len(h)) // 0: a message only in the compaction
	head := 0
	for head < len(h) && head < len(live) && same(head, live[head]) {
		seqs[head] = live[head]
		head++
	}
	tail := 0
	for tail < len(h)-head && len(live)-tail > head && same(len(h)-1-tail, live[len(live)-1-tail]) {
		seqs[len(h)-1-tail] = live[len(live)-1-tail]
		tail++
	}
	order := make(map[int]int, len(live))
	for i, q := range live {
		order[q] = i
	}
	data, err := encodeView(h, seqs, order)
	if err != nil {
		return err
	}
	return r.tx(func(tx *sql.Tx, now int64) error {
		_, err := tx.Exec(`INSERT INTO compactions (session_id, upto_seq, history, created_at) VALUES (?, ?, ?, ?)`, r.id, upto, data, now)
		return err
	})
}

// liveSeqs are the seqs of session id's live messages up to upto, in order.
func (s *Store) liveSeqs(id string, upto int) ([]int, error) {
	rows, err := s.query(`SELECT seq FROM messages WHERE session_id = ? AND seq <= ? AND undone = '' ORDER BY seq`, id, upto)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var q int
		if err := rows.Scan(&q); err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// encodeView is a compaction's history column: h, where h[i] is saved
// message seqs[i] (0: h[i] is nowhere else), as ranges of saved messages
// consecutive among the live ones (order numbers them) and the others as
// themselves. A range From..To stands for the live messages in it.
func encodeView(h []message.Message, seqs []int, order map[int]int) (string, error) {
	var items []viewItem
	for i, q := range seqs {
		if q == 0 {
			m := h[i]
			items = append(items, viewItem{Msg: &m})
			continue
		}
		if n := len(items); n > 0 && items[n-1].Msg == nil {
			if prev, ok := order[items[n-1].To]; ok && order[q] == prev+1 {
				items[n-1].To = q
				continue
			}
		}
		items = append(items, viewItem{From: q, To: q})
	}
	data, err := json.Marshal(items)
	return string(data), err
}

// Resumed is a saved session loaded to continue it.
type Resumed struct {
	Info Info
	// Entries is the transcript (Transcript's).
	Entries []Entry
	// History is what the model is sent from here on: the history as the
	// latest saved compaction left it and the messages saved since, or
	// every saved message when none was saved (a session saved before co
	// saved compactions resumes so, and compacts as its next turn needs).
	History []message.Message
	// Asides are the asides placed in History: one among messages a
	// compaction replaced goes where they were.
	Asides []message.Aside
	// All is every saved message and AllAsides the asides placed in it:
	// the whole conversation, for a front end to show. They are History
	// and Asides when nothing was compacted.
	All       []message.Message
	AllAsides []message.Aside
	// Compacted says History starts from a saved compaction.
	Compacted bool
}

// LoadResume loads session id to continue it: its history as the model
// was last sent it, and the whole conversation to show. Like Load, it
// patches what a crash left (Resume saves those repairs first). Messages
// an undo took out are in neither (Entries has them, marked); summarised
// ones are in All (after SummarisedNotice), not in History, which has
// their summary.
func (s *Store) LoadResume(id string) (Resumed, error) {
	info, entries, err := s.Transcript(id)
	if err != nil {
		return Resumed{}, err
	}
	all, allX := split(entries)
	all, allX = message.PatchDanglingAsides(all, allX)
	r := Resumed{Info: info, Entries: entries, All: all, AllAsides: allX, History: all, Asides: allX}
	saved, err := s.messages(id, `ORDER BY seq`)
	if err != nil {
		return Resumed{}, err
	}
	db, err := s.conn()
	if err != nil {
		return Resumed{}, err
	}
	h, seqs, compacted, err := s.resumeHistory(db, id, saved, math.MaxInt)
	if err != nil || !compacted {
		return r, err
	}
	n := 0
	for _, e := range entries {
		if e.Aside == nil && e.Decision == nil {
			n++
		}
	}
	if n > len(saved) {
		// The draft of a reply cut short (Transcript's last message).
		h, seqs = append(h, entries[len(entries)-1].Message), append(seqs, 0)
	}
	xs, err := s.asides(id)
	if err != nil {
		return Resumed{}, err
	}
	var hx []message.Aside
	for _, x := range xs {
		if x.e.Undone != "" {
			continue
		}
		// After the last message of h saved before it; an aside among
		// the replaced messages goes where they were.
		a := *x.e.Aside
		for i, q := range seqs {
			if q > 0 && q <= x.after {
				a.After = i + 1
			}
		}
		hx = append(hx, a)
	}
	r.History, r.Asides = message.PatchDanglingAsides(h, hx)
	r.Compacted = true
	return r, nil
}

// resumeHistory is the history of session id (saved: its messages, in
// order) before message seq before, as the latest compaction saved before
// it left it: that compaction's messages and the live ones saved after it,
// each with its seq (0: a message only in the compaction). compacted is
// false when no such compaction was saved: h is then every live message.
func (s *Store) resumeHistory(q querier, id string, saved []savedMessage, before int) (h []message.Message, seqs []int, compacted bool, err error) {
	var upto int
	var data string
	err = q.QueryRow(`SELECT upto_seq, history FROM compactions WHERE session_id = ? AND upto_seq < ? ORDER BY rowid DESC LIMIT 1`, id, before).Scan(&upto, &data)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		upto = 0
	case err != nil:
		return nil, nil, false, err
	default:
		compacted = true
		var items []viewItem
		if err := json.Unmarshal([]byte(data), &items); err != nil {
			return nil, nil, false, s.damaged(err)
		}
		bySeq := make(map[int]savedMessage, len(saved))
		for _, m := range saved {
			bySeq[m.seq] = m
		}
		for _, it := range items {
			if it.Msg != nil {
				h, seqs = append(h, *it.Msg), append(seqs, 0)
				continue
			}
			for q := it.From; q <= it.To; q++ {
				m, ok := bySeq[q]
				if !ok {
					return nil, nil, false, s.damaged(fmt.Errorf("session %s: its compaction names message %d, which is not saved", id, q))
				}
				if m.undone != "" {
					continue // taken out before the compaction was saved
				}
				h, seqs = append(h, m.Message), append(seqs, q)
			}
		}
	}
	for _, m := range saved {
		if m.seq > upto && m.seq < before && m.undone == "" {
			h, seqs = append(h, m.Message), append(seqs, m.seq)
		}
	}
	return h, seqs, compacted, nil
}
