package memory

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchWords is a vocabulary of made-up words with a Zipf-like use: a few
// common, most rare, as in real notes.
func benchWords(n int) []string {
	rng := rand.New(rand.NewPCG(7, 7))
	syll := []string{"ka", "lo", "mi", "ter", "an", "go", "ru", "sel", "po", "vin", "da", "rex", "ol", "bu", "zen", "ti"}
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for k := 2 + rng.IntN(3); k > 0; k-- {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		out[i] = b.String() + fmt.Sprint(i%97)
	}
	return out
}

func sentence(rng *rand.Rand, z *rand.Zipf, words []string, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = words[z.Uint64()]
	}
	return strings.Join(parts, " ")
}

// BenchmarkRecall10k is one turn's recall (pinned memories, the ranked
// search, marking them used) against 10,000 memories; p50-ms and p99-ms
// are the per-turn latencies.
func BenchmarkRecall10k(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), FileName), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	words := benchWords(5000)
	rng := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(rng, 1.1, 2, uint64(len(words)-1))
	tx, _ := s.db.Begin()
	for i := range 10000 {
		c := sentence(rng, z, words, 8+rng.IntN(20))
		res, err := tx.Exec(`INSERT INTO memories (id, content, created_at, updated_at, pinned) VALUES (?, ?, ?, ?, ?)`, fmt.Sprintf("%08x", i), c, i, i, btoi(i%2000 == 0))
		if err != nil {
			b.Fatal(err)
		}
		row, _ := res.LastInsertId()
		if _, err := tx.Exec(`INSERT INTO memories_fts (docid, content, tags) VALUES (?, ?, '')`, row, c); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	prompts := make([]string, 256)
	for i := range prompts {
		prompts[i] = "please help me with " + sentence(rng, z, words, 6+rng.IntN(20)) + " today"
	}
	var lat []time.Duration
	recalled := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		ms, err := s.Recall(prompts[i%len(prompts)])
		lat = append(lat, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		recalled += len(ms)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(recalled)/float64(len(lat)), "recalled/turn")
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}
