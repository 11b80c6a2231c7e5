package sessions

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

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
// the agent saves each message it adds) but the summary's.
func (r *Session) Compacted(h []message.Message) error {
	upto := r.seq
	bySeq := map[int]message.Message{}
	if r.created && upto > 0 && len(h) > 0 {
		// The saved messages h may begin or end with: the first len(h)
		// and the last len(h).
		saved, err := r.store.messages(r.id, `AND (seq <= ? OR seq > ?) ORDER BY seq`, len(h), upto-len(h))
		if err != nil {
			return err
		}
		for _, m := range saved {
			bySeq[m.seq] = m.Message
		}
	}
	same := func(i, seq int) bool {
		m, ok := bySeq[seq]
		return ok && sameMessage(h[i], m)
	}
	head := 0
	for head < len(h) && head < upto && same(head, head+1) {
		head++
	}
	tail := 0
	for tail < len(h)-head && upto-tail > head && same(len(h)-1-tail, upto-tail) {
		tail++
	}
	var items []viewItem
	if head > 0 {
		items = append(items, viewItem{From: 1, To: head})
	}
	for i := head; i < len(h)-tail; i++ {
		m := h[i]
		items = append(items, viewItem{Msg: &m})
	}
	if tail > 0 {
		items = append(items, viewItem{From: upto - tail + 1, To: upto})
	}
	data, err := json.Marshal(items)
	if err != nil {
		return err
	}
	return r.tx(func(tx *sql.Tx, now int64) error {
		_, err := tx.Exec(`INSERT INTO compactions (session_id, upto_seq, history, created_at) VALUES (?, ?, ?, ?)`, r.id, upto, string(data), now)
		return err
	})
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
// patches what a crash left (Resume saves those repairs first).
func (s *Store) LoadResume(id string) (Resumed, error) {
	info, entries, err := s.Transcript(id)
	if err != nil {
		return Resumed{}, err
	}
	all, allX := split(entries)
	all, allX = message.PatchDanglingAsides(all, allX)
	r := Resumed{Info: info, Entries: entries, All: all, AllAsides: allX, History: all, Asides: allX}
	var upto int
	var data string
	err = s.db.QueryRow(`SELECT upto_seq, history FROM compactions WHERE session_id = ? ORDER BY rowid DESC LIMIT 1`, id).Scan(&upto, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return r, nil
	}
	if err != nil {
		return Resumed{}, err
	}
	var items []viewItem
	if err := json.Unmarshal([]byte(data), &items); err != nil {
		return Resumed{}, s.damaged(err)
	}
	saved, err := s.messages(id, `ORDER BY seq`)
	if err != nil {
		return Resumed{}, err
	}
	bySeq := make(map[int]message.Message, len(saved))
	for _, m := range saved {
		bySeq[m.seq] = m.Message
	}
	// h is the history; seqs[i] the seq of h[i], 0 for a message that is
	// only in the compaction.
	var h []message.Message
	var seqs []int
	for _, it := range items {
		if it.Msg != nil {
			h, seqs = append(h, *it.Msg), append(seqs, 0)
			continue
		}
		for q := it.From; q <= it.To; q++ {
			m, ok := bySeq[q]
			if !ok {
				return Resumed{}, s.damaged(fmt.Errorf("session %s: its compaction names message %d, which is not saved", id, q))
			}
			h, seqs = append(h, m), append(seqs, q)
		}
	}
	for _, m := range saved {
		if m.seq > upto {
			h, seqs = append(h, m.Message), append(seqs, m.seq)
		}
	}
	if msgs, _ := split(entries); len(msgs) > len(saved) {
		// The draft of a reply cut short (Transcript's last message).
		h, seqs = append(h, msgs[len(msgs)-1]), append(seqs, 0)
	}
	xs, err := s.asides(id)
	if err != nil {
		return Resumed{}, err
	}
	var hx []message.Aside
	for _, x := range xs {
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
