package todo

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Restore sets the list back to items, a Snapshot taken before a change
// (undo keeps one per change the model made). Ids stay as they were and
// later ones are not reused. Subscribers are told.
func (l *List) Restore(items []Item) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append([]Item(nil), items...)
	for _, it := range items {
		if n, err := strconv.Atoi(it.ID); err == nil && n > l.next {
			l.next = n
		}
	}
	l.changed()
}

// RestoreJSON is Restore of items given as JSON: the list the journal kept
// before a change (journal.TodosBefore).
func (l *List) RestoreJSON(before []byte) error {
	var items []Item
	if err := json.Unmarshal(before, &items); err != nil {
		return fmt.Errorf("the todo list kept before the change is damaged (%v), so it was not restored", err)
	}
	l.Restore(items)
	return nil
}
