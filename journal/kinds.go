package journal

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/co-cli/co/lib/redact"
	"github.com/co-cli/co/memory"
)

// MaxNoteBytes is the largest note whose earlier content is kept: a
// bigger one is journalled as not undoable, and said so.
const MaxNoteBytes = 1 << 20

// Why the kinds that cannot be taken back cannot.
const (
	WhyWeb  = "a web request cannot be called back: the server has received it"
	WhyMCP  = "an MCP server's tool did it, and co cannot know how to take it back"
	WhyMail = "a sent mail cannot be unsent"
)

func handle(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the handles are plain structs
	}
	return b
}

func decode[T any](e Entry) (T, error) {
	var h T
	if err := json.Unmarshal(e.Handle, &h); err != nil {
		return h, fmt.Errorf("journal entry %d (%s) has a damaged handle: %v", e.Seq, e.Kind, err)
	}
	return h, nil
}

// short is s on one line, cut to n runes, any key or token in it taken
// out first (a cut token would no longer look like one).
func short(s string, n int) string {
	s = redact.NewRedactor(nil).String(strings.Join(strings.Fields(s), " "))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// NotUndoable is an action that cannot be taken back, with why (WhyWeb,
// WhyMCP, WhyMail or another reason).
func NotUndoable(turn int, tool string, kind Kind, what, why string) Entry {
	return Entry{Turn: turn, Tool: tool, Kind: kind, What: what, WhyNot: why}
}

// SlackHandle is a message the bot posted: the channel id and ts that
// chat.postMessage answered (send_slack_message's Meta "channel", "ts").
type SlackHandle struct {
	Channel string `json:"channel"`
	TS      string `json:"ts"`
}

// SlackPost is the entry of a Slack post; where is the channel as shown
// ("#general (C01…)").
func SlackPost(turn int, tool, channel, ts, where, text string) Entry {
	return Entry{Turn: turn, Tool: tool, Kind: SlackMessage, Undoable: true,
		Handle: handle(SlackHandle{Channel: channel, TS: ts}),
		What:   fmt.Sprintf("posted to %s on Slack: %s", where, short(text, 60))}
}

// MessageDeleter deletes a message the bot posted (slack.Workspace).
type MessageDeleter interface {
	DeleteMessage(ctx context.Context, channel, ts string) error
}

// Slack makes Slack posts undoable through d.
func (r *Registry) Slack(d MessageDeleter) {
	r.Register(SlackMessage, func(ctx context.Context, e Entry) error {
		h, err := decode[SlackHandle](e)
		if err != nil {
			return err
		}
		return d.DeleteMessage(ctx, h.Channel, h.TS)
	})
}

// DraftHandle is a Gmail draft: its draft id (drafts.create's id, not the
// message id).
type DraftHandle struct {
	ID string `json:"id"`
}

// DraftSaved is the entry of a Gmail draft co saved.
func DraftSaved(turn int, tool, id, to, subject string) Entry {
	return Entry{Turn: turn, Tool: tool, Kind: GmailDraft, Undoable: true, Handle: handle(DraftHandle{ID: id}),
		What: fmt.Sprintf("saved a Gmail draft to %s: %q", to, short(subject, 60))}
}

// DraftDeleter deletes a Gmail draft (google.Account).
type DraftDeleter interface {
	DeleteDraft(ctx context.Context, id string) error
}

// Gmail makes Gmail drafts undoable through d.
func (r *Registry) Gmail(d DraftDeleter) {
	r.Register(GmailDraft, func(ctx context.Context, e Entry) error {
		h, err := decode[DraftHandle](e)
		if err != nil {
			return err
		}
		return d.DeleteDraft(ctx, h.ID)
	})
}

// EventHandle is a calendar event co created: its calendar ("primary"),
// its id, and the guests it had besides the user.
type EventHandle struct {
	Calendar  string   `json:"calendar"`
	ID        string   `json:"id"`
	Attendees []string `json:"attendees,omitempty"`
}

// EventCreated is the entry of a calendar event co created. An event with
// guests says so in Ask: deleting it sends them a cancellation, so the
// front end asks saying so.
func EventCreated(turn int, tool, calendar, id, title string, attendees []string) Entry {
	e := Entry{Turn: turn, Tool: tool, Kind: CalendarEvent, Undoable: true,
		Handle: handle(EventHandle{Calendar: calendar, ID: id, Attendees: attendees}),
		What:   fmt.Sprintf("created the calendar event %q", short(title, 60))}
	if n := len(attendees); n > 0 {
		who := strings.Join(attendees[:min(n, 3)], ", ")
		if n > 3 {
			who += fmt.Sprintf(" and %d more", n-3)
		}
		e.Ask = fmt.Sprintf("%d other people were invited (%s): deleting the event sends them a cancellation", n, who)
	}
	return e
}

// EventDeleter deletes a calendar event (google.Account); notify tells
// the guests.
type EventDeleter interface {
	DeleteEvent(ctx context.Context, calendarID, eventID string, notify bool) error
}

// Calendar makes created events undoable through d. Guests are told the
// event is cancelled (the entry's Ask said so).
func (r *Registry) Calendar(d EventDeleter) {
	r.Register(CalendarEvent, func(ctx context.Context, e Entry) error {
		h, err := decode[EventHandle](e)
		if err != nil {
			return err
		}
		return d.DeleteEvent(ctx, h.Calendar, h.ID, len(h.Attendees) > 0)
	})
}

// MemoryHandle is a memory co saved, and its text then.
type MemoryHandle struct {
	ID      string `json:"id"`
	Content string `json:"content"`
}

// MemorySaved is the entry of save_memory's memory m, in a turn that
// began at turnStart. A save whose text matched an older memory returns
// that memory (memory.Store.Save): forgetting it would lose what the user
// had before, so that entry is not undoable.
func MemorySaved(turn int, tool string, m memory.Memory, turnStart time.Time) Entry {
	what := fmt.Sprintf("saved the memory [%s]: %s", m.ID, short(m.Content, 60))
	if m.Created.Before(turnStart) {
		return Entry{Turn: turn, Tool: tool, Kind: Memory, What: what,
			WhyNot: "the memory existed before this turn (the save matched its text), so forgetting it would lose an older memory"}
	}
	return Entry{Turn: turn, Tool: tool, Kind: Memory, Undoable: true, What: what,
		Handle: handle(MemoryHandle{ID: m.ID, Content: m.Content})}
}

// Memories makes saved memories undoable: forgotten in the store open
// gives (memory.Lazy.StoreContext). A memory changed since is left alone.
func (r *Registry) Memories(open func(ctx context.Context) (*memory.Store, error)) {
	r.Register(Memory, func(ctx context.Context, e Entry) error {
		h, err := decode[MemoryHandle](e)
		if err != nil {
			return err
		}
		s, err := open(ctx)
		if err != nil {
			return fmt.Errorf("the memory store cannot be opened, so [%s] was not forgotten: %w", h.ID, err)
		}
		m, err := s.Get(h.ID)
		switch {
		case errors.Is(err, memory.ErrNotFound):
			return fmt.Errorf("the memory [%s] is already gone (forgotten since): %w", h.ID, fs.ErrNotExist)
		case err != nil:
			return err
		case m.Content != h.Content:
			return fmt.Errorf("the memory [%s] was changed after it was saved (now: %s); it is kept: forget it with `co memory forget %s` if it should go", h.ID, short(m.Content, 60), h.ID)
		}
		if _, err := s.Forget(m.ID); errors.Is(err, memory.ErrNotFound) {
			return fmt.Errorf("the memory [%s] is already gone (forgotten since): %w", h.ID, fs.ErrNotExist)
		} else if err != nil {
			return err
		}
		return nil
	})
}

// NoteHandle is a note as it was before co wrote it: its path in the
// vault (slash-separated), whether it existed, and its bytes and mode;
// and, once NoteAfter saw it, the SHA-256 of what co left ("" for no
// file), so a change made since is not overwritten.
type NoteHandle struct {
	Path    string      `json:"path"`
	Existed bool        `json:"existed"`
	Content []byte      `json:"content,omitempty"`
	Mode    fs.FileMode `json:"mode,omitempty"`
	After   *string     `json:"after,omitempty"`
}

// ErrConflict is wrapped by an undo's error when what co changed was
// changed again since by someone else: it is kept as it is, and named.
var ErrConflict = errors.New("changed since")

// NoteAfter completes a NoteBefore entry once the tool has written the
// note: it keeps the hash of the note as co left it, so undo restores it
// only while nobody changed it since.
func NoteAfter(e Entry, vault string) (Entry, error) {
	if e.Kind != Note || !e.Undoable {
		return e, nil
	}
	h, err := decode[NoteHandle](e)
	if err != nil {
		return e, err
	}
	root, err := os.OpenRoot(vault)
	if err != nil {
		return e, fmt.Errorf("the vault %s cannot be opened: %w", vault, err)
	}
	defer root.Close()
	sum, err := noteSum(root, filepath.FromSlash(h.Path))
	if err != nil {
		return e, err
	}
	h.After = &sum
	e.Handle = handle(h)
	return e, nil
}

// noteSum is the hex SHA-256 of a note, "" when there is none.
func noteSum(root *os.Root, name string) (string, error) {
	b, err := root.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// NoteBefore reads the note rel of the vault before a tool writes it, and
// returns the entry to record once the write is done. A note larger than
// MaxNoteBytes is recorded as not undoable. Paths stay inside the vault.
func NoteBefore(turn int, tool, vault, rel string) (Entry, error) {
	rel, err := notePath(rel)
	if err != nil {
		return Entry{}, err
	}
	root, err := os.OpenRoot(vault)
	if err != nil {
		return Entry{}, fmt.Errorf("the vault %s cannot be opened: %w", vault, err)
	}
	defer root.Close()
	h := NoteHandle{Path: rel}
	e := Entry{Turn: turn, Tool: tool, Kind: Note, What: "created the note " + rel}
	fi, err := root.Stat(filepath.FromSlash(rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return Entry{}, err
	case !fi.Mode().IsRegular():
		return Entry{}, fmt.Errorf("the note %s is not a regular file", rel)
	case fi.Size() > MaxNoteBytes:
		e.What, e.WhyNot = "changed the note "+rel, fmt.Sprintf("the note was %d KB, over the %d KB co keeps to restore", fi.Size()>>10, MaxNoteBytes>>10)
		return e, nil
	default:
		b, err := root.ReadFile(filepath.FromSlash(rel))
		if err != nil {
			return Entry{}, err
		}
		h.Existed, h.Content, h.Mode = true, b, fi.Mode().Perm()
		e.What = "changed the note " + rel
	}
	e.Undoable, e.Handle = true, handle(h)
	return e, nil
}

// notePath cleans a vault-relative path, refusing one that leaves it.
func notePath(rel string) (string, error) {
	p := path.Clean(filepath.ToSlash(rel))
	if p == "." || path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") || filepath.IsAbs(rel) {
		return "", fmt.Errorf("the note path %q is not inside the vault: give it relative to the vault's folder", rel)
	}
	return p, nil
}

// NotesIn makes note changes undoable in the vault at dir: the note gets
// its earlier bytes back, or is removed if co created it.
func (r *Registry) NotesIn(dir string) {
	r.Register(Note, func(_ context.Context, e Entry) error {
		h, err := decode[NoteHandle](e)
		if err != nil {
			return err
		}
		rel, err := notePath(h.Path)
		if err != nil {
			return err
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			return fmt.Errorf("the vault %s cannot be opened: %w", dir, err)
		}
		defer root.Close()
		name := filepath.FromSlash(rel)
		if h.After != nil {
			now, err := noteSum(root, name)
			if err != nil {
				return fmt.Errorf("the note %s cannot be read: %w", rel, err)
			}
			var before string
			if h.Existed {
				sum := sha256.Sum256(h.Content)
				before = hex.EncodeToString(sum[:])
			}
			switch {
			case now == before:
				return fmt.Errorf("the note %s is already as it was before: %w", rel, fs.ErrNotExist)
			case now != *h.After:
				return fmt.Errorf("the note %s was changed after co wrote it, so it is kept as it is (%w): restore it by hand if you still want the earlier text", rel, ErrConflict)
			}
		}
		if !h.Existed {
			if err := root.Remove(name); errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("the note %s is already gone (removed since): %w", rel, fs.ErrNotExist)
			} else if err != nil {
				return fmt.Errorf("the note %s co created could not be removed: %w", rel, err)
			}
			return nil
		}
		if now, err := root.ReadFile(name); err == nil && bytes.Equal(now, h.Content) {
			return fmt.Errorf("the note %s is already as it was before: %w", rel, fs.ErrNotExist)
		}
		if d := path.Dir(rel); d != "." {
			if err := root.MkdirAll(filepath.FromSlash(d), 0o755); err != nil {
				return fmt.Errorf("the note %s could not be restored: %w", rel, err)
			}
		}
		if err := root.WriteFile(name, h.Content, h.Mode|0o200); err != nil {
			return fmt.Errorf("the note %s could not be restored: %w", rel, err)
		}
		return nil
	})
}

// TodosHandle is the todo list before a change, as the list's items
// encode it (todo.Item). It stays JSON here: the todo tools record to the
// journal, so the journal cannot import them.
type TodosHandle struct {
	Before json.RawMessage `json:"before"`
}

// TodosBefore is the entry of a change to the session's todo list, with
// the list as it was (todo.List.Snapshot before the change).
func TodosBefore[T any](turn int, tool string, before []T, what string) Entry {
	if before == nil {
		before = []T{}
	}
	return Entry{Turn: turn, Tool: tool, Kind: Todos, Undoable: true, What: what,
		Handle: handle(struct {
			Before []T `json:"before"`
		}{before})}
}

// TodoRestorer is the session's todo list (todo.List): RestoreJSON sets it
// back to the items a TodosBefore entry kept.
type TodoRestorer interface {
	RestoreJSON(before []byte) error
}

// TodoList makes todo changes undoable on l, the session's list (it is
// not saved: an undo in a later process restores onto that process's
// list).
func (r *Registry) TodoList(l TodoRestorer) {
	r.Register(Todos, func(_ context.Context, e Entry) error {
		h, err := decode[TodosHandle](e)
		if err != nil {
			return err
		}
		return l.RestoreJSON(h.Before)
	})
}
