package tui

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/memory"
	"github.com/co-cli/co/ui/slash"
)

const memSecret = "configured-secret-value-4711"

// memFixture is a chat whose /memory view reads a real memory store with
// three memories (the newest first: tabs, standup, cat).
type memFixture struct {
	d                *driver
	s                *memory.Store
	cat, stand, tabs memory.Memory
	lines            []string // the arguments the line command got
}

func newMemFixture(t *testing.T) *memFixture {
	t.Helper()
	s, err := memory.Open(filepath.Join(t.TempDir(), memory.FileName), memory.Options{Secrets: []string{memSecret}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	mf := &memFixture{s: s}
	for _, p := range []struct {
		m    *memory.Memory
		text string
	}{{&mf.cat, "The cat is called Miso."}, {&mf.stand, "Standup is at 9:30 on weekdays."}, {&mf.tabs, "Prefers tabs over spaces in Go code."}} {
		if *p.m, err = s.Save(p.text, []string{"t"}, ""); err != nil {
			t.Fatal(err)
		}
	}
	f := newFixture(t)
	se := slash.Env{Memory: func(arg string) slash.Result {
		mf.lines = append(mf.lines, arg)
		return slash.Result{Output: "line command: " + arg}
	}}
	mf.d = newDriver(t, Options{Agent: f.ag, Slash: se, Memory: func() (*memory.Store, error) { return s, nil }}, 120, 36)
	return mf
}

func (mf *memFixture) open(t *testing.T) {
	t.Helper()
	d := mf.d
	d.typeText("/memory")
	d.key("enter")
	d.until("the memory view", func() bool { return d.app.mem != nil && d.app.mem.loaded })
}

func (mf *memFixture) shows(text string) func() bool {
	return func() bool { return strings.Contains(mf.d.screen(), text) }
}

// /memory opens the view with every memory, newest first; typing narrows
// the list (a half-typed word counts), deleting widens it; Esc closes the
// view and leaves the prompt as it was. Before it is opened no view
// exists.
func TestMemoryViewListsAndFiltersAsYouType(t *testing.T) {
	mf := newMemFixture(t)
	d := mf.d
	if d.app.mem != nil {
		t.Fatal("a view exists before /memory")
	}
	mf.open(t)
	s := d.screen()
	for _, want := range []string{"Memories", "3 memories", "❯   " + mf.tabs.ID + " Prefers tabs", mf.stand.ID + " Standup", mf.cat.ID + " The cat", "ctrl+p pin/unpin", "esc close"} {
		if !strings.Contains(s, want) {
			t.Errorf("the view lacks %q:\n%s", want, s)
		}
	}
	if strings.Index(s, "Prefers tabs") > strings.Index(s, "Standup") || strings.Index(s, "Standup") > strings.Index(s, "The cat") {
		t.Errorf("not newest first:\n%s", s)
	}
	if strings.Contains(s, "❯ /memory") {
		t.Errorf("opening the view put /memory in the transcript:\n%s", s)
	}

	d.typeText("mis")
	d.until("the filtered list", func() bool { return !strings.Contains(d.screen(), "Standup") })
	s = d.screen()
	if !strings.Contains(s, "❯   "+mf.cat.ID+" The cat") || strings.Contains(s, "Prefers tabs") || !strings.Contains(s, "1 match") {
		t.Fatalf("after typing mis:\n%s", s)
	}
	// The selected memory is shown in full with when it was saved.
	if !strings.Contains(s, "saved 2") || !strings.Contains(s, "last used never") {
		t.Errorf("no details of the selection:\n%s", s)
	}
	d.typeText("xyz")
	d.until("no match", mf.shows("No memory matches."))
	d.key("backspace", "backspace", "backspace", "backspace", "backspace", "backspace")
	// The three rows back: "3 memories" alone is in the header "0 of 3
	// memories match" the moment before, and in any narrowed one.
	d.until("every memory again", func() bool {
		s := d.screen()
		return strings.Contains(s, mf.tabs.ID+" Prefers tabs") && strings.Contains(s, mf.stand.ID+" Standup") &&
			strings.Contains(s, mf.cat.ID+" The cat") && strings.Contains(s, "3 memories") && !strings.Contains(s, "memories match")
	})

	d.key("esc")
	if d.app.mem != nil {
		t.Fatal("esc did not close the view")
	}
	if s := d.screen(); strings.Contains(s, "Memories") || !strings.Contains(s, "Ask co anything") {
		t.Fatalf("after esc:\n%s", s)
	}
	// Browsing is not use: no memory was marked as used.
	if m, _ := mf.s.Get(mf.cat.ID); !m.Used.IsZero() {
		t.Errorf("the view marked a memory as used")
	}
}

// Ctrl+P pins the selected memory (it moves to the top, the selection
// follows it); with the list focused (Tab), p unpins it.
func TestMemoryViewPins(t *testing.T) {
	mf := newMemFixture(t)
	d := mf.d
	mf.open(t)
	d.key("down", "down") // the cat
	d.key("ctrl+p")
	d.until("the pin", mf.shows("Pinned ["+mf.cat.ID+"]"))
	if m, _ := mf.s.Get(mf.cat.ID); !m.Pinned {
		t.Fatal("ctrl+p did not pin in the store")
	}
	d.until("the reloaded list", mf.shows("❯ ★ "+mf.cat.ID))
	s := d.screen()
	if strings.Index(s, "The cat") > strings.Index(s, "Prefers tabs") {
		t.Errorf("the pinned memory is not first:\n%s", s)
	}
	if !strings.Contains(s, "pinned: recalled on every turn") {
		t.Errorf("the details do not say pinned:\n%s", s)
	}
	d.key("tab")
	if s := d.screen(); !strings.Contains(s, "p pin/unpin") || !strings.Contains(s, "/ search") {
		t.Fatalf("the list's keys are not shown after tab:\n%s", s)
	}
	d.typeText("p")
	d.until("the unpin", mf.shows("Unpinned ["+mf.cat.ID+"]"))
	if m, _ := mf.s.Get(mf.cat.ID); m.Pinned {
		t.Fatal("p did not unpin")
	}
	if v := d.app.mem.search.Value(); v != "" {
		t.Errorf("p with the list focused typed %q into the search", v)
	}
}

// Enter edits the selected memory in a text area filled with its text;
// Enter saves. A secret is refused with the store's message and the edit
// stays open; Esc cancels it, leaving the memory as it was.
func TestMemoryViewEdits(t *testing.T) {
	mf := newMemFixture(t)
	d := mf.d
	mf.open(t)
	d.typeText("standup")
	d.until("the standup", func() bool { return !strings.Contains(d.screen(), "Prefers tabs") })
	d.key("enter")
	if d.app.mem.editing == nil {
		t.Fatal("enter did not open the edit")
	}
	s := d.screen()
	if !strings.Contains(s, "Edit ["+mf.stand.ID+"]") || !strings.Contains(s, "Standup is at 9:30 on weekdays.") || !strings.Contains(s, "enter save") {
		t.Fatalf("the edit:\n%s", s)
	}
	d.key("backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace") // "weekdays."
	d.typeText("Mondays.")
	d.key("enter")
	d.until("the update", mf.shows("Updated ["+mf.stand.ID+"]."))
	if m, _ := mf.s.Get(mf.stand.ID); m.Content != "Standup is at 9:30 on Mondays." {
		t.Fatalf("stored %q", m.Content)
	}
	if d.app.mem.editing != nil {
		t.Fatal("the edit stayed open after saving")
	}
	d.until("the new text in the list", mf.shows(mf.stand.ID+" Standup is at 9:30 on Mondays."))

	d.key("ctrl+e")
	d.typeText(" Key " + memSecret)
	d.key("enter")
	d.until("the refusal", mf.shows("refused: the text contains what looks like a secret"))
	if d.app.mem.editing == nil {
		t.Fatal("a refused edit closed")
	}
	d.key("esc")
	d.until("the cancel", mf.shows("Not changed."))
	if m, _ := mf.s.Get(mf.stand.ID); m.Content != "Standup is at 9:30 on Mondays." {
		t.Fatalf("after a refused edit the store has %q", m.Content)
	}
	if d.app.mem == nil {
		t.Fatal("esc in the edit closed the view")
	}
}

// Ctrl+D asks inside the view; n keeps the memory, other keys leave the
// question up, y forgets it.
func TestMemoryViewForgetsAfterConfirmation(t *testing.T) {
	mf := newMemFixture(t)
	d := mf.d
	mf.open(t)
	d.key("down") // the standup
	d.key("ctrl+d")
	if s := d.screen(); !strings.Contains(s, "Forget ["+mf.stand.ID+"] Standup is at 9:30") || !strings.Contains(s, "y forget") {
		t.Fatalf("no question:\n%s", s)
	}
	d.key("n")
	if s := d.screen(); !strings.Contains(s, "Kept.") || strings.Contains(s, "Forget [") {
		t.Fatalf("after n:\n%s", s)
	}
	d.key("tab")
	d.typeText("d")
	d.typeText("x")
	d.drain()
	if !strings.Contains(d.screen(), "Forget ["+mf.stand.ID+"]") {
		t.Fatalf("x answered the question:\n%s", d.screen())
	}
	if _, err := mf.s.Get(mf.stand.ID); err != nil {
		t.Fatalf("forgotten before y: %v", err)
	}
	d.typeText("y")
	d.until("forgotten", mf.shows("Forgot ["+mf.stand.ID+"]."))
	if _, err := mf.s.Get(mf.stand.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("still stored: %v", err)
	}
	d.until("the list without it", func() bool { return !strings.Contains(d.screen(), "Standup") })
	if s := d.screen(); !strings.Contains(s, "2 memories") {
		t.Fatalf("after forgetting:\n%s", s)
	}
}

// The line forms still go to the line command; a store that cannot be
// opened is reported inside the view; memory text cannot drive the
// terminal.
func TestMemoryViewLineFormsErrorsAndSafeText(t *testing.T) {
	mf := newMemFixture(t)
	d := mf.d
	d.typeText("/memory search cat")
	d.key("enter")
	d.drain()
	if d.app.mem != nil || len(mf.lines) != 1 || mf.lines[0] != "search cat" || !strings.Contains(d.screen(), "line command: search cat") {
		t.Fatalf("/memory search went to %v, view %v:\n%s", mf.lines, d.app.mem != nil, d.screen())
	}

	if _, err := mf.s.Save("Evil \x1b]52;c;aGk=\x07 text \x1b[2J here", nil, ""); err != nil {
		t.Fatal(err)
	}
	mf.open(t)
	out := d.app.View().Content
	if strings.Contains(out, "\x1b]52") || strings.Contains(out, "\x1b[2J") {
		t.Fatalf("memory text reached the terminal raw: %q", out)
	}
	if !strings.Contains(d.screen(), "Evil ␛]52;c;aGk=␇ text ␛[2J here") {
		t.Fatalf("the hostile memory is not shown neutralised:\n%s", d.screen())
	}
	d.key("esc")

	f := newFixture(t)
	broken := newDriver(t, Options{Agent: f.ag, Memory: func() (*memory.Store, error) {
		return nil, errors.New("/data/memory.db cannot be read as a memory store")
	}}, 120, 36)
	broken.typeText("/memory")
	broken.key("enter")
	broken.until("the error", func() bool {
		return strings.Contains(broken.screen(), "could not read the memories: /data/memory.db cannot be read as a memory store")
	})
}

// A tiny screen, and a resize while the view is open, still draw it.
func TestMemoryViewSmallScreen(t *testing.T) {
	mf := newMemFixture(t)
	d := mf.d
	mf.open(t)
	for _, sz := range [][2]int{{30, 8}, {50, 14}, {200, 60}} {
		d.send(windowSize(sz[0], sz[1]))
		for i, l := range strings.Split(d.screen(), "\n") {
			if w := lineWidth(l); w > sz[0] {
				t.Fatalf("%dx%d: line %d is %d wide: %q", sz[0], sz[1], i, w, l)
			}
		}
		if !strings.Contains(d.screen(), "Memories") {
			t.Fatalf("%dx%d: no view:\n%s", sz[0], sz[1], d.screen())
		}
	}
}
