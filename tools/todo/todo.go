// Package todo holds the session's todo list and the four tools the model
// keeps it with: todo_create, todo_list, todo_update and todo_clear. The
// list makes the model's plan visible and deterministic: items have ids,
// a status (pending, in_progress, done, cancelled), a note and timestamps.
//
// One *List per chat session, shared by its four tools; it lives in the
// tool values, never in a package global, and is not persisted.
//
// # For the chat front end
//
// The TUI shows the list and keeps it current:
//
//	l := todo.Find(agent.Tools())        // nil when the session has no todo tools
//	ch, cancel := l.Subscribe()          // one receive per change (coalesced)
//	defer cancel()
//	... on each receive from ch: items := l.Snapshot(); render them.
//
// Reading ch belongs in a tea.Cmd that is issued again after each message.
// Render gives a plain-text rendering the front end may use or restyle.
//
// # Concurrency
//
// A List is safe for concurrent use. Subscribe's channel has a buffer of
// one and is never blocked on: several changes before the reader looks
// give one receive, after which Snapshot shows them all. The channel is
// closed by the cancel function.
package todo

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/co-cli/co/tools"
)

// Status is where an item stands.
type Status string

const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Done       Status = "done"
	Cancelled  Status = "cancelled"
)

// Statuses are the valid statuses, in display order.
var statuses = []Status{Pending, InProgress, Done, Cancelled}

func validStatus(s string) (Status, bool) {
	for _, x := range statuses {
		if string(x) == s {
			return x, true
		}
	}
	return "", false
}

// Final reports whether s is final: done and cancelled items do not change
// status again (create a new item instead).
func (s Status) Final() bool { return s == Done || s == Cancelled }

// Limits.
const (
	MaxItems    = 100 // items in the list
	MaxPerCall  = 50  // items one todo_create adds
	MaxTextLen  = 500 // characters of an item's text
	MaxNoteLen  = 1000
	statusNames = "pending, in_progress, done, cancelled"
)

// Item is one todo.
type Item struct {
	ID        string    `json:"id"`
	Text      string    `json:"text"`
	Status    Status    `json:"status"`
	Note      string    `json:"note,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// List is a session's todo list.
type List struct {
	// edits makes a tool's look at the list before its change and the
	// change one step, so the list the journal keeps is the one changed.
	edits sync.Mutex
	mu    sync.Mutex
	items []Item
	next  int // the last id handed out; ids are never reused in a session
	subs  map[int]chan struct{}
	nsub  int
	now   func() time.Time
}

// NewList makes an empty list.
func NewList() *List { return &List{subs: map[int]chan struct{}{}, now: time.Now} }

// Snapshot returns a copy of the items, in creation order.
func (l *List) Snapshot() []Item {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Item(nil), l.items...)
}

// Subscribe returns a channel that receives after each change of the list,
// and a function that ends the subscription (and closes the channel).
func (l *List) Subscribe() (<-chan struct{}, func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ch := make(chan struct{}, 1)
	id := l.nsub
	l.nsub++
	l.subs[id] = ch
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			l.mu.Lock()
			delete(l.subs, id)
			l.mu.Unlock()
			close(ch)
		})
	}
}

// changed tells the subscribers; l.mu is held.
func (l *List) changed() {
	for _, ch := range l.subs {
		select {
		case ch <- struct{}{}:
		default: // a receive is already pending
		}
	}
}

// Create adds items (replacing the list when replace is set) and returns
// the new items. Errors are Retry errors for the model.
func (l *List) Create(texts []string, replace bool) ([]Item, error) {
	if len(texts) == 0 {
		return nil, tools.Retryf("items is empty: give the todo texts, e.g. [\"Read the code\", \"Write the test\"]")
	}
	if len(texts) > MaxPerCall {
		return nil, tools.Retryf("%d items in one call; the limit is %d", len(texts), MaxPerCall)
	}
	clean := make([]string, len(texts))
	for i, s := range texts {
		s = strings.TrimSpace(s)
		switch {
		case s == "":
			return nil, tools.Retryf("item %d is empty: each item needs a text", i+1)
		case len([]rune(s)) > MaxTextLen:
			return nil, tools.Retryf("item %d is %d characters; the limit is %d: keep items short and put details in the note", i+1, len([]rune(s)), MaxTextLen)
		}
		clean[i] = s
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	keep := l.items
	if replace {
		keep = nil
	}
	if n := len(keep) + len(clean); n > MaxItems {
		return nil, tools.Retryf("the list would have %d items; the limit is %d: clear finished items (todo_clear with completed_only=true) or pass replace=true", n, MaxItems)
	}
	now := l.now()
	var added []Item
	for _, s := range clean {
		l.next++
		added = append(added, Item{ID: strconv.Itoa(l.next), Text: s, Status: Pending, CreatedAt: now, UpdatedAt: now})
	}
	l.items = append(append([]Item(nil), keep...), added...)
	l.changed()
	return added, nil
}

// Update sets an item's status and, when note is not empty, its note. A
// status that does not change is allowed (to update the note only).
func (l *List) Update(id string, status string, note string) (Item, error) {
	id = strings.TrimPrefix(strings.TrimSpace(id), "#")
	st, ok := validStatus(status)
	if !ok {
		return Item{}, tools.Retryf("status %q is not valid; use one of %s", status, statusNames)
	}
	if len([]rune(note)) > MaxNoteLen {
		return Item{}, tools.Retryf("the note is %d characters; the limit is %d", len([]rune(note)), MaxNoteLen)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	i := l.index(id)
	if i < 0 {
		return Item{}, l.unknown(id)
	}
	it := &l.items[i]
	if it.Status != st && it.Status.Final() {
		return Item{}, tools.Retryf("todo %s is already %s, which is final; it cannot become %s: create a new item with todo_create instead", id, it.Status, st)
	}
	it.Status = st
	if note != "" {
		it.Note = strings.TrimSpace(note)
	}
	it.UpdatedAt = l.now()
	l.changed()
	return *it, nil
}

// Clear removes every item, or only the done and cancelled ones, and says
// how many it removed.
func (l *List) Clear(completedOnly bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	var keep []Item
	for _, it := range l.items {
		if completedOnly && !it.Status.Final() {
			keep = append(keep, it)
		}
	}
	n := len(l.items) - len(keep)
	l.items = keep
	if n > 0 {
		l.changed()
	}
	return n
}

func (l *List) index(id string) int {
	for i, it := range l.items {
		if it.ID == id {
			return i
		}
	}
	return -1
}

// unknown is the Retry for an id not in the list; l.mu is held.
func (l *List) unknown(id string) error {
	if len(l.items) == 0 {
		return tools.Retryf("there is no todo %q: the list is empty (todo_create adds items)", id)
	}
	ids := make([]string, len(l.items))
	for i, it := range l.items {
		ids[i] = it.ID
	}
	return tools.Retryf("there is no todo %q; the ids are %s (todo_list shows them)", id, strings.Join(ids, ", "))
}

// Render is the list as plain text: a header with progress, then one line
// per item with a status mark, its id, text and note.
//
//	[ ] pending   [>] in progress   [x] done   [-] cancelled
func Render(items []Item) string {
	if len(items) == 0 {
		return "No todos."
	}
	done := 0
	for _, it := range items {
		if it.Status == Done {
			done++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Todos: %d of %d done", done, len(items))
	for _, it := range items {
		fmt.Fprintf(&b, "\n%s %s. %s", Mark(it.Status), it.ID, it.Text)
		if it.Status == Cancelled {
			b.WriteString(" (cancelled)")
		}
		if it.Note != "" {
			fmt.Fprintf(&b, " — %s", it.Note)
		}
	}
	return b.String()
}

// Mark is the status mark Render uses.
func Mark(s Status) string {
	switch s {
	case InProgress:
		return "[>]"
	case Done:
		return "[x]"
	case Cancelled:
		return "[-]"
	}
	return "[ ]"
}

// counts is the per-status metadata of items.
func counts(items []Item) map[string]any {
	m := map[string]any{"count": len(items)}
	for _, s := range statuses {
		m[string(s)] = 0
	}
	for _, it := range items {
		m[string(it.Status)] = m[string(it.Status)].(int) + 1
	}
	return m
}

// Find returns the list behind the todo tools of a registry, or nil.
func Find(r *tools.Registry) *List {
	for _, t := range r.All() {
		if h, ok := t.(interface{ List() *List }); ok {
			return h.List()
		}
	}
	return nil
}
