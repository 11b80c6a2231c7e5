package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// What co run reads as data beside a prompt: a pipe, a file; not a
// terminal, /dev/null or a closed standard input.
func TestStdinPiped(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	file := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(file, []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	closed, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptm.Close()
	defer tty.Close()
	for _, c := range []struct {
		name string
		in   io.Reader
		want bool
	}{
		{"a pipe", r, true},
		{"a file", f, true},
		{"a reader", strings.NewReader("x"), true},
		{"/dev/null", null, false},
		{"a terminal", tty, false},
		{"closed", closed, false},
	} {
		if got := stdinPiped(c.in); got != c.want {
			t.Errorf("%s: stdinPiped = %v, want %v", c.name, got, c.want)
		}
	}
}
