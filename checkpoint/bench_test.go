package checkpoint

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// benchWorkspace makes n files of 1 KiB in folders of 100, their mtimes
// an hour old, and a store that has scanned them at rest.
func benchWorkspace(b *testing.B, n int) (*Store, string) {
	s, ws := newStore(b, Options{})
	old := time.Now().Add(-time.Hour)
	body := make([]byte, 1024)
	for i := range n {
		p := filepath.Join(ws, "d"+strconv.Itoa(i/100), "f"+strconv.Itoa(i)+".txt")
		if i%100 == 0 {
			must(b, os.MkdirAll(filepath.Dir(p), 0o755))
		}
		body[0] = byte(i)
		body[1] = byte(i >> 8)
		must(b, os.WriteFile(p, body, 0o644))
		must(b, os.Chtimes(p, old, old))
	}
	// Files just written are racy (their ctime is now) and hashed again by
	// the next scan; a workspace at rest is not: scan it once more after
	// the racy window, as a turn an hour later would.
	for _, id := range []string{"warm", "rest"} {
		must(b, s.Begin(id))
		_, err := s.End(id)
		must(b, err)
		if id == "warm" {
			time.Sleep(racyWindow)
		}
	}
	return s, ws
}

// BenchmarkTurn is Begin+End of one turn: with nothing changed, and with
// five files rewritten during the turn.
func BenchmarkTurn(b *testing.B) {
	for _, n := range []int{2_000, 20_000} {
		for _, changed := range []int{0, 5} {
			b.Run(strconv.Itoa(n)+"files/"+strconv.Itoa(changed)+"changed", func(b *testing.B) {
				s, ws := benchWorkspace(b, n)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					id := "t" + strconv.Itoa(i)
					if err := s.Begin(id); err != nil {
						b.Fatal(err)
					}
					for j := range changed {
						p := filepath.Join(ws, "d"+strconv.Itoa(j), "f"+strconv.Itoa(j*100)+".txt")
						if err := os.WriteFile(p, []byte("turn "+id), 0o644); err != nil {
							b.Fatal(err)
						}
					}
					if _, err := s.End(id); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkBareWalk is the floor a scan stands on: a walk that lstats
// every entry and keeps nothing, twice (Begin and End each scan once).
func BenchmarkBareWalk(b *testing.B) {
	for _, n := range []int{2_000, 20_000} {
		b.Run(strconv.Itoa(n)+"files", func(b *testing.B) {
			_, ws := benchWorkspace(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				for range 2 {
					must(b, filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
						if err != nil {
							return err
						}
						_, err = d.Info()
						return err
					}))
				}
			}
		})
	}
}

// BenchmarkFirstScan is a workspace's first Begin: every file hashed and
// its content stored; store-bytes is the room that takes.
func BenchmarkFirstScan(b *testing.B) {
	for _, n := range []int{2_000, 20_000} {
		b.Run(strconv.Itoa(n)+"files", func(b *testing.B) {
			_, ws := benchWorkspace(b, n)
			b.ReportAllocs()
			var size int64
			for b.Loop() {
				b.StopTimer()
				s, err := Open(filepath.Join(b.TempDir(), "cp"), ws, Options{})
				must(b, err)
				b.StartTimer()
				must(b, s.Begin("first"))
				b.StopTimer()
				size, err = s.Size()
				must(b, err)
				b.StartTimer()
			}
			b.ReportMetric(float64(size), "store-bytes")
		})
	}
}
