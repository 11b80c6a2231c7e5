package tui

import (
	"strings"
	"testing"

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
