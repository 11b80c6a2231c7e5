package mention

import (
	"fmt"
	"testing"
)

// Ranking runs on the chat's loop at each key typed after "@": a full list
// (MaxMentionFiles, 20,000 paths) must rank well under a frame.
func BenchmarkRank20000(b *testing.B) {
	files := make([]string, 0, 20000)
	for i := range 20000 {
		files = append(files, fmt.Sprintf("pkg%02d/sub%03d/module_%05d_handler.go", i%37, i%211, i))
	}
	for _, q := range []string{"", "h", "hand", "pkg1/sub2/mod"} {
		b.Run(fmt.Sprintf("q=%q", q), func(b *testing.B) {
			for b.Loop() {
				Rank(files, q, 6)
			}
		})
	}
}
