package notes

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/tools"
)

// writeInTurn runs write_note with a session journal in the context, as
// the agent calls tools.
func writeInTurn(t *testing.T, v *Vault, j *journal.Journal, filename, content string) (tools.Result, error) {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"filename": filename, "content": content})
	w := &WriteNote{v}
	if err := tools.NewValidator().Validate(w, raw); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return w.Run(journal.WithTurn(ctx, j, 3, time.Now()), raw)
}

func openJournal(t *testing.T) *journal.Journal {
	t.Helper()
	j, err := journal.Open(t.TempDir(), "s-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

func readNote(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteNoteAndUndo(t *testing.T) {
	v, dir := vault(t, map[string]string{"Projects/Alpha.md": "# Alpha\nold plan\n"})
	j := openJournal(t)
	r := journal.NewRegistry()
	r.NotesIn(dir)

	// Replace a note: undo gives its earlier bytes back.
	res, err := writeInTurn(t, v, j, "Projects/Alpha.md", "# Alpha\nnew plan\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := readNote(t, dir, "Projects/Alpha.md"); got != "# Alpha\nnew plan\n" {
		t.Fatalf("note holds %q", got)
	}
	if !strings.Contains(res.Display, "Replaced the text of the note Projects/Alpha.md") || res.Meta["created"] != false {
		t.Errorf("result %v %q", res.Meta, res.Display)
	}
	// Create one (and its folder, .md added): undo removes it.
	res, err = writeInTurn(t, v, j, "Inbox/Idea", "an idea\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := readNote(t, dir, "Inbox/Idea.md"); got != "an idea\n" || res.Meta["path"] != "Inbox/Idea.md" || res.Meta["created"] != true {
		t.Fatalf("created %q, result %v", got, res.Meta)
	}
	// read_note sees what write_note wrote.
	if got := ok(t, v, "read_note", map[string]any{"filename": "Inbox/Idea"}); got.Display != "an idea\n" {
		t.Errorf("read_note after write_note: %q", got.Display)
	}

	es, err := j.List(3)
	if err != nil || len(es) != 2 {
		t.Fatalf("entries %+v, %v", es, err)
	}
	for _, e := range es {
		if e.Kind != journal.Note || !e.Undoable || e.Tool != "write_note" || e.Turn != 3 {
			t.Errorf("entry %+v", e)
		}
	}
	if es[0].What != "changed the note Projects/Alpha.md" || es[1].What != "created the note Inbox/Idea.md" {
		t.Errorf("entries say %q, %q", es[0].What, es[1].What)
	}

	ctx := context.Background()
	if res, err := r.Undo(ctx, j, es[1].Seq); err != nil || res.Outcome != journal.Undone {
		t.Fatalf("undo of the created note: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "Inbox", "Idea.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the created note is still there: %v", err)
	}
	if res, err := r.Undo(ctx, j, es[0].Seq); err != nil || res.Outcome != journal.Undone {
		t.Fatalf("undo of the replaced note: %+v, %v", res, err)
	}
	if got := readNote(t, dir, "Projects/Alpha.md"); got != "# Alpha\nold plan\n" {
		t.Errorf("restored note holds %q", got)
	}
}

// A note the user changed after co wrote it is kept by undo.
func TestWriteNoteChangedSinceIsKept(t *testing.T) {
	v, dir := vault(t, map[string]string{"plan.md": "v1"})
	j := openJournal(t)
	r := journal.NewRegistry()
	r.NotesIn(dir)
	if _, err := writeInTurn(t, v, j, "plan.md", "v2 by co"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plan.md"), []byte("v3 by the user"), 0o644); err != nil {
		t.Fatal(err)
	}
	es, _ := j.List(3)
	if len(es) != 1 {
		t.Fatalf("entries %+v", es)
	}
	_, err := r.Undo(context.Background(), j, es[0].Seq)
	if !errors.Is(err, journal.ErrConflict) || !strings.Contains(err.Error(), "plan.md") {
		t.Fatalf("undo: %v, want a conflict naming the note", err)
	}
	if got := readNote(t, dir, "plan.md"); got != "v3 by the user" {
		t.Fatalf("the user's change was overwritten: %q", got)
	}
}

func TestWriteNoteStaysInVault(t *testing.T) {
	v, dir := vault(t, map[string]string{"a.md": "x"})
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "t.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	j := openJournal(t)
	cases := []struct{ name, filename, content, want string }{
		{"parent", "../escape.md", "x", "outside"},
		{"absolute", filepath.Join(outside, "abs.md"), "x", "absolute"},
		{"through a symlinked folder", "out/t.md", "x", "symlink"},
		{"a symlinked note", "link.md", "x", "symlink"},
		{"hidden folder", ".obsidian/app.md", "x", "hidden"},
		{"empty", " ", "x", "filename is empty"},
		{"NUL", "b.md", "a\x00b", "NUL"},
		{"too large", "big.md", strings.Repeat("x", MaxWriteBytes+1), "more than the 1024 KB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := writeInTurn(t, v, j, c.filename, c.content)
			if !tools.IsRetry(err) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("write_note(%q): %v, want a retry saying %q", c.filename, err, c.want)
			}
			raw, _ := json.Marshal(map[string]any{"filename": c.filename, "content": c.content})
			if ch := (&WriteNote{v}).Check(context.Background(), raw); ch.Decision != tools.Allow || !strings.Contains(ch.Reason, "nothing is written") {
				t.Errorf("check %+v: a refused write is not asked about", ch)
			}
		})
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("files were written outside the vault: %v", ents)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("escape.md was written: %v", err)
	}
	if es, _ := j.List(3); len(es) != 0 {
		t.Errorf("refused writes were journalled: %+v", es)
	}
}

func TestWriteNoteCheck(t *testing.T) {
	v, _ := vault(t, map[string]string{"a.md": "one\ntwo\n"})
	w := &WriteNote{v}
	ch := w.Check(context.Background(), json.RawMessage(`{"filename":"a.md","content":"one\nthree\n"}`))
	if ch.Decision != tools.Ask || w.Class() != tools.SideEffect || ch.Scope != "write_note:a.md" ||
		!strings.Contains(ch.Preview, "-two\n+three\n") || !strings.Contains(ch.Reason, "replaces") ||
		ch.Outbound == nil || ch.Outbound.To != "the Obsidian note a.md" || ch.Outbound.What != "one three" {
		t.Errorf("check %+v", ch)
	}
	ch = w.Check(context.Background(), json.RawMessage(`{"filename":"new","content":"hello\n"}`))
	if ch.Decision != tools.Ask || !strings.Contains(ch.Preview, "--- /dev/null\n+++ b/new.md") || !strings.Contains(ch.Reason, "creates the note new.md") {
		t.Errorf("check of a new note %+v", ch)
	}
	// Without a journal (co run without a saved session) it writes all
	// the same.
	if _, err := w.Run(context.Background(), json.RawMessage(`{"filename":"new","content":"hello\n"}`)); err != nil {
		t.Fatal(err)
	}
}
