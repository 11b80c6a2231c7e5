package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/memory"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/undo"
)

// sentFixture is a saved session of two turns, the second taken out of
// the conversation, whose journal holds what each sent: memories saved in
// a real memory store (undoable: forgotten) and a web request (not).
type sentFixture struct {
	svc      *undo.Service
	mem      *memory.Store
	id       string
	live     journal.Entry // sent by the live turn
	tea, esc journal.Entry // sent by the undone turn; esc's text holds an escape sequence
	web      journal.Entry
}

func newSentFixture(t *testing.T) sentFixture {
	t.Helper()
	dir := t.TempDir()
	st, err := sessions.Open(filepath.Join(dir, "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sess := st.New(dir)
	var seqs []int64
	for _, p := range []string{"remember my tea", "remember my job"} {
		if err := sess.Append(message.Message{Role: message.RoleUser, Content: p}); err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, sess.Seq())
		if err := sess.Append(message.Message{Role: message.RoleAssistant, Content: "Saved."}); err != nil {
			t.Fatal(err)
		}
	}
	mem, err := memory.Open(filepath.Join(dir, "memory.db"), memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	j, err := journal.Open(filepath.Join(dir, "journal"), sess.ID())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	start := time.Now().Add(-time.Minute)
	record := func(turn int64, e func(turn int) journal.Entry) journal.Entry {
		t.Helper()
		got, err := j.Record(e(int(turn)))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	save := func(text string) memory.Memory {
		t.Helper()
		m, err := mem.Save(text, nil, sess.ID())
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	f := sentFixture{mem: mem, id: sess.ID()}
	pet, tea, job := save("has a cat"), save("likes green tea"), save("works at \x1b[31mACME\x1b[0m")
	f.live = record(seqs[0], func(n int) journal.Entry { return journal.MemorySaved(n, "save_memory", pet, start) })
	f.tea = record(seqs[1], func(n int) journal.Entry { return journal.MemorySaved(n, "save_memory", tea, start) })
	f.esc = record(seqs[1], func(n int) journal.Entry { return journal.MemorySaved(n, "save_memory", job, start) })
	f.web = record(seqs[1], func(n int) journal.Entry {
		return journal.NotUndoable(n, "web_fetch", journal.WebRequest, "fetched https://example.com/", journal.WhyWeb)
	})
	if _, err := st.UndoFrom(sess.ID(), seqs[1]); err != nil {
		t.Fatal(err)
	}
	reg := journal.NewRegistry()
	reg.Memories(func(context.Context) (*memory.Store, error) { return mem, nil })
	f.svc = undo.New(undo.Config{Sessions: st, Session: sess.ID(), Journal: j, Registry: reg})
	return f
}

// kept reports whether memory id is still in the store.
func (f sentFixture) kept(t *testing.T, id string) bool {
	t.Helper()
	_, err := f.mem.Get(id)
	if err != nil && !errors.Is(err, memory.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// What the turns sent is offered one by one at a terminal (y takes one
// back, Enter keeps it), taken back whole with --yes, and only listed
// without a terminal, with the command that offers it again; what cannot
// be taken back is listed as such, and no escape sequence from a memory's
// text reaches the terminal.
func TestUndoOffersWhatTheTurnsSentOneByOne(t *testing.T) {
	for _, tc := range []struct {
		name             string
		ask, yes         bool
		answers          string
		teaKept, escKept bool
		want, dontWant   []string
	}{
		{name: "terminal: yes then Enter", ask: true, answers: "y\n\n", teaKept: false, escKept: true,
			want: []string{"Take it back? [y/N]", "Taken back: saved the memory", "kept (co undo --sent --session "}},
		{name: "terminal: input ends", ask: true, answers: "", teaKept: true, escKept: true,
			want: []string{"Take it back? [y/N]", "kept (co undo --sent --session "}, dontWant: []string{"Taken back"}},
		{name: "--yes", yes: true, teaKept: false, escKept: false,
			want: []string{"Taken back: saved the memory"}, dontWant: []string{"[y/N]"}},
		{name: "no terminal", teaKept: true, escKept: true,
			want:     []string{"not taken back      saved the memory", "Standard input is not a terminal", "co undo --sent --session "},
			dontWant: []string{"[y/N]", "Taken back"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newSentFixture(t)
			var out bytes.Buffer
			u := &undoRun{env: env{Streams: Streams{Out: &out, Err: &out}}, svc: f.svc, info: sessions.Info{ID: f.id},
				flags: undoFlags{yes: tc.yes}, in: bufio.NewReader(strings.NewReader(tc.answers)), ask: tc.ask}
			if failed := u.offerSent(context.Background(), []journal.Entry{f.tea, f.esc, f.web}); failed {
				t.Errorf("an undo failed:\n%s", out.String())
			}
			got := out.String()
			if f.kept(t, memID(f.tea)) != tc.teaKept || f.kept(t, memID(f.esc)) != tc.escKept {
				t.Errorf("tea kept %v, ACME kept %v; want %v, %v\n%s", !tc.teaKept, !tc.escKept, tc.teaKept, tc.escKept, got)
			}
			if !f.kept(t, memID(f.live)) {
				t.Error("the live turn's memory was forgotten")
			}
			want := append([]string{"cannot be undone    fetched https://example.com/ (" + journal.WhyWeb + ")", "␛[31mACME"}, tc.want...)
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
			for _, w := range append([]string{"\x1b"}, tc.dontWant...) {
				if strings.Contains(got, w) {
					t.Errorf("output holds %q:\n%s", w, got)
				}
			}
		})
	}
}

// co undo --sent offers again what the undone turns sent and is still
// there — not what the live turns sent, not what cannot be taken back,
// not what was taken back before — and without a terminal or --yes it
// refuses, saying how.
func TestUndoSentOffersWhatUndoneTurnsLeft(t *testing.T) {
	f := newSentFixture(t)
	ctx := context.Background()
	if _, err := f.svc.UndoSent(ctx, f.esc.Seq); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	u := &undoRun{env: env{Streams: Streams{Out: &out, Err: &out}}, svc: f.svc, info: sessions.Info{ID: f.id},
		flags: undoFlags{sent: true}, in: bufio.NewReader(strings.NewReader(""))}
	if err := u.sentAgain(ctx); err == nil || !strings.Contains(err.Error(), "add --yes to take back all 1 action") {
		t.Errorf("co undo --sent without a terminal: %v", err)
	}
	u.ask, u.in = true, bufio.NewReader(strings.NewReader("y\n"))
	if err := u.sentAgain(ctx); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Count(got, "[y/N]") != 1 || !strings.Contains(got, "likes green tea") || strings.Contains(got, "has a cat") || strings.Contains(got, "example.com") {
		t.Errorf("co undo --sent offered:\n%s", got)
	}
	if f.kept(t, memID(f.tea)) || !f.kept(t, memID(f.live)) {
		t.Error("co undo --sent took back the wrong memory")
	}
	out.Reset()
	if err := u.sentAgain(ctx); err != nil || !strings.Contains(out.String(), "Nothing the undone turns of session "+f.id+" sent is left to take back.") {
		t.Errorf("co undo --sent with nothing left: %v\n%s", err, out.String())
	}
}

// memID is the memory id a MemorySaved entry names: "saved the memory
// [ID]: …".
func memID(e journal.Entry) string {
	_, rest, _ := strings.Cut(e.What, "[")
	id, _, _ := strings.Cut(rest, "]")
	return id
}
