package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/tools/files"
	"github.com/co-cli/co/ui/mention"
)

// wsSource is the workspace as internal/cli hands it to the chat: the
// real file tools over a temp dir; listings counts Files calls.
type wsSource struct {
	w        *files.Workspace
	listings atomic.Int32
}

func (s *wsSource) Files() ([]string, bool, error) {
	s.listings.Add(1)
	return s.w.Files(context.Background(), 0)
}

func (s *wsSource) Attach(p string, maxChars int) (mention.Attachment, error) {
	a, err := s.w.Attach(p, maxChars)
	return mention.Attachment{Path: a.Path, Text: a.Text, Lines: a.Lines, Shown: a.Shown, Truncated: a.Truncated}, err
}

func newWSSource(t *testing.T) *wsSource {
	t.Helper()
	dir := t.TempDir()
	for p, c := range map[string]string{
		"ui/input.go":      "package ui\n\nfunc Input() {}\n",
		"ui/input_test.go": "package ui\n",
		"main.go":          "package main\n",
		"my file.txt":      "spaced\n",
	} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := files.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &wsSource{w: w}
}

func TestMentionListCompletesAndAttaches(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "read it"})
	src := newWSSource(t)
	d := newDriver(t, Options{Agent: f.ag, Mentions: src}, 100, 30)
	d.drain()
	if n := src.listings.Load(); n != 0 {
		t.Fatalf("the files were listed %d times before any @", n)
	}
	d.typeText("see @inp")
	d.until("the list", func() bool { return strings.Contains(d.screen(), "▸ @ui/input.go") })
	if s := d.screen(); !strings.Contains(s, "  @ui/input_test.go") || strings.Contains(s, "@main.go") {
		t.Fatalf("list:\n%s", s)
	}
	d.key("down")
	if s := d.screen(); !strings.Contains(s, "▸ @ui/input_test.go") {
		t.Fatalf("down did not move:\n%s", s)
	}
	d.key("tab")
	if v := d.app.input.Value(); v != "see @ui/input_test.go " || d.app.input.MentionOpen() {
		t.Fatalf("after tab: %q, open %v", v, d.app.input.MentionOpen())
	}
	// An e-mail address is not a mention.
	d.typeText("and a@b")
	d.drain()
	if d.app.input.MentionOpen() {
		t.Fatalf("a@b opened the list:\n%s", d.screen())
	}
	// A path with a space is put in quotes.
	d.typeText(" @my")
	d.until("the list", func() bool { return strings.Contains(d.screen(), "▸ @my file.txt") })
	d.key("enter")
	if v := d.app.input.Value(); v != `see @ui/input_test.go and a@b @"my file.txt" ` {
		t.Fatalf("after enter: %q", v)
	}
	d.key("enter")
	d.until("the turn to end", d.idle)
	d.drain()
	s := d.screen()
	for _, want := range []string{"❯ see @ui/input_test.go", "↳ attached ui/input_test.go (1 line)", "↳ attached my file.txt (1 line)", "read it"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	got := f.srv.Requests()[0].LastUserMessage()
	if !strings.HasPrefix(got, `see @ui/input_test.go and a@b @"my file.txt" `+"\n\n"+mention.Intro) || strings.Count(got, "<attached-file") != 2 {
		t.Errorf("the model got %q", got)
	}
	if n := src.listings.Load(); n != 1 {
		t.Errorf("listed %d times, want once", n)
	}
}

// Esc closes the list, not the running turn; Enter with no match sends.
func TestMentionEscClosesTheListNotTheTurn(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(
		llmtest.Reply{Text: strings.Repeat("slow ", 60), ChunkSize: 5, ChunkDelay: 5 * time.Millisecond},
		llmtest.Reply{Text: "second"},
	)
	d := newDriver(t, Options{Agent: f.ag, Mentions: newWSSource(t)}, 100, 30)
	d.typeText("first")
	d.key("enter")
	d.until("streaming", func() bool { return strings.Contains(d.screen(), "slow slow") })
	d.typeText("@zzz")
	d.until("the list", func() bool { return strings.Contains(d.screen(), "no file matches zzz") })
	d.key("esc")
	if !d.app.running || d.app.cancelled || d.app.input.MentionOpen() {
		t.Fatalf("esc: running %v, cancelled %v, list open %v", d.app.running, d.app.cancelled, d.app.input.MentionOpen())
	}
	// The word stays closed while typed on.
	d.typeText("z")
	// Not drain, which would wait for the running turn: the key's flush.
	d.until("the z in the prompt", func() bool { return !d.app.input.flushing && strings.HasSuffix(d.app.input.Value(), "@zzzz") })
	if d.app.input.MentionOpen() {
		t.Fatal("the closed list opened again for the same word")
	}
	d.key("enter") // queued
	d.until("both turns", func() bool { return d.idle() && strings.Contains(d.screen(), "second") })
	s := d.screen()
	if strings.Contains(s, "Interrupted") || !strings.Contains(s, "@zzzz not attached") {
		t.Errorf("screen:\n%s", s)
	}
	if got := f.srv.Requests()[1].LastUserMessage(); got != "@zzzz" {
		t.Errorf("sent %q", got)
	}
}

// The list takes lines from the transcript, not from the screen's height.
func TestMentionListHeight(t *testing.T) {
	f := newFixture(t)
	d := newDriver(t, Options{Agent: f.ag, Mentions: newWSSource(t)}, 80, 20)
	before := d.app.input.Height()
	d.typeText("@")
	d.until("the list", func() bool { return strings.Contains(d.screen(), "▸ @main.go") })
	if got := d.app.input.Height(); got != before+4 { // four files
		t.Errorf("height %d, want %d", got, before+4)
	}
	if n := len(strings.Split(d.app.View().Content, "\n")); n != 20 {
		t.Errorf("the frame has %d lines, want 20", n)
	}
	d.key("backspace")
	if got := d.app.input.Height(); got != before || d.app.input.MentionOpen() {
		t.Errorf("after backspace: height %d, open %v", got, d.app.input.MentionOpen())
	}
}

// Enter right after a burst of keys acts on the text the burst typed: the
// @ list opened for "@" before the burst must not take the Enter and
// replace "@main.go " with its first file (seen as an e2e flake under load).
func TestEnterAfterABurstSendsWhatWasTyped(t *testing.T) {
	in := newTestInput(t)
	in.index = mention.NewIndex(newWSSource(t))
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	in.now = func() time.Time { now = now.Add(50 * time.Millisecond); return now } // typed by hand
	for _, k := range []string{"/", "r", "space", "@"} {
		in.Update(keyMsg(k))
	}
	if done := in.index.Load(); done != nil {
		<-done
	}
	in.FilesListed()
	if !in.MentionOpen() {
		t.Fatal("the @ list did not open")
	}
	in.now = func() time.Time { return now } // the rest at once: a burst
	for _, k := range []string{"m", "a", "i", "n", ".", "g", "o", "space"} {
		in.Update(keyMsg(k))
	}
	if !in.Gathering() {
		t.Fatal("the keys were not gathered as a burst")
	}
	if sub := press(in, "enter"); sub == nil || sub.Text != "/r @main.go " {
		t.Fatalf("enter after the burst gave %+v, want /r @main.go sent", sub)
	}
}

// Enter on a path typed whole sends the message; on a part of one it
// completes it.
func TestEnterOnAWholePathSends(t *testing.T) {
	in := newTestInput(t)
	in.index = mention.NewIndex(newWSSource(t))
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	in.now = func() time.Time { now = now.Add(50 * time.Millisecond); return now }
	in.Update(keyMsg("@"))
	if done := in.index.Load(); done != nil {
		<-done
	}
	in.FilesListed()
	for _, k := range []string{"m", "a", "i"} {
		in.Update(keyMsg(k))
	}
	if sub := press(in, "enter"); sub != nil || in.Value() != "@main.go " {
		t.Fatalf("enter on @mai: sent %+v, text %q; want it completed to @main.go", sub, in.Value())
	}
	in.ta.Reset()
	for _, k := range []string{"@", "m", "a", "i", "n", ".", "g", "o"} {
		in.Update(keyMsg(k))
	}
	if sub := press(in, "enter"); sub == nil || sub.Text != "@main.go" {
		t.Fatalf("enter on @main.go typed whole: sent %+v, text %q", sub, in.Value())
	}
}
