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

// mediaPath finds an image in the workspace or outside it (absolute),
// leaves text to the text path, and never opens what is not a regular
// file (a FIFO's open would block the chat).
func TestMediaPathFindsOnlyRegularImageFiles(t *testing.T) {
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
	if abs, ok := mediaPath(ws, "in.png"); !ok || abs != filepath.Join(ws, "in.png") {
		t.Fatalf("in.png: %q %v", abs, ok)
	} else if a, err := (mentionSource{}).ReadMedia(abs); err != nil || a.Width != 2 {
		t.Fatalf("in.png read: %+v %v", a, err)
	}
	if abs, ok := mediaPath(ws, filepath.Join(out, "out.png")); !ok || abs != filepath.Join(out, "out.png") {
		t.Fatalf("out.png: %q %v", abs, ok)
	}
	for _, p := range []string{"t.txt", "missing.png", "pipe.png", "."} {
		if abs, ok := mediaPath(ws, p); ok {
			t.Errorf("%s: found as %q", p, abs)
		}
	}
}
