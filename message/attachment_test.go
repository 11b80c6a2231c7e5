package message

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func writePNG(t *testing.T, path string, w, h int) {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// An image is known by its content, whatever its name says; text is not
// attached, and the error says what it is.
func TestReadAttachmentSniffsTheContent(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "notes.txt") // a PNG named .txt
	writePNG(t, p, 64, 32)
	a, err := ReadAttachment(p)
	if err != nil {
		t.Fatal(err)
	}
	if a.Kind != AttachImage || a.MIME != "image/png" || a.Width != 64 || a.Height != 32 || a.Name != "notes.txt" || len(a.SHA256) != 64 || a.Size != int64(len(a.Data)) {
		t.Fatalf("attachment = %+v", a)
	}
	if got := a.Summary(); !strings.Contains(got, "64×32") || !strings.HasPrefix(got, "notes.txt (image, ") {
		t.Errorf("Summary = %q", got)
	}
	txt := filepath.Join(dir, "a.png")
	if err := os.WriteFile(txt, []byte("just text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAttachment(txt); err == nil || !strings.Contains(err.Error(), "not an image") || !strings.Contains(err.Error(), "text/plain") {
		t.Fatalf("err = %v", err)
	}
}

// A saved attachment read again: the same file gives its bytes; a changed
// or deleted one gives a sentence saying so, and no bytes.
func TestReloadSaysWhenTheFileChangedOrIsGone(t *testing.T) {
	p := filepath.Join(t.TempDir(), "shot.png")
	writePNG(t, p, 10, 10)
	a, err := ReadAttachment(p)
	if err != nil {
		t.Fatal(err)
	}
	saved := a
	saved.Data = nil
	if r := saved.Reload(); r.Missing != "" || !bytes.Equal(r.Data, a.Data) {
		t.Fatalf("unchanged file: %+v", r)
	}
	writePNG(t, p, 11, 10)
	if r := saved.Reload(); r.Data != nil || !strings.Contains(r.Missing, "has changed") {
		t.Fatalf("changed file: data %d bytes, missing %q", len(r.Data), r.Missing)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if r := saved.Reload(); r.Data != nil || !strings.Contains(r.Missing, "is gone") {
		t.Fatalf("deleted file: %q", r.Missing)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := saved.Reload(); r.Data != nil || !strings.Contains(r.Missing, "no longer a regular file") {
		t.Fatalf("a FIFO in its place: %q", r.Missing)
	}
}

// A directory or a FIFO is refused by name, never read (a FIFO would
// block).
func TestReadAttachmentRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadAttachment(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("dir: %v", err)
	}
	fifo := filepath.Join(dir, "p.png")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAttachment(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("fifo: %v", err)
	}
	if _, err := ReadAttachment(filepath.Join(dir, "none.png")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("missing: %v", err)
	}
}

// A file's size is checked before it is opened; what is read is bounded
// too, so a file that grows meanwhile is refused, not read whole.
func TestReadAtMostRefusesWhatGrewPastTheLimit(t *testing.T) {
	if b, err := readAtMost(strings.NewReader("12345"), 5); err != nil || string(b) != "12345" {
		t.Errorf("at the limit: %q %v", b, err)
	}
	b, err := readAtMost(strings.NewReader("123456"), 5)
	if err == nil || b != nil || !strings.Contains(err.Error(), "grew past 5 B while it was read") {
		t.Errorf("past the limit: %q %v", b, err)
	}
}
