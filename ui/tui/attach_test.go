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

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/lib/media"
	"github.com/co-cli/co/message"
)

// A resumed session shows what each message had attached (name, size,
// pixels), the file name sanitised; never the bytes.
func TestResumedSessionShowsItsImages(t *testing.T) {
	f := newFixture(t)
	f.ag.Restore([]message.Message{
		{Role: message.RoleUser, Content: "what is in it?", Attachments: []message.Attachment{
			{Kind: message.AttachImage, Name: "shot\x1b[31m.png", Path: "/x/shot.png", MIME: "image/png", Size: 90 << 10, Width: 640, Height: 480, SHA256: "ab"},
			{Kind: message.AttachPDF, Name: "report.pdf", Path: "/x/report.pdf", MIME: "application/pdf", Size: 2 << 20, SHA256: "cd"},
		}},
		{Role: message.RoleAssistant, Content: "A chart."},
	}, message.Usage{}, 1)
	d := newDriver(t, Options{Agent: f.ag}, 100, 30)
	s := d.screen()
	for _, want := range []string{"what is in it?", "attached shot␛[31m.png (image, 90 KB, 640×480)", "attached report.pdf (PDF, 2.0 MB)", "A chart."} {
		if !strings.Contains(s, want) {
			t.Errorf("resumed transcript lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(d.app.View().Content, "shot\x1b[31m") {
		t.Error("an escape sequence from a file name reached the screen raw")
	}
}

// mediaWS is wsSource that also attaches images and PDFs, as
// internal/cli's source does: a file whose content is one.
type mediaWS struct{ *wsSource }

func (s mediaWS) MediaPath(p string) (string, bool) {
	full := p
	if !filepath.IsAbs(p) {
		full = filepath.Join(s.w.Dir(), p)
	}
	b, err := os.ReadFile(full)
	if err != nil {
		return "", false
	}
	if k, _ := media.Sniff(b); k == "" {
		return "", false
	}
	return full, true
}

func (mediaWS) ReadMedia(abs string) (message.Attachment, error) {
	return message.ReadAttachment(abs)
}

// An @path typed out whole to an image goes with the message as an
// image: the transcript says what was attached, the request carries it,
// and the text keeps the @path as typed.
func TestTypedMentionOfAnImageSendsIt(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "A grey square."})
	src := newWSSource(t)
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 6, 4))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src.w.Dir(), "pic.png"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, Options{Agent: f.ag, Mentions: mediaWS{src}}, 100, 30)
	d.typeText("what is @pic.png")
	d.key("esc") // close the @ list, keep the text
	d.key("enter")
	d.until("the turn to end", d.idle)
	d.drain()
	s := d.screen()
	for _, want := range []string{"↳ attached pic.png (image, ", "6×4)", "A grey square."} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	msgs := f.srv.Requests()[0].Messages()
	parts := msgs[len(msgs)-1].Parts()
	if len(parts) != 2 || parts[0].Text != "what is @pic.png" || parts[1].ImageURL == nil ||
		parts[1].ImageURL.URL != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(b.Bytes()) {
		t.Fatalf("parts = %+v", parts)
	}
}
