package tui

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/message"
)

// gatedMedia is the real workspace's images and PDFs (mediaWS) whose
// checks ("check NAME") and reads ("read NAME"), for the ones given a
// gate, wait until the test opens it: a file on a slow disk, for as long
// as the test wants. Each check and read says so on called as it starts.
type gatedMedia struct {
	mediaWS
	*gateSet
	panics bool // ReadMedia panics (after its gate)
}

func newGatedMedia(t *testing.T, gated ...string) *gatedMedia {
	t.Helper()
	return &gatedMedia{mediaWS: mediaWS{newWSSource(t)}, gateSet: newGateSet(t, gated...)}
}

func (g *gatedMedia) MediaPath(p string) (string, bool) {
	g.pass("check " + filepath.Base(p))
	return g.mediaWS.MediaPath(p)
}

func (g *gatedMedia) ReadMedia(abs string) (message.Attachment, error) {
	g.pass("read " + filepath.Base(abs))
	if g.panics {
		panic("read exploded")
	}
	return g.mediaWS.ReadMedia(abs)
}

// waitCalled waits until the check or read gate has started.
func (g *gatedMedia) waitCalled(t *testing.T, gate string) {
	t.Helper()
	timeout := time.After(time.Minute) // a hang detector
	for {
		select {
		case c := <-g.called:
			if c == gate {
				return
			}
		case <-timeout:
			t.Fatalf("%s never started", gate)
		}
	}
}

// image writes a w×h PNG at name in the workspace: its path and bytes.
func (g *gatedMedia) image(t *testing.T, name string, w, h int) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(g.w.Dir(), name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, b.Bytes()
}

// imagesSent are the data URLs of the images on r's last message.
func imagesSent(r llmtest.Request) []string {
	msgs := r.Messages()
	var out []string
	for _, p := range msgs[len(msgs)-1].Parts() {
		if p.ImageURL != nil {
			out = append(out, p.ImageURL.URL)
		}
	}
	return out
}

func dataURL(b []byte) string { return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b) }

// transcript is the chat's entries as text, each whole (the screen wraps
// long notices).
func (d *driver) transcript() string {
	var b strings.Builder
	for _, e := range d.app.chat.entries {
		b.WriteString(e.plain())
		b.WriteByte('\n')
	}
	return b.String()
}

func isMediaRead(m tea.Msg) bool { _, ok := m.(mediaReadMsg); return ok }

// A pasted image is read off the loop: Update returns while the read is
// blocked, the line above the input says it is being read, and Enter
// then does not send without it: the message waits, saying so, and goes
// with the image once it is read; one sent after it goes after it.
func TestPastedImageIsReadOffTheLoop(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "A grey square."}, llmtest.Reply{Text: "Then nothing."})
	g := newGatedMedia(t, "read pic.png")
	pic, data := g.image(t, "pic.png", 6, 4)
	d := newDriver(t, Options{Agent: f.ag, Mentions: g}, 100, 30)
	sendNoBlock(d, g, tea.PasteMsg{Content: pic})
	d.until("the reading line", func() bool { return strings.Contains(d.screen(), "📎 pic.png (reading…)  · ctrl+x removes") })
	g.waitCalled(t, "read pic.png") // and it stays blocked until opened
	d.typeText("what is it")
	sendNoBlock(d, g, keyMsg("enter"))
	d.until("the message to wait", func() bool {
		return strings.Contains(d.screen(), "⏳ sends once pic.png is read: what is it  📎 1")
	})
	if d.app.running || d.app.input.Value() != "" || len(f.srv.Requests()) != 0 {
		t.Fatalf("sent before the image was read: running %v, input %q, %d requests", d.app.running, d.app.input.Value(), len(f.srv.Requests()))
	}
	// A message sent next waits behind it, in order.
	d.typeText("and then?")
	sendNoBlock(d, g, keyMsg("enter"))
	d.until("the next message queued", func() bool { return strings.Contains(d.screen(), "⏳ queued: and then?") })
	// The UI answers while the file is read: a key reaches the prompt.
	sendNoBlock(d, g, keyMsg("x"))
	d.until("the key in the prompt", func() bool { return d.app.input.Value() == "x" })
	g.open("read pic.png")
	d.until("both replies", func() bool { return d.idle() && strings.Contains(d.screen(), "Then nothing.") })
	s := d.screen()
	i, j, k := strings.Index(s, "❯ what is it"), strings.Index(s, "↳ attached pic.png (image, "), strings.Index(s, "❯ and then?")
	if i < 0 || j < i || k < j || !strings.Contains(s, "6×4)") {
		t.Errorf("the messages and the image are not shown in order:\n%s", s)
	}
	if strings.Contains(s, "📎") || strings.Contains(s, "⏳") {
		t.Errorf("still shown as pending or waiting:\n%s", s)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if imgs := imagesSent(reqs[0]); len(imgs) != 1 || imgs[0] != dataURL(data) || reqs[0].LastUserMessage() != "what is it" {
		t.Fatalf("first request: %q with %d images", reqs[0].LastUserMessage(), len(imgs))
	}
	if got := reqs[1].LastUserMessage(); got != "and then?" {
		t.Fatalf("second request: %q", got)
	}
	if v := d.app.input.Value(); v != "x" {
		t.Errorf("the key typed while waiting is lost: %q", v)
	}
}

// Ctrl+X removes an image still being read; what its read brings back
// later is dropped, and the message goes without it.
func TestCtrlXRemovesAnImageBeingRead(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "No image."})
	g := newGatedMedia(t, "read pic.png")
	pic, _ := g.image(t, "pic.png", 6, 4)
	d := newDriver(t, Options{Agent: f.ag, Mentions: g}, 100, 30)
	sendNoBlock(d, g, tea.PasteMsg{Content: pic})
	d.until("the reading line", func() bool { return strings.Contains(d.screen(), "📎 pic.png (reading…)") })
	sendNoBlock(d, g, keyMsg("ctrl+x"))
	if s := d.screen(); strings.Contains(s, "pic.png") {
		t.Fatalf("ctrl+x did not remove the image being read:\n%s", s)
	}
	g.open("read pic.png")
	d.until("the read to come back", func() bool { return d.seen(isMediaRead) })
	if s := d.screen(); strings.Contains(s, "pic.png") || len(d.app.pending) != 0 {
		t.Fatalf("the removed image came back:\n%s", s)
	}
	d.typeText("anything?")
	d.key("enter")
	d.until("the reply", func() bool { return d.idle() && strings.Contains(d.screen(), "No image.") })
	if imgs := imagesSent(f.srv.Requests()[0]); len(imgs) != 0 {
		t.Fatalf("%d images sent after ctrl+x", len(imgs))
	}
}

// A file that vanished or changed between being pasted and being read is
// not sent: a notice names it and says what is wrong, and the message
// that waited for it comes back to the input, its other attachments above
// it, with the one queued after it (which would otherwise go first);
// nothing was sent. Sent again, it goes.
func TestAttachmentThatFailsToReadKeepsTheMessage(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "Just the square."})
	g := newGatedMedia(t, "read gone.png", "read changed.png", "read ok.png")
	gone, _ := g.image(t, "gone.png", 2, 2)
	changed, _ := g.image(t, "changed.png", 3, 3)
	ok, data := g.image(t, "ok.png", 4, 4)
	extra, extraData := g.image(t, "extra.png", 5, 5)
	d := newDriver(t, Options{Agent: f.ag, Mentions: g}, 120, 30)
	sendNoBlock(d, g, tea.PasteMsg{Content: gone + " " + changed + " " + ok})
	d.until("three reading lines", func() bool { return strings.Count(d.screen(), "(reading…)") == 3 })
	d.typeText("compare them")
	sendNoBlock(d, g, keyMsg("enter"))
	d.until("the message to wait", func() bool { return strings.Contains(d.screen(), "⏳ sends once gone.png is read: compare them") })
	sendNoBlock(d, g, tea.PasteMsg{Content: extra})
	d.until("the next message's image", func() bool { return strings.Contains(d.screen(), "📎 extra.png (image, ") })
	d.typeText("and say which")
	sendNoBlock(d, g, keyMsg("enter"))
	d.until("the next message queued", func() bool { return strings.Contains(d.screen(), "⏳ queued: and say which  📎 1") })
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(changed, []byte("now some text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.open("read ok.png")
	g.open("read gone.png")
	d.until("the messages back in the input", func() bool { return d.app.input.Value() == "compare them\nand say which" })
	g.open("read changed.png")
	d.until("every read back", func() bool { return unread(d.app.pending) == nil && len(d.app.pending) == 2 })
	tr, s := d.transcript(), d.screen()
	for _, want := range []string{
		"not attached: " + gone + ": no such file",
		"not attached: " + changed + " is not an image (PNG, JPEG, GIF, WebP) or a PDF",
		"Not sent: gone.png could not be read, nor the message queued after it. Your message is back in the input (its attachments above it)",
	} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript lacks %q:\n%s", want, tr)
		}
	}
	for _, want := range []string{"📎 ok.png (image, ", "📎 extra.png (image, ", "❯ compare them", "  and say which"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Index(s, "📎 ok.png") > strings.Index(s, "📎 extra.png") {
		t.Errorf("the attachments came back out of order:\n%s", s)
	}
	if d.app.running || len(d.app.queue) != 0 || len(f.srv.Requests()) != 0 {
		t.Fatalf("sent without its attachments: running %v, queued %d, %d requests", d.app.running, len(d.app.queue), len(f.srv.Requests()))
	}
	d.key("enter")
	d.until("the reply", func() bool { return d.idle() && strings.Contains(d.screen(), "Just the square.") })
	reqs := f.srv.Requests()
	if imgs := imagesSent(reqs[0]); len(imgs) != 2 || imgs[0] != dataURL(data) || imgs[1] != dataURL(extraData) || reqs[0].LastUserMessage() != "compare them\nand say which" {
		t.Fatalf("sent %q with %d images", reqs[0].LastUserMessage(), len(imgs))
	}
}

// A panic while reading a file is shown, the message that waited for it
// comes back, and the chat goes on.
func TestAttachmentReadPanicIsShown(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "after"})
	g := newGatedMedia(t, "read pic.png")
	g.panics = true
	pic, _ := g.image(t, "pic.png", 6, 4)
	d := newDriver(t, Options{Agent: f.ag, Mentions: g}, 100, 30)
	sendNoBlock(d, g, tea.PasteMsg{Content: pic})
	d.typeText("look")
	sendNoBlock(d, g, keyMsg("enter"))
	d.until("the message to wait", func() bool { return strings.Contains(d.screen(), "⏳ sends once pic.png is read: look") })
	g.open("read pic.png")
	d.until("the message back", func() bool { return d.app.input.Value() == "look" })
	if tr := d.transcript(); !strings.Contains(tr, "panicked: read exploded") || !strings.Contains(tr, "Not sent: pic.png could not be read.") || strings.Contains(d.screen(), "📎") {
		t.Fatalf("transcript:\n%s\nscreen:\n%s", tr, d.screen())
	}
	d.key("enter")
	d.until("the next turn", func() bool { return d.idle() && strings.Contains(d.screen(), "after") })
}

// Pasting a path is checked off the loop too (a stat and the first bytes:
// is it an image?). Keys typed meanwhile wait and come after it, in
// order, Enter included: the message goes with the image.
func TestKeysAfterAPasteWaitForItsCheck(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "Seen."})
	g := newGatedMedia(t, "check pic.png")
	pic, data := g.image(t, "pic.png", 6, 4)
	d := newDriver(t, Options{Agent: f.ag, Mentions: g}, 100, 30)
	sendNoBlock(d, g, tea.PasteMsg{Content: pic})
	g.waitCalled(t, "check pic.png")
	for _, k := range []string{"o", "k", "?", "enter"} {
		sendNoBlock(d, g, keyMsg(k))
	}
	// Slow to answer: said above the input, with how to give up.
	d.until("the checking line", func() bool {
		return strings.Contains(d.screen(), "📎 checking pic.png…  · ctrl+c takes it as text")
	})
	if v := d.app.input.Value(); v != "" || d.app.running {
		t.Fatalf("a key went ahead of the paste: input %q, running %v", v, d.app.running)
	}
	g.open("check pic.png")
	d.until("the reply", func() bool { return d.idle() && strings.Contains(d.screen(), "Seen.") })
	r := f.srv.Requests()[0]
	if imgs := imagesSent(r); len(imgs) != 1 || imgs[0] != dataURL(data) || r.LastUserMessage() != "ok?" {
		t.Fatalf("sent %q with %d images", r.LastUserMessage(), len(imgs))
	}
}

// Ctrl+C while a pasted path is checked gives up: the paste goes into the
// input as text, the keys held after it follow.
func TestCtrlCTakesAPasteBeingCheckedAsText(t *testing.T) {
	f := newFixture(t)
	g := newGatedMedia(t, "check pic.png")
	pic, _ := g.image(t, "pic.png", 6, 4)
	d := newDriver(t, Options{Agent: f.ag, Mentions: g}, 100, 30)
	sendNoBlock(d, g, tea.PasteMsg{Content: pic})
	g.waitCalled(t, "check pic.png")
	sendNoBlock(d, g, keyMsg("space"))
	sendNoBlock(d, g, keyMsg("ctrl+c"))
	d.until("the paste and the key in the input", func() bool { return d.app.input.Value() == pic+" " })
	g.open("check pic.png")
	d.until("the check to come back", func() bool {
		return d.seen(func(m tea.Msg) bool { _, ok := m.(probedMsg); return ok })
	})
	if len(d.app.pending) != 0 || d.app.input.Value() != pic+" " {
		t.Fatalf("the given-up check was used: %d pending, input %q", len(d.app.pending), d.app.input.Value())
	}
}

// Choosing an image in the @ list attaches it (read off the loop);
// choosing a text file puts @path in the text.
func TestMentionListChoiceOfAnImageIsAttached(t *testing.T) {
	f := newFixture(t)
	g := newGatedMedia(t, "read chart.png")
	g.image(t, "chart.png", 8, 8)
	d := newDriver(t, Options{Agent: f.ag, Mentions: g}, 100, 30)
	d.typeText("@chart")
	d.until("the list", func() bool { return strings.Contains(d.screen(), "▸ @chart.png") })
	sendNoBlock(d, g, keyMsg("tab"))
	d.until("the reading line", func() bool { return strings.Contains(d.screen(), "📎 chart.png (reading…)") })
	if v := d.app.input.Value(); v != "" {
		t.Fatalf("the chosen image went into the text: %q", v)
	}
	g.open("read chart.png")
	d.until("the read", func() bool { return strings.Contains(d.screen(), "📎 chart.png (image, ") })
	d.typeText("see @main")
	d.until("the list", func() bool { return strings.Contains(d.screen(), "▸ @main.go") })
	d.key("tab")
	d.drain()
	if v := d.app.input.Value(); v != "see @main.go " {
		t.Fatalf("a text file's choice: %q", v)
	}
}

// Esc or Ctrl+C while a message waits for its attachments takes it back:
// the text into the input, the image (still being read) above it; nothing
// is sent when the read ends.
func TestCancelAMessageWaitingForItsAttachments(t *testing.T) {
	for _, k := range []string{"esc", "ctrl+c"} {
		t.Run(k, func(t *testing.T) {
			f := newFixture(t)
			g := newGatedMedia(t, "read pic.png")
			pic, _ := g.image(t, "pic.png", 6, 4)
			d := newDriver(t, Options{Agent: f.ag, Mentions: g}, 100, 30)
			sendNoBlock(d, g, tea.PasteMsg{Content: pic})
			d.typeText("hello")
			sendNoBlock(d, g, keyMsg("enter"))
			d.until("the message to wait", func() bool { return strings.Contains(d.screen(), "⏳ sends once pic.png is read: hello") })
			sendNoBlock(d, g, keyMsg(k))
			if s := d.screen(); d.app.input.Value() != "hello" || len(d.app.queue) != 0 || !strings.Contains(s, "📎 pic.png (reading…)") {
				t.Fatalf("after %s: input %q, queued %d:\n%s", k, d.app.input.Value(), len(d.app.queue), s)
			}
			g.open("read pic.png")
			d.until("the read", func() bool { return strings.Contains(d.screen(), "📎 pic.png (image, ") })
			if d.app.running || len(f.srv.Requests()) != 0 || d.app.input.Value() != "hello" {
				t.Fatalf("sent after %s: running %v, %d requests, input %q", k, d.app.running, len(f.srv.Requests()), d.app.input.Value())
			}
		})
	}
}

// An image typed as @path is read when the message goes, off the loop
// too: the message shows and the UI answers while the read is blocked.
func TestTypedImageMentionIsReadOffTheLoop(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "A grey square."})
	g := newGatedMedia(t, "read pic.png")
	_, data := g.image(t, "pic.png", 6, 4)
	d := newDriver(t, Options{Agent: f.ag, Mentions: g}, 100, 30)
	d.typeText("what is @pic.png")
	d.key("esc") // close the @ list, keep the text
	sendNoBlock(d, g, keyMsg("enter"))
	g.waitCalled(t, "read pic.png")
	if s := d.screen(); !strings.Contains(s, "❯ what is @pic.png") || len(f.srv.Requests()) != 0 {
		t.Fatalf("while reading, %d requests, the screen:\n%s", len(f.srv.Requests()), s)
	}
	sendNoBlock(d, g, keyMsg("x"))
	d.until("the key in the prompt", func() bool { return d.app.input.Value() == "x" })
	g.open("read pic.png")
	d.until("the reply", func() bool { return d.idle() && strings.Contains(d.screen(), "A grey square.") })
	if imgs := imagesSent(f.srv.Requests()[0]); len(imgs) != 1 || imgs[0] != dataURL(data) {
		t.Fatalf("images sent: %d", len(imgs))
	}
}
