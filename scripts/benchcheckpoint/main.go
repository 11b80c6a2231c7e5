// Command benchcheckpoint measures undo's checkpoints on a real folder, read
// only: the first scan (every file hashed and stored), a turn with nothing
// changed, and the room the store takes against the folder's own size. The
// store goes to a temporary folder, removed at the end; the folder is never
// written.
//
//	go run ./scripts/benchcheckpoint [-n 5] DIR
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/co-cli/co/checkpoint"
)

func main() {
	runs := flag.Int("n", 5, "turns with nothing changed to time")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/benchcheckpoint [-n 5] DIR")
		os.Exit(2)
	}
	ws := flag.Arg(0)
	tmp, err := os.MkdirTemp("", "co-checkpoint-bench-")
	check(err)
	defer os.RemoveAll(tmp)

	entries, bytes, disk := folderSize(ws)
	s, err := checkpoint.Open(filepath.Join(tmp, "cp"), ws, checkpoint.Options{})
	check(err)
	start := time.Now()
	check(s.Begin("first"))
	_, err = s.End("first")
	check(err)
	first := time.Since(start)
	size, err := s.Size()
	check(err)

	var turns []time.Duration
	for i := range *runs {
		id := fmt.Sprintf("t%d", i)
		start := time.Now()
		check(s.Begin(id))
		_, err := s.End(id)
		check(err)
		turns = append(turns, time.Since(start))
	}
	sort.Slice(turns, func(i, j int) bool { return turns[i] < turns[j] })

	fmt.Printf("folder            %s\n", ws)
	fmt.Printf("entries           %d (files, folders, links; .git left out)\n", entries)
	fmt.Printf("files             %.1f MiB (%.1f MiB on disk)\n", mib(bytes), mib(disk))
	fmt.Printf("first scan        %s\n", first.Round(time.Millisecond))
	fmt.Printf("store on disk     %.1f MiB\n", mib(size))
	if len(turns) > 0 {
		fmt.Printf("turn, no change   median %s, max %s (%d turns)\n", turns[len(turns)/2].Round(time.Millisecond),
			turns[len(turns)-1].Round(time.Millisecond), len(turns))
	}
}

// folderSize counts what a checkpoint scans: entries, the files' bytes
// and their blocks on disk, .git left out as the checkpoints leave it.
func folderSize(root string) (entries int, bytes, disk int64) {
	check(filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if p == root {
			return nil
		}
		entries++
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			bytes += fi.Size()
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				disk += st.Blocks * 512
			}
		}
		return nil
	}))
	return entries, bytes, disk
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
