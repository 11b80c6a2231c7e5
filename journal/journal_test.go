package journal_test

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
)

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func open(t *testing.T, dir string) *journal.Journal {
	t.Helper()
	j, err := journal.Open(dir, "s-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

func record(t *testing.T, j *journal.Journal, e journal.Entry) journal.Entry {
	t.Helper()
	e, err := j.Record(e)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// undo takes back entry seq and wants outcome.
func undo(t *testing.T, r *journal.Registry, j *journal.Journal, seq int, want journal.Outcome) journal.Result {
	t.Helper()
	res, err := r.Undo(ctx(t), j, seq)
	if err != nil {
		t.Fatalf("undo %d: %v", seq, err)
	}
	if res.Outcome != want {
		t.Fatalf("undo %d: outcome %q (%s), want %q", seq, res.Outcome, res.Message, want)
	}
	return res
}

func entry(t *testing.T, j *journal.Journal, seq int) journal.Entry {
	t.Helper()
	e, err := j.Get(seq)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestNotUndoableIsListedAndRefused(t *testing.T) {
	j := open(t, t.TempDir())
	r := journal.NewRegistry()
	cases := []struct {
		kind journal.Kind
		why  string
	}{
		{journal.WebRequest, journal.WhyWeb},
		{journal.MCPCall, journal.WhyMCP},
		{journal.MailSent, journal.WhyMail},
	}
	for _, c := range cases {
		e := record(t, j, journal.NotUndoable(1, "tool", c.kind, "did "+string(c.kind), c.why))
		_, err := r.Undo(ctx(t), j, e.Seq)
		if !errors.Is(err, journal.ErrNotUndoable) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: undo said %v, want ErrNotUndoable saying %q", c.kind, err, c.why)
		}
	}
	list, err := j.List(1)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(cases) {
		t.Fatalf("listed %d entries, want %d", len(list), len(cases))
	}
	for i, e := range list {
		if e.Undoable || e.WhyNot != cases[i].why || e.Undone != "" {
			t.Errorf("entry %d = %+v, want not undoable because %q and not undone", i, e, cases[i].why)
		}
	}
}

func TestKindWithoutUndoerIsNotUndoable(t *testing.T) {
	j := open(t, t.TempDir())
	e := record(t, j, journal.SlackPost(1, "send_slack_message", "C01GENERAL", "1715000060.000001", "#general", "hi"))
	_, err := journal.NewRegistry().Undo(ctx(t), j, e.Seq)
	if !errors.Is(err, journal.ErrNotUndoable) {
		t.Fatalf("undo with no Slack in the session: %v, want ErrNotUndoable", err)
	}
	if entry(t, j, e.Seq).Undone != "" {
		t.Fatal("the entry was marked undone")
	}
}

func TestRecordRefusesIncompleteEntries(t *testing.T) {
	j := open(t, t.TempDir())
	for name, e := range map[string]journal.Entry{
		"no kind":              {What: "x", WhyNot: "y"},
		"undoable, no handle":  {Kind: journal.Note, What: "x", Undoable: true},
		"not undoable, no why": {Kind: journal.WebRequest, What: "x"},
	} {
		if _, err := j.Record(e); err == nil {
			t.Errorf("%s: recorded", name)
		}
	}
	if _, err := journal.Open(t.TempDir(), "../escape"); err == nil {
		t.Error("a session id with a path was accepted")
	}
}

func TestListByTurn(t *testing.T) {
	j := open(t, t.TempDir())
	for turn := 1; turn <= 3; turn++ {
		for range turn {
			record(t, j, journal.NotUndoable(turn, "fetch", journal.WebRequest, "GET https://example.com", journal.WhyWeb))
		}
	}
	for turn, want := range map[int]int{0: 6, 1: 1, 2: 2, 3: 3, 4: 0} {
		got, err := j.List(turn)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != want {
			t.Errorf("List(%d) has %d entries, want %d", turn, len(got), want)
		}
		for _, e := range got {
			if turn != 0 && e.Turn != turn {
				t.Errorf("List(%d) holds an entry of turn %d", turn, e.Turn)
			}
		}
	}
}

// The journal outlives the process: a new Open lists what was recorded
// and undone, and numbering goes on.
func TestJournalSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	j, err := journal.Open(dir, "s-1")
	if err != nil {
		t.Fatal(err)
	}
	vault := t.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "a.md"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := journal.NoteBefore(1, "write_note", vault, "a.md")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vault, "a.md"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	note := record(t, j, e)
	web := record(t, j, journal.NotUndoable(2, "web_fetch", journal.WebRequest, "GET https://example.com", journal.WhyWeb))
	r := journal.NewRegistry()
	r.NotesIn(vault)
	undo(t, r, j, note.Seq, journal.Undone)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	j2 := open(t, dir)
	list, err := j2.List(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Seq != note.Seq || list[1].Seq != web.Seq {
		t.Fatalf("after reopening: %+v, want the two entries", list)
	}
	if list[0].Undone != journal.Undone || list[0].UndoneAt.IsZero() {
		t.Errorf("the undone note is listed as %q", list[0].Undone)
	}
	if list[1].Undoable || list[1].WhyNot != journal.WhyWeb {
		t.Errorf("the web request is listed as %+v", list[1])
	}
	if _, err := r.Undo(ctx(t), j2, note.Seq); !errors.Is(err, journal.ErrAlreadyUndone) {
		t.Errorf("undoing again after a restart: %v, want ErrAlreadyUndone", err)
	}
	next := record(t, j2, journal.NotUndoable(3, "mcp", journal.MCPCall, "called x", journal.WhyMCP))
	if next.Seq != web.Seq+1 {
		t.Errorf("numbering after reopening: %d, want %d", next.Seq, web.Seq+1)
	}
	if fi, err := os.Stat(j2.Path()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("journal file mode: %v %v, want 0600", fi.Mode(), err)
	}
}

// A write cut short by a crash leaves a torn last line: it is skipped,
// the entries before it stay, and the next entry is a line of its own.
func TestTornLastLineIsSkipped(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	first := record(t, j, journal.NotUndoable(1, "web_fetch", journal.WebRequest, "GET https://example.com/1", journal.WhyWeb))
	j.Close()
	f, err := os.OpenFile(journal.FileName(dir, "s-1"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"seq":2,"turn":1,"kind":"web_req`); err != nil {
		t.Fatal(err)
	}
	f.Close()

	j2 := open(t, dir)
	second := record(t, j2, journal.NotUndoable(1, "web_fetch", journal.WebRequest, "GET https://example.com/2", journal.WhyWeb))
	j2.Close()
	j3 := open(t, dir)
	list, err := j3.List(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].What != first.What || list[1].What != second.What {
		t.Fatalf("after a torn line: %+v", list)
	}
	raw, _ := os.ReadFile(journal.FileName(dir, "s-1"))
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 2 || !json.Valid([]byte(lines[1])) {
		t.Fatalf("file:\n%s\nwant the torn line cut and the new entry on its own line", raw)
	}
}

func TestDamagedLineIsReported(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	record(t, j, journal.NotUndoable(1, "web_fetch", journal.WebRequest, "GET https://example.com", journal.WhyWeb))
	j.Close()
	path := journal.FileName(dir, "s-1")
	raw, _ := os.ReadFile(path)
	if err := os.WriteFile(path, append([]byte("not json\n"), raw...), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := journal.Open(dir, "s-1")
	if err == nil || !strings.Contains(err.Error(), "line 1") || !strings.Contains(err.Error(), "move it aside") {
		t.Fatalf("open of a damaged journal: %v, want an error naming line 1 and what to do", err)
	}
}

// Two undos of one entry at once: one takes it back, the other finds it
// undone.
func TestConcurrentUndoTakesBackOnce(t *testing.T) {
	vault := t.TempDir()
	e, err := journal.NoteBefore(1, "write_note", vault, "n.md")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vault, "n.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	j := open(t, t.TempDir())
	e = record(t, j, e)
	r := journal.NewRegistry()
	r.NotesIn(vault)
	errs := make(chan error, 2)
	for range 2 {
		go func() { _, err := r.Undo(ctx(t), j, e.Seq); errs <- err }()
	}
	var ok, already int
	for range 2 {
		switch err := <-errs; {
		case err == nil:
			ok++
		case errors.Is(err, journal.ErrAlreadyUndone):
			already++
		default:
			t.Errorf("undo: %v", err)
		}
	}
	if ok != 1 || already != 1 {
		t.Fatalf("%d undone, %d already undone; want 1 and 1", ok, already)
	}
}

// What is shown in undo's lists: a token the model put in a message is
// not kept in it.
func TestWhatHoldsNoSecret(t *testing.T) {
	j := open(t, t.TempDir())
	e := record(t, j, journal.SlackPost(1, "send_slack_message", "C01", "1.000001", "#general", "the bot's token for the deploy job is xoxb-123456789012-abcdefghij"))
	if strings.Contains(e.What, "xoxb-1234") || strings.Contains(entry(t, j, e.Seq).What, "xoxb-1234") {
		t.Fatalf("what holds the token: %q", e.What)
	}
}
