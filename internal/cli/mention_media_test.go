package cli

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// mediaAt attaches an image in the workspace or outside it (absolute),
// leaves text to the text path, and never opens what is not a regular
// file (a FIFO's open would block the chat).
func TestMediaAtReadsOnlyRegularImageFiles(t *testing.T) {
	ws, out := t.TempDir(), t.TempDir()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(ws, "in.png"), filepath.Join(out, "out.png")} {
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "t.txt"), []byte("text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe.png"), 0o644); err != nil {
		t.Fatal(err)
	}
	if a, ok, err := mediaAt(ws, "in.png"); !ok || err != nil || a.Width != 2 {
		t.Fatalf("in.png: %+v %v %v", a, ok, err)
	}
	if a, ok, err := mediaAt(ws, filepath.Join(out, "out.png")); !ok || err != nil || a.Path != filepath.Join(out, "out.png") {
		t.Fatalf("out.png: %+v %v %v", a, ok, err)
	}
	for _, p := range []string{"t.txt", "missing.png", "pipe.png", "."} {
		if _, ok, err := mediaAt(ws, p); ok || err != nil {
			t.Errorf("%s: ok %v, err %v", p, ok, err)
		}
	}
}
