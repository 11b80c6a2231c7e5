package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Listing a 20,000-file tree (the cap) for @ completion; it runs in the
// background, once per 30 s at most.
func BenchmarkFiles20000(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.tmp\nbuild/\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range 20000 {
		d := filepath.Join(dir, fmt.Sprintf("pkg%02d", i%40), fmt.Sprintf("sub%02d", i%25))
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.go", i)), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	w, err := New(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	for b.Loop() {
		f, _, err := w.Files(context.Background(), 0)
		if err != nil || len(f) != 20000 {
			b.Fatalf("%d files, %v", len(f), err)
		}
	}
}
