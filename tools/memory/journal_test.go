package memory_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/memory"
	memtools "github.com/co-cli/co/tools/memory"
)

// save_memory journals the memory it saved; undo forgets it. A save that
// matched a memory older than the turn is journalled as not undoable, and
// the older memory stays.
func TestSavedMemoryIsJournalledAndForgotten(t *testing.T) {
	s, err := memory.Open(filepath.Join(t.TempDir(), memory.FileName), memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	open := func(context.Context) (*memory.Store, error) { return s, nil }
	old, err := s.Save("Ada prefers tea", nil, "s-0")
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(t.TempDir(), "s-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	// The turn began after the old memory was saved.
	ctx := journal.WithTurn(context.Background(), j, 2, old.Created.Add(time.Nanosecond))
	var save func(string) string
	for _, tl := range memtools.Tools(memtools.Config{Store: open, Session: func() string { return "s-1" }}) {
		if tl.Name() == "save_memory" {
			save = func(content string) string {
				t.Helper()
				res, err := tl.Run(ctx, json.RawMessage(`{"content":`+quote(content)+`}`))
				if err != nil {
					t.Fatal(err)
				}
				id, _ := res.Meta["id"].(string)
				return id
			}
		}
	}
	newID := save("Ada's cat is Pixel")
	oldID := save("Ada prefers tea")
	if oldID != old.ID {
		t.Fatalf("saving the same text again gave %s, want the older %s", oldID, old.ID)
	}

	es, err := j.List(2)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 {
		t.Fatalf("%d entries, want 2: %+v", len(es), es)
	}
	var h journal.MemoryHandle
	if err := json.Unmarshal(es[0].Handle, &h); err != nil {
		t.Fatal(err)
	}
	if es[0].Kind != journal.Memory || !es[0].Undoable || es[0].Tool != "save_memory" || h.ID != newID || h.Content != "Ada's cat is Pixel" {
		t.Fatalf("entry %+v handle %+v, want memory %s undoable", es[0], h, newID)
	}
	if es[1].Kind != journal.Memory || es[1].Undoable || !strings.Contains(es[1].WhyNot, "existed before") || !strings.Contains(es[1].What, old.ID) {
		t.Fatalf("entry %+v, want the older memory %s not undoable", es[1], old.ID)
	}

	r := journal.NewRegistry()
	r.Memories(open)
	if out, err := r.Undo(ctx, j, es[0].Seq); err != nil || out.Outcome != journal.Undone {
		t.Fatalf("undo: %+v %v", out, err)
	}
	if _, err := s.Get(newID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("after undo the memory is there: %v", err)
	}
	if _, err := r.Undo(ctx, j, es[1].Seq); !errors.Is(err, journal.ErrNotUndoable) {
		t.Fatalf("undo of the older memory: %v", err)
	}
	if _, err := s.Get(old.ID); err != nil {
		t.Fatalf("the older memory is gone: %v", err)
	}
}
