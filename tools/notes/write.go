package notes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/internal/pathsafe"
)

// MaxWriteBytes bounds what write_note writes: the size up to which the
// journal keeps a note's earlier bytes (journal.MaxNoteBytes), so a note
// co wrote can be restored when co writes it again.
const MaxWriteBytes = journal.MaxNoteBytes

// Bounds of write_note's approval preview.
const (
	maxPreviewLines = 200
	maxPreviewChars = 16000
)

// WriteNote is write_note: it creates a note in the vault or replaces
// one's Markdown. It asks first, showing the change; the journal keeps the
// note as it was, so undo restores it (or removes a note co created).
type WriteNote struct{ v *Vault }

func (t *WriteNote) Name() string       { return "write_note" }
func (t *WriteNote) Class() tools.Class { return tools.SideEffect }
func (t *WriteNote) Description() string {
	return "Create one of the user's Obsidian notes, or replace a note's whole text. filename is its path in the vault " +
		"(.md is added when missing; missing folders are made). The user sees the change and approves it first. " +
		"To change part of a note, read_note it first and write the whole text back."
}
func (t *WriteNote) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"filename":{"type":"string","description":"The note's path in the vault, e.g. Projects/Alpha.md."},` +
		`"content":{"type":"string","description":"The note's whole Markdown text."}` +
		`},"required":["filename","content"],"additionalProperties":false}`)
}

type writeArgs struct {
	Filename string `json:"filename"`
	Content  string `json:"content"`
}

// parseWrite validates write_note's arguments without touching the vault
// and returns the note's cleaned path.
func (t *WriteNote) parseWrite(r *pathsafe.Root, raw json.RawMessage) (rel string, a writeArgs, err error) {
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return "", a, err
	}
	rel, err = r.Clean(strings.TrimSpace(a.Filename))
	if err != nil {
		return "", a, retry(err)
	}
	if rel == "." {
		return "", a, tools.Retryf("filename is empty: give the note's path in the vault, e.g. Projects/Alpha.md")
	}
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") {
			return "", a, tools.Retryf("%q is in a hidden folder or is a hidden file (%s): notes are written only where Obsidian shows them, not in .obsidian, .trash or .git", rel, part)
		}
	}
	if !isNote(rel) {
		rel += ".md"
	}
	switch {
	case len(a.Content) > MaxWriteBytes:
		return "", a, tools.Retryf("content is %d KB, more than the %d KB a note written by co may have", len(a.Content)>>10, MaxWriteBytes>>10)
	case strings.IndexByte(a.Content, 0) >= 0:
		return "", a, tools.Retryf("content has a NUL byte: a note is text")
	}
	return rel, a, nil
}

// Check asks, showing the change as a diff. Arguments that Run would
// refuse are not shown for approval.
func (t *WriteNote) Check(_ context.Context, raw json.RawMessage) tools.Check {
	r, err := t.v.open()
	if err != nil {
		return tools.Check{Decision: tools.Allow, Reason: "nothing is written: " + err.Error()}
	}
	defer r.Close()
	rel, a, err := t.parseWrite(r, raw)
	if err == nil {
		_, err = r.CheckWrite(rel)
	}
	if err != nil {
		return tools.Check{Decision: tools.Allow, Reason: "invalid note, nothing is written: " + retry(err).Error()}
	}
	old, _, readErr := r.ReadFile(rel, MaxNoteBytes)
	exists := readErr == nil
	reason := "creates the note " + rel + " in your Obsidian vault"
	if exists {
		reason = "replaces the text of the note " + rel + " in your Obsidian vault"
	}
	return tools.Check{
		Decision:   tools.Ask,
		Reason:     reason,
		Scope:      t.Name() + ":" + rel,
		ScopeLabel: "writes to the note " + rel,
		Preview:    notePreview(rel, old, exists, []byte(a.Content)),
		// The vault's notes are read back later as the user's own words
		// (they carry no origin): after untrusted content, a write would
		// launder it into them.
		Outbound: &tools.Outbound{To: "the Obsidian note " + rel, What: shortText(a.Content, 300)},
	}
}

func (t *WriteNote) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	r, err := t.v.open()
	if err != nil {
		return tools.Result{}, err
	}
	defer r.Close()
	rel, a, err := t.parseWrite(r, raw)
	if err != nil {
		return tools.Result{}, err
	}
	if _, err := r.CheckWrite(rel); err != nil {
		return tools.Result{}, retry(err)
	}
	// What the note was, for undo: taken before the write, recorded after.
	_, _, journalled := journal.TurnOf(ctx)
	var before journal.Entry
	if journalled {
		if before, err = journal.NoteBefore(0, t.Name(), t.v.dir, rel); err != nil {
			return tools.Result{}, retry(err)
		}
	}
	old, _, readErr := r.ReadFile(rel, MaxNoteBytes)
	created, err := r.WriteFile(rel, []byte(a.Content), true)
	if err != nil {
		return tools.Result{}, retry(err)
	}
	msg := fmt.Sprintf("Created the note %s (%s).", rel, tools.Size(int64(len(a.Content))))
	if !created {
		msg = fmt.Sprintf("Replaced the text of the note %s (%s, before %s).", rel, tools.Size(int64(len(a.Content))), tools.Size(int64(len(old))))
		if readErr != nil {
			msg = fmt.Sprintf("Replaced the text of the note %s (%s).", rel, tools.Size(int64(len(a.Content))))
		}
	}
	if journalled {
		e, err := journal.NoteAfter(before, t.v.dir)
		if err == nil {
			_, err = journal.RecordIn(ctx, e)
		}
		switch {
		case err != nil:
			msg += fmt.Sprintf("\n(co could not note the change in this session's journal, so undo cannot take it back: %v)", err)
		case !e.Undoable:
			msg += "\n(undo cannot restore it: " + e.WhyNot + ")"
		}
	}
	return tools.Result{Display: msg, Meta: map[string]any{"path": rel, "created": created}}, nil
}

// notePreview is the change to rel as a unified diff, cut to a readable
// size.
func notePreview(rel string, old []byte, exists bool, new []byte) string {
	if exists && bytes.Equal(old, new) {
		return "(no change: the note already has this text)"
	}
	from := "a/" + rel
	if !exists {
		from = "/dev/null"
	}
	d, err := udiff.ToUnified(from, "b/"+rel, string(old), udiff.Lines(string(old), string(new)), udiff.DefaultContextLines)
	if err != nil {
		return fmt.Sprintf("(the diff could not be computed: %v)", err)
	}
	lines := strings.SplitAfter(d, "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == maxPreviewLines || b.Len()+len(l) > maxPreviewChars {
			fmt.Fprintf(&b, "… (%d more lines of diff)\n", len(lines)-i)
			break
		}
		b.WriteString(l)
	}
	return b.String()
}

// shortText is s on one line, cut to n runes.
func shortText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
