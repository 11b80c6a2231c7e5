package journal_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/memory"
	"github.com/co-cli/co/tools/todo"
)

func openMemory(t *testing.T) (*memory.Store, func(context.Context) (*memory.Store, error)) {
	t.Helper()
	s, err := memory.Open(filepath.Join(t.TempDir(), "memory.db"), memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, func(context.Context) (*memory.Store, error) { return s, nil }
}

func TestMemoryIsForgotten(t *testing.T) {
	s, open_ := openMemory(t)
	j := open(t, t.TempDir())
	r := journal.NewRegistry()
	r.Memories(open_)
	turnStart := time.Now().Add(-time.Second)
	m, err := s.Save("Ada prefers tea", nil, "s-1")
	if err != nil {
		t.Fatal(err)
	}
	e := record(t, j, journal.MemorySaved(1, "save_memory", m, turnStart))
	if !e.Undoable {
		t.Fatalf("a new memory is not undoable: %s", e.WhyNot)
	}
	undo(t, r, j, e.Seq, journal.Undone)
	if _, err := s.Get(m.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("after undo Get says %v", err)
	}

	// Forgotten since: already gone.
	m2, _ := s.Save("Ada's cat is Pixel", nil, "s-1")
	e2 := record(t, j, journal.MemorySaved(1, "save_memory", m2, turnStart))
	if _, err := s.Forget(m2.ID); err != nil {
		t.Fatal(err)
	}
	res := undo(t, r, j, e2.Seq, journal.AlreadyGone)
	if !strings.Contains(res.Message, m2.ID) {
		t.Errorf("message %q does not name the memory", res.Message)
	}
}

// A save that matched an older memory returns it: forgetting it would
// lose what was there before the turn.
func TestMemoryThatExistedIsNotUndoable(t *testing.T) {
	s, open_ := openMemory(t)
	old, err := s.Save("Ada prefers tea", nil, "s-0")
	if err != nil {
		t.Fatal(err)
	}
	turnStart := old.Created.Add(time.Nanosecond) // the turn began after the old save
	again, err := s.Save("Ada prefers tea", nil, "s-1")
	if err != nil || again.ID != old.ID {
		t.Fatalf("save again: %v %v", again, err)
	}
	j := open(t, t.TempDir())
	r := journal.NewRegistry()
	r.Memories(open_)
	e := record(t, j, journal.MemorySaved(1, "save_memory", again, turnStart))
	if _, err := r.Undo(ctx(t), j, e.Seq); !errors.Is(err, journal.ErrNotUndoable) || !strings.Contains(err.Error(), "existed before") {
		t.Fatalf("undo: %v", err)
	}
	if _, err := s.Get(old.ID); err != nil {
		t.Fatalf("the older memory is gone: %v", err)
	}
}

func TestMemoryChangedSinceIsKept(t *testing.T) {
	s, open_ := openMemory(t)
	j := open(t, t.TempDir())
	r := journal.NewRegistry()
	r.Memories(open_)
	m, _ := s.Save("Ada prefers tea", nil, "s-1")
	e := record(t, j, journal.MemorySaved(1, "save_memory", m, time.Now().Add(-time.Minute)))
	if _, err := s.Update(m.ID, "Ada prefers coffee"); err != nil {
		t.Fatal(err)
	}
	_, err := r.Undo(ctx(t), j, e.Seq)
	if err == nil || !strings.Contains(err.Error(), "changed") || !strings.Contains(err.Error(), "co memory forget") {
		t.Fatalf("undo: %v", err)
	}
	if _, err := s.Get(m.ID); err != nil {
		t.Fatalf("the changed memory is gone: %v", err)
	}
}

func TestNoteIsRestored(t *testing.T) {
	vault := t.TempDir()
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(vault, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	write("daily/mon.md", "old text\n")
	j := open(t, t.TempDir())
	r := journal.NewRegistry()
	r.NotesIn(vault)

	changed, err := journal.NoteBefore(1, "edit_note", vault, "daily/mon.md")
	if err != nil {
		t.Fatal(err)
	}
	write("daily/mon.md", "new text\n")
	changed = record(t, j, changed)
	created, err := journal.NoteBefore(1, "write_note", vault, "ideas.md")
	if err != nil {
		t.Fatal(err)
	}
	write("ideas.md", "an idea\n")
	created = record(t, j, created)

	undo(t, r, j, changed.Seq, journal.Undone)
	if b, _ := os.ReadFile(filepath.Join(vault, "daily/mon.md")); string(b) != "old text\n" {
		t.Errorf("restored note holds %q", b)
	}
	undo(t, r, j, created.Seq, journal.Undone)
	if _, err := os.Stat(filepath.Join(vault, "ideas.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the note co created is still there: %v", err)
	}

	// Removed meanwhile: already gone.
	again, _ := journal.NoteBefore(1, "write_note", vault, "other.md")
	write("other.md", "x")
	again = record(t, j, again)
	os.Remove(filepath.Join(vault, "other.md"))
	undo(t, r, j, again.Seq, journal.AlreadyGone)
}

func TestNotePathStaysInVault(t *testing.T) {
	vault := t.TempDir()
	for _, p := range []string{"../escape.md", "a/../../escape.md", "/etc/passwd", "."} {
		if _, err := journal.NoteBefore(1, "write_note", vault, p); err == nil || !strings.Contains(err.Error(), "not inside the vault") {
			t.Errorf("NoteBefore(%q): %v", p, err)
		}
	}
	// A symlink out of the vault is refused by the root.
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "x.md"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(vault, "link")); err != nil {
		t.Fatal(err)
	}
	if _, err := journal.NoteBefore(1, "write_note", vault, "link/x.md"); err == nil {
		t.Error("a note through a symlink out of the vault was read")
	}
}

func TestLargeNoteIsNotUndoable(t *testing.T) {
	vault := t.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "big.md"), make([]byte, journal.MaxNoteBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := journal.NoteBefore(1, "edit_note", vault, "big.md")
	if err != nil {
		t.Fatal(err)
	}
	if e.Undoable || !strings.Contains(e.WhyNot, "KB") {
		t.Fatalf("a note over the limit: %+v", e)
	}
	j := open(t, t.TempDir())
	if _, err := j.Record(e); err != nil {
		t.Fatalf("a not-undoable note is not recorded: %v", err)
	}
}

func TestTodosAreRestored(t *testing.T) {
	l := todo.NewList()
	if _, err := l.Create([]string{"Read the code", "Write the test"}, false); err != nil {
		t.Fatal(err)
	}
	j := open(t, t.TempDir())
	r := journal.NewRegistry()
	r.TodoList(l)
	before := l.Snapshot()
	if _, err := l.Update("1", "done", "read"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Create([]string{"Ship"}, false); err != nil {
		t.Fatal(err)
	}
	ch, cancel := l.Subscribe()
	defer cancel()
	e := record(t, j, journal.TodosBefore(1, "todo_update", before, "marked todo 1 done and added todo 3"))
	undo(t, r, j, e.Seq, journal.Undone)
	if got := l.Snapshot(); !sameItems(got, before) {
		t.Fatalf("after undo the list is %+v, want %+v", got, before)
	}
	select {
	case <-ch:
	default:
		t.Error("subscribers were not told of the restore")
	}
	added, err := l.Create([]string{"Next"}, false)
	if err != nil || added[0].ID != "4" {
		t.Errorf("after a restore a new item got id %v (%v), want 4: ids are never reused", added, err)
	}
}

// sameItems compares todo items, times by the instant (a journal's JSON
// keeps neither the monotonic reading nor the *time.Location).
func sameItems(a, b []todo.Item) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if !x.CreatedAt.Equal(y.CreatedAt) || !x.UpdatedAt.Equal(y.UpdatedAt) {
			return false
		}
		x.CreatedAt, x.UpdatedAt, y.CreatedAt, y.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if x != y {
			return false
		}
	}
	return true
}

// A note changed by someone else after co wrote it is kept and named.
func TestNoteChangedSinceIsKept(t *testing.T) {
	vault := t.TempDir()
	p := filepath.Join(vault, "plan.md")
	if err := os.WriteFile(p, []byte("v1"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := journal.NoteBefore(1, "edit_note", vault, "plan.md")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("v2 by co"), 0o644); err != nil {
		t.Fatal(err)
	}
	if e, err = journal.NoteAfter(e, vault); err != nil {
		t.Fatal(err)
	}
	j := open(t, t.TempDir())
	r := journal.NewRegistry()
	r.NotesIn(vault)
	e = record(t, j, e)
	if err := os.WriteFile(p, []byte("v3 by the user"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = r.Undo(ctx(t), j, e.Seq)
	if !errors.Is(err, journal.ErrConflict) || !strings.Contains(err.Error(), "plan.md") {
		t.Fatalf("undo: %v, want a conflict naming the note", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "v3 by the user" {
		t.Fatalf("the user's change was overwritten: %q", b)
	}
	if entry(t, j, e.Seq).Undone != "" {
		t.Error("a refused undo was journalled")
	}

	// Back to what co wrote: the undo goes through.
	if err := os.WriteFile(p, []byte("v2 by co"), 0o644); err != nil {
		t.Fatal(err)
	}
	undo(t, r, j, e.Seq, journal.Undone)
	if b, _ := os.ReadFile(p); string(b) != "v1" {
		t.Fatalf("restored %q", b)
	}
}
