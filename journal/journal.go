// Package journal keeps what a chat session sent or changed outside its
// workspace — Slack posts, Gmail drafts, calendar events, memories, notes,
// todos — one entry per action with the handle that takes it back, and a
// Registry of the functions that do, per kind. Actions that cannot be
// taken back (a web request, an MCP call, a sent mail) are journalled too,
// as not undoable and why, so undo can list them.
//
// The tools record to it through their call's context (WithTurn,
// RecordIn); undo (package undo) takes entries back with the Registry.
//
// The journal is a JSON-lines file per session in co's data folder,
// append-only: an entry is one line, written with one write(2) on a file
// opened O_APPEND and synced before Record returns; taking an entry back
// appends an undo line for it. A torn last line (co killed mid-write) is
// skipped when read, and cut when the journal is opened again.
//
// Concurrency: a Journal and a Registry may be used from several
// goroutines. Two processes appending to one session's file each write
// whole lines (O_APPEND), but their sequence numbers may collide: one co
// owns a session at a time.
package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/co-cli/co/lib/redact"
)

// Kind is what an action did, which says how to take it back.
type Kind string

// The kinds co journals.
const (
	SlackMessage  Kind = "slack_message"  // a message the bot posted
	GmailDraft    Kind = "gmail_draft"    // a draft saved in Gmail
	CalendarEvent Kind = "calendar_event" // an event co created
	Memory        Kind = "memory"         // a memory co saved
	Note          Kind = "note"           // a note co wrote or changed
	Todos         Kind = "todos"          // the session's todo list changed
	// Not undoable: journalled so undo can say so.
	WebRequest Kind = "web_request"
	MCPCall    Kind = "mcp_call"
	MailSent   Kind = "mail_sent"
)

// Entry is one action.
type Entry struct {
	// Seq numbers the entries of a session from 1; Record sets it.
	Seq  int       `json:"seq"`
	Turn int       `json:"turn"`
	Time time.Time `json:"time"`
	Tool string    `json:"tool"`
	Kind Kind      `json:"kind"`
	// Handle is what the kind's undo needs (SlackHandle, DraftHandle,
	// EventHandle, MemoryHandle, NoteHandle, TodosHandle), as JSON.
	Handle json.RawMessage `json:"handle,omitempty"`
	// What is the action in one line for a person: "posted to #general
	// (C01): Lunch at noon?".
	What string `json:"what"`
	// Undoable is false for what cannot be taken back; WhyNot says why.
	Undoable bool   `json:"undoable"`
	WhyNot   string `json:"why_not,omitempty"`
	// Ask is what the question before undo must say besides What, ""
	// when nothing: "3 others were invited; they are told it is
	// cancelled".
	Ask string `json:"ask,omitempty"`
	// Undone is set by List once the entry was taken back (or found
	// gone): how, and when.
	Undone   Outcome   `json:"-"`
	UndoneAt time.Time `json:"-"`
}

// Outcome is how an undo ended.
type Outcome string

const (
	// Undone: the action was taken back.
	Undone Outcome = "undone"
	// AlreadyGone: there was nothing left to take back (deleted by
	// someone else, sent, expired).
	AlreadyGone Outcome = "already_gone"
)

// line is one line of the file: an entry, or an undo of one.
type line struct {
	Entry
	Undo    int       `json:"undo,omitempty"`
	Outcome Outcome   `json:"outcome,omitempty"`
	At      time.Time `json:"at,omitzero"`
}

// Journal is one session's journal. Make it with Open; Close it.
type Journal struct {
	path string
	now  func() time.Time

	mu   sync.Mutex
	f    *os.File
	next int
}

// sessionName keeps the session id a plain file name. Compiled on first
// use: its {0,127} makes a program of about 100 KB, which every co process
// would otherwise build at start.
var sessionName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
})

// FileName is the session's journal file under dir.
func FileName(dir, session string) string { return filepath.Join(dir, session+".jsonl") }

// Open opens (creating) the journal of session in dir, e.g.
// <data>/journal. The folder is made 0700, the file 0600: entries carry
// message texts and the earlier content of notes.
func Open(dir, session string) (*Journal, error) {
	if !sessionName().MatchString(session) {
		return nil, fmt.Errorf("journal: session id %q is not a plain name (letters, digits, . _ -)", session)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	path := FileName(dir, session)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	j := &Journal{path: path, f: f, now: time.Now}
	lines, good, err := read(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	for _, l := range lines {
		j.next = max(j.next, l.Seq)
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > good {
		// Cut the torn line, so the next entry is a line of its own.
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, fmt.Errorf("journal %s: %w", path, err)
		}
	}
	return j, nil
}

// Path is the journal's file.
func (j *Journal) Path() string { return j.path }

// Close closes the file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// Record appends e, setting its Seq and Time, and returns it as recorded.
// An undoable entry needs a handle; one that is not needs WhyNot.
func (j *Journal) Record(e Entry) (Entry, error) {
	switch {
	case e.Kind == "" || e.What == "":
		return e, errors.New("journal: an entry needs its kind and what it did")
	case e.Undoable && len(e.Handle) == 0:
		return e, fmt.Errorf("journal: %s entry %q is undoable but has no handle", e.Kind, e.What)
	case !e.Undoable && e.WhyNot == "":
		return e, fmt.Errorf("journal: %s entry %q is not undoable but says not why", e.Kind, e.What)
	}
	// What is shown in undo's lists: no key or token in it, whatever
	// the model wrote (the handle keeps what undo needs, in a 0600 file).
	e.What = redact.NewRedactor(nil).String(e.What)
	j.mu.Lock()
	defer j.mu.Unlock()
	e.Seq = j.next + 1
	e.Time = j.now().UTC()
	if err := j.append(line{Entry: e}); err != nil {
		return e, err
	}
	j.next = e.Seq
	return e, nil
}

// markUndone appends the undo of entry seq.
func (j *Journal) markUndone(seq int, o Outcome) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.append(line{Undo: seq, Outcome: o, At: j.now().UTC()})
}

// append writes one line and syncs; j.mu is held.
func (j *Journal) append(l line) error {
	if j.f == nil {
		return errors.New("journal: closed")
	}
	b, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	return nil
}

// List returns the entries of turn (all turns when turn is 0), oldest
// first, with what was undone marked.
func (j *Journal) List(turn int) ([]Entry, error) {
	f, err := os.Open(j.path)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	lines, _, err := read(f)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", j.path, err)
	}
	var out []Entry
	at := map[int]int{}
	for _, l := range lines {
		if l.Undo != 0 {
			if i, ok := at[l.Undo]; ok {
				out[i].Undone, out[i].UndoneAt = l.Outcome, l.At
			}
			continue
		}
		if turn == 0 || l.Turn == turn {
			at[l.Seq] = len(out)
			out = append(out, l.Entry)
		}
	}
	return out, nil
}

// Get returns entry seq.
func (j *Journal) Get(seq int) (Entry, error) {
	all, err := j.List(0)
	if err != nil {
		return Entry{}, err
	}
	for _, e := range all {
		if e.Seq == seq {
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("journal: no entry %d in %s", seq, j.path)
}

// read parses the lines of r and says how many bytes of it are whole
// lines. A last line without its newline is torn (an interrupted write):
// left out, and Open cuts it. Any other line that does not parse is an
// error naming it.
func read(r io.Reader) (lines []line, good int64, err error) {
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		b, rerr := br.ReadBytes('\n')
		if rerr == io.EOF {
			return lines, good, nil // b, if any, is torn
		}
		if rerr != nil {
			return nil, 0, rerr
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			var l line
			if err := json.Unmarshal(t, &l); err != nil {
				return nil, 0, fmt.Errorf("line %d is not a journal entry (%v): the file was edited or damaged; move it aside to start a new journal", n, err)
			}
			lines = append(lines, l)
		}
		good += int64(len(b))
	}
}
