package telemetry_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/telemetry"
)

// An attached image reaches the span store as its name, type, size and
// hash only: neither its bytes nor their base64 are in the SQLite file,
// even with content capture on.
func TestAttachmentBytesNeverReachTheSpanStore(t *testing.T) {
	r := newRig(t, telemetry.Options{CaptureContent: true})
	r.srv.Script(llmtest.Reply{Text: "A square."})
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		img.Pix[i] = byte(i*31 + 7)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "square.png")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	at, err := message.ReadAttachment(p)
	if err != nil {
		t.Fatal(err)
	}
	for range r.ag.SubmitAttached(context.Background(), "what is it?", "", []message.Attachment{at}) {
	}
	if err := r.tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.srv.Requests()[0].Raw), base64.StdEncoding.EncodeToString(at.Data)[:64]) {
		t.Fatal("the image was not sent: the test proves nothing")
	}
	root := byName(t, readRows(t, r.path), "invoke_agent")[0]
	if !strings.Contains(root.attributes, "square.png image/png") || !strings.Contains(root.attributes, "sha256:"+at.SHA256) {
		t.Fatalf("invoke_agent attributes lack the attachment: %s", root.attributes)
	}
	raw, err := os.ReadFile(r.path)
	if err != nil {
		t.Fatal(err)
	}
	if wal, err := os.ReadFile(r.path + "-wal"); err == nil {
		raw = append(raw, wal...)
	}
	b64 := base64.StdEncoding.EncodeToString(at.Data)
	if bytes.Contains(raw, at.Data[16:80]) || bytes.Contains(raw, []byte(b64[24:120])) {
		t.Fatal("the image's bytes are in the span store")
	}
}
