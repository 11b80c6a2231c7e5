package tui

import (
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/ui/mention"
)

// gatedSource is the real workspace whose Attach, for the paths given a
// gate, waits until the test opens it: the files are "being read" for as
// long as the test wants. Each Attach call's path goes to called.
type gatedSource struct {
	*wsSource
	*gateSet
	panics bool // Attach panics (after its gate)
}

// gateSet holds named gates a test source waits at until the test opens
// them; each name passed goes to called.
type gateSet struct {
	gates  map[string]chan struct{}
	once   map[string]*sync.Once
	called chan string
}

// newGateSet makes the gates names; at the test's end all open, so no
// reader is left waiting.
func newGateSet(t *testing.T, names ...string) *gateSet {
	g := &gateSet{gates: map[string]chan struct{}{}, once: map[string]*sync.Once{}, called: make(chan string, 64)}
	for _, n := range names {
		g.gates[n] = make(chan struct{})
		g.once[n] = &sync.Once{}
	}
	t.Cleanup(g.openAll)
	return g
}

// open lets what waits at the gate name go on.
func (g *gateSet) open(name string) { g.once[name].Do(func() { close(g.gates[name]) }) }

func (g *gateSet) openAll() {
	for n := range g.gates {
		g.open(n)
	}
}

// pass says name was reached and waits at its gate, if it has one.
func (g *gateSet) pass(name string) {
	g.called <- name
	if c := g.gates[name]; c != nil {
		<-c
	}
}

func newGatedSource(t *testing.T, gated ...string) *gatedSource {
	t.Helper()
	return &gatedSource{wsSource: newWSSource(t), gateSet: newGateSet(t, gated...)}
}

func (s *gatedSource) Attach(p string, maxChars int) (mention.Attachment, error) {
	s.pass(p)
	if s.panics {
		panic("attach exploded")
	}
	return s.wsSource.Attach(p, maxChars)
}

// waitCalled waits until Attach was called for path.
func (s *gatedSource) waitCalled(t *testing.T, path string) {
	t.Helper()
	timeout := time.After(time.Minute) // a hang detector
	for {
		select {
		case p := <-s.called:
			if p == path {
				return
			}
		case <-timeout:
			t.Fatalf("Attach(%q) was never called", path)
		}
	}
}

// sendNoBlock sends msg and fails if the loop does not come back while the
// gates are closed (it would be reading the gated files itself). A blocked
// loop never comes back, so the minute is a hang detector, not a measure:
// the gates are opened then so the test ends instead of hanging.
func sendNoBlock(d *driver, src interface{ openAll() }, msg tea.Msg) {
	d.t.Helper()
	done := make(chan struct{})
	go func() { d.send(msg); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		src.openAll()
		<-done
		d.t.Fatal("the loop was blocked: a file read or a command run inside Update")
	}
}

// The files are read off the loop: the message shows and the UI answers
// keys while Attach blocks; then the attachments show and the request has
// the file.
func TestMentionReadDoesNotBlockTheLoop(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "read it"})
	src := newGatedSource(t, "main.go")
	d := newDriver(t, Options{Agent: f.ag, Mentions: src}, 100, 30)
	d.typeText("see @main.go")
	sendNoBlock(d, src, keyMsg("enter"))
	src.waitCalled(t, "main.go")
	s := d.screen()
	if !strings.Contains(s, "❯ see @main.go") || strings.Contains(s, "attached main.go") {
		t.Fatalf("while reading, the screen:\n%s", s)
	}
	if !d.app.running || !d.app.status.Busy() {
		t.Fatalf("while reading: running %v, spinner %v", d.app.running, d.app.status.Busy())
	}
	// The UI answers: a key typed now reaches the prompt and the frame.
	sendNoBlock(d, src, keyMsg("x"))
	// Not drain: the turn waits on the gated file. The key came right
	// after others, so it is gathered as a burst and inserted by a timer.
	d.until("the key in the prompt while the files are read", func() bool { return d.app.input.Value() == "x" })
	// On the prompt's line: "x" alone is in "sandbox", twice on the screen.
	if !strings.Contains(d.screen(), "❯ x") {
		t.Fatalf("the frame did not show the key:\n%s", d.screen())
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Fatalf("%d requests before the files were read", n)
	}
	src.open("main.go")
	d.until("the turn to end", func() bool { return d.idle() && strings.Contains(d.screen(), "read it") })
	s = d.screen()
	if !strings.Contains(s, "↳ attached main.go (1 line)") {
		t.Errorf("no attachment line:\n%s", s)
	}
	if i, j := strings.Index(s, "❯ see @main.go"), strings.Index(s, "↳ attached main.go"); i < 0 || j < i {
		t.Errorf("the attachment is not under the message:\n%s", s)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if got := reqs[0].LastUserMessage(); !strings.HasPrefix(got, "see @main.go\n\n"+mention.Intro) || !strings.Contains(got, `<attached-file path="main.go"`) {
		t.Errorf("the model got %q", got)
	}
}

// Cancelling while the files are read ends the turn as a cancelled turn
// ends: "Interrupted.", no request, what was queued back in the prompt;
// the read's late result is dropped, even when the next turn is reading
// its own files by then.
func TestMentionCancelWhileReading(t *testing.T) {
	for _, k := range []string{"ctrl+c", "esc"} {
		t.Run(k, func(t *testing.T) {
			f := newFixture(t)
			f.srv.Script(llmtest.Reply{Text: "second answer"})
			src := newGatedSource(t, "main.go", "ui/input.go")
			d := newDriver(t, Options{Agent: f.ag, Mentions: src}, 100, 30)
			d.typeText("see @main.go")
			sendNoBlock(d, src, keyMsg("enter"))
			src.waitCalled(t, "main.go")
			d.typeText("next @ui/input.go")
			sendNoBlock(d, src, keyMsg("enter"))
			if s := d.screen(); !strings.Contains(s, "queued: next @ui/input.go") {
				t.Fatalf("not queued:\n%s", s)
			}
			sendNoBlock(d, src, keyMsg(k))
			if d.app.running || d.app.status.Busy() {
				t.Fatalf("after %s: running %v, spinner %v", k, d.app.running, d.app.status.Busy())
			}
			if s := d.screen(); !strings.Contains(s, "Interrupted.") {
				t.Fatalf("no Interrupted.:\n%s", s)
			}
			if v := d.app.input.Value(); v != "next @ui/input.go" {
				t.Fatalf("the queued message is not back in the prompt: %q", v)
			}
			// The next message goes, and reads its own file.
			sendNoBlock(d, src, keyMsg("enter"))
			src.waitCalled(t, "ui/input.go")
			// The cancelled turn's read ends now: dropped.
			src.open("main.go")
			// The only read that can come back now is the cancelled one
			// (the next turn's file is still gated).
			d.until("the cancelled turn's read to come back", func() bool {
				return d.seen(func(m tea.Msg) bool { _, ok := m.(expandedMsg); return ok })
			})
			if n := len(f.srv.Requests()); n != 0 {
				t.Fatalf("the cancelled turn sent %d requests", n)
			}
			if s := d.screen(); strings.Contains(s, "attached main.go") || !d.app.running {
				t.Fatalf("the stale read was used (running %v):\n%s", d.app.running, s)
			}
			src.open("ui/input.go")
			d.until("the next turn", func() bool { return d.idle() && strings.Contains(d.screen(), "second answer") })
			reqs := f.srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			got := reqs[0].LastUserMessage()
			if !strings.HasPrefix(got, "next @ui/input.go\n\n") || !strings.Contains(got, `path="ui/input.go"`) || strings.Contains(got, `path="main.go"`) {
				t.Errorf("the model got %q", got)
			}
			if s := d.screen(); strings.Count(s, "Interrupted.") != 1 || !strings.Contains(s, "↳ attached ui/input.go") {
				t.Errorf("screen:\n%s", s)
			}
		})
	}
}

// A message without a mention starts the agent's turn in the Update that
// sends it: no command round trip first.
func TestNoMentionStartsAtOnce(t *testing.T) {
	f := newFixture(t)
	// Not "hi": the prompt's placeholder ("Ask co anything …") holds it.
	f.srv.Script(llmtest.Reply{Text: "the reply to the mail"})
	src := newGatedSource(t)
	d := newDriver(t, Options{Agent: f.ag, Mentions: src}, 100, 30)
	d.typeText("mail a@b.com")
	d.key("enter")
	if d.app.pump == nil || d.app.cancel == nil || d.app.reading {
		t.Fatalf("the turn did not start in the Update: pump %v, reading %v", d.app.pump != nil, d.app.reading)
	}
	d.until("the reply", func() bool { return d.idle() && strings.Contains(d.screen(), "the reply to the mail") })
	if got := f.srv.Requests()[0].LastUserMessage(); got != "mail a@b.com" {
		t.Errorf("sent %q", got)
	}
}

// A panic while reading the files ends the turn with an error; the chat
// goes on.
func TestMentionReadPanicEndsTheTurn(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "after"})
	src := newGatedSource(t)
	src.panics = true
	d := newDriver(t, Options{Agent: f.ag, Mentions: src}, 100, 30)
	d.typeText("see @main.go")
	d.key("enter")
	d.until("the turn to end", d.idle)
	if s := d.screen(); !strings.Contains(s, "attach exploded") {
		t.Fatalf("no error shown:\n%s", s)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Fatalf("%d requests", n)
	}
	d.typeText("plain")
	d.key("enter")
	d.until("the next turn", func() bool { return d.idle() && strings.Contains(d.screen(), "after") })
}
