package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/co-cli/co/lib/protect"
)

// bigRepo makes a workspace like a large project's checkout: 1,000 source folders of 5 files,
// and a .git with 256 object folders of 40 objects, 4 packs, 2,000 branches in 100 folders and
// their logs, hooks and config. It returns the workspace and how many folders it has.
func bigRepo(b *testing.B) (string, int) {
	ws := b.TempDir()
	dirs := 0
	mk := func(rel string, n int, size int) {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(p, 0o755); err != nil {
			b.Fatal(err)
		}
		dirs++
		data := make([]byte, size)
		for i := range n {
			if err := os.WriteFile(filepath.Join(p, fmt.Sprintf("f%03d", i)), data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	for i := range 1000 {
		mk(fmt.Sprintf("src/m%02d/p%03d", i/50, i), 5, 200)
	}
	for i := range 256 {
		mk(fmt.Sprintf(".git/objects/%02x", i), 40, 100)
	}
	mk(".git/objects/pack", 4, 1<<10)
	for i := range 100 {
		mk(fmt.Sprintf(".git/refs/heads/team%02d", i), 20, 41)
		mk(fmt.Sprintf(".git/logs/refs/heads/team%02d", i), 20, 200)
	}
	mk(".git/hooks", 12, 500)
	for _, f := range []string{".git/config", ".git/HEAD", ".git/index", "AGENTS.md"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return ws, dirs
}

// The Watch's check before a model request when nothing changed: the figure in docs/figures.md
// ("Protected files"). For comparison, the same check walking all of .git as the sandbox's
// guard would if .git were not mounted read-only.
func BenchmarkWatchCheck(b *testing.B) {
	ws, dirs := bigRepo(b)
	// A folder changed less than racyWindow ago is read again at each check, as a file is
	// compared by content: a checkout is older than that.
	time.Sleep(racyWindow + 100*time.Millisecond)
	b.Run("watch", func(b *testing.B) {
		w := NewWatch(Config{Workspace: ws}, nil)
		w.TurnStarted()
		b.ReportMetric(float64(dirs), "dirs")
		b.ResetTimer()
		before := cpuTime()
		for b.Loop() {
			if ps := w.Check(); len(ps) != 0 {
				b.Fatal(ps)
			}
		}
		// CPU time, beside the wall time, which a busy machine stretches.
		b.ReportMetric(float64((cpuTime()-before).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	})
	b.Run("whole-git", func(b *testing.B) {
		g := newGuard(ws, protect.New(nil), false)
		g.mu.Lock()
		defer g.mu.Unlock()
		if err := g.snapshot(); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for b.Loop() {
			if ps := g.check(nil); len(ps) != 0 {
				b.Fatal(ps)
			}
			if err := g.snapshot(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func cpuTime() time.Duration {
	var ru unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
