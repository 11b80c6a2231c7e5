package pathsafe

import "testing"

// BenchmarkReadFile reads a small file: the fast path (one lstat, then the
// os.Root open) and, through a symlink, the explaining slow path.
func BenchmarkReadFile(b *testing.B) {
	r, _, _ := tree(b)
	for _, p := range []string{"sub/deep/b.txt", "chain1"} {
		b.Run(p, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, _, err := r.ReadFile(p, 1<<20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkClean(b *testing.B) {
	r, _, _ := tree(b)
	for i := 0; i < b.N; i++ {
		if _, err := r.Clean("src/pkg/../internal/./file.go"); err != nil {
			b.Fatal(err)
		}
	}
}
