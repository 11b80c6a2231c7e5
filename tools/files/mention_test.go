package files

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFilesListsWhatTheWalkerSees(t *testing.T) {
	w, dir := ws(t, map[string]string{
		".gitignore":       "build/\n*.log\n",
		"main.go":          "package main\n",
		"sub/a.txt":        "a\n",
		"sub/debug.log":    "x\n",
		"build/out.bin":    "x\n",
		".git/config":      "[core]\n",
		"sub/.gitignore":   "secret.txt\n",
		"sub/secret.txt":   "s\n",
		"docs/guide/x.md":  "# x\n",
		"docs/guide/y.md":  "# y\n",
		"node/.keep":       "",
		"sub/deeper/b.txt": "b\n",
	})
	if err := os.Symlink("main.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	got, more, err := w.Files(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "docs/guide/x.md", "docs/guide/y.md", "main.go", "node/.keep", "sub/.gitignore", "sub/a.txt", "sub/deeper/b.txt"}
	if !reflect.DeepEqual(got, want) || more {
		t.Errorf("Files = %q (more %v), want %q", got, more, want)
	}
	got, more, err = w.Files(context.Background(), 3)
	if err != nil || len(got) != 3 || !more {
		t.Errorf("Files(limit 3) = %q, more %v, %v; want 3 files and more", got, more, err)
	}
}

func TestAttachReadsAsReadFileDoes(t *testing.T) {
	long := strings.Repeat("0123456789\n", 5000) // 55,000 characters
	w, dir := ws(t, map[string]string{
		"a.go":     "package a\n\nfunc A() {}\n",
		"long.txt": long,
		"bin.dat":  "ab\x00cd",
		"d/x.txt":  "x",
		"empty":    "",
	})
	a, err := w.Attach("a.go", 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.Path != "a.go" || a.Lines != 3 || a.Shown != 3 || a.Truncated || a.Text != "1\tpackage a\n2\t\n3\tfunc A() {}" {
		t.Errorf("Attach(a.go) = %+v", a)
	}
	// The same text read_file gives.
	r := mustRun(t, w, "read_file", map[string]any{"path": "a.go"})
	if r.Display != a.Text {
		t.Errorf("read_file gave %q, Attach %q", r.Display, a.Text)
	}
	a, err = w.Attach("./long.txt", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if a.Path != "long.txt" || a.Lines != 5000 || a.Shown < 50 || a.Shown > 70 || !a.Truncated || len([]rune(a.Text)) > 1200 || !strings.Contains(a.Text, "continue with start_line=") {
		t.Errorf("Attach(long.txt, 1000) = %+v (%d chars)", a.Path, len(a.Text))
	}
	if a, err := w.Attach("empty", 0); err != nil || a.Lines != 0 {
		t.Errorf("Attach(empty) = %+v, %v", a, err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "outside.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../outside.txt", filepath.Join(dir, "out.txt")); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		"nope.txt":       "does not exist",
		"../outside.txt": "outside",
		"out.txt":        "outside",
		"/etc/passwd":    "absolute",
		"d":              "directory",
		".":              "directory",
		"bin.dat":        "binary",
	} {
		_, err := w.Attach(p, 0)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Attach(%q) = %v, want an error saying %q", p, err, want)
		}
	}
}
