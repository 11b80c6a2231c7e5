package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/scripts/internal/benchkit"
)

// compareStream measures the paced reply of the paced figure (CPU from
// the prompt to the 8,000-character reply fully on screen, 4-character
// chunks 2 ms apart) for several builds, alternating launches round
// after round so the machine's drift falls on all of them alike, and
// prints each build's median and its ratio to the first build's, the
// median of each round's ratio to the first build's launch, and the
// median peak RSS. With
// turns > 0 each round also measures, per build, the CPU per streamed
// chunk after 10 and after 2×turns earlier messages (the transcript
// figure), and prints their medians and ratio.
//
// BENCH_CPUPROFILE, when set, is taken as a prefix: each build's launches
// write NAME-ROUND.prof after it, so old and new can be profiled in the
// same run (merge a build's files with go tool pprof -top FILE...).
func compareStream(spec string, rounds, turns int) {
	type build struct {
		name, path        string
		paced, short, lng []time.Duration
		rss               []int64
	}
	var builds []*build
	names, paths, cleanup := freshBuilds("-stream-compare", spec)
	defer cleanup()
	for i, name := range names {
		builds = append(builds, &build{name: name, path: paths[i]})
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	px := newProxy(strings.TrimSuffix(strings.TrimPrefix(srv.URL, "http://"), "/v1"))
	defer px.Close()
	base := "http://" + px.Addr() + "/v1"
	reply := benchkit.MarkdownReply(8000)
	chunks := float64(len([]rune(reply))) / 4
	prof := os.Getenv("BENCH_CPUPROFILE")
	defer os.Setenv("BENCH_CPUPROFILE", prof)
	for r := 0; r <= rounds; r++ {
		for _, b := range builds {
			*bin = b.path
			if prof != "" {
				os.Setenv("BENCH_CPUPROFILE", fmt.Sprintf("%s%s-%d.prof", prof, b.name, r))
			}
			p := runReply(srv, px, base, reply, 2*time.Millisecond)
			if r == 0 { // the first round warms the page cache
				continue
			}
			b.paced = append(b.paced, p.cpu)
			b.rss = append(b.rss, p.rss)
			line := fmt.Sprintf("round %d of %d, %s: paced %s", r, rounds, b.name, sec(p.cpu))
			if turns > 0 {
				os.Setenv("BENCH_CPUPROFILE", "")
				s := transcript(srv, px, base, reply, 5)
				l := transcript(srv, px, base, reply, turns)
				b.short = append(b.short, time.Duration(float64(s.cpu)/chunks))
				b.lng = append(b.lng, time.Duration(float64(l.cpu)/chunks))
				line += fmt.Sprintf(", per chunk %s (10) / %s (%d)", us(b.short[len(b.short)-1]), us(b.lng[len(b.lng)-1]), 2*turns)
			}
			fmt.Fprintln(os.Stderr, line)
		}
	}
	med := func(ds []time.Duration) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		ds = append([]time.Duration(nil), ds...)
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}
	// Each round's ratio to the first build's launch just before: the
	// machine's drift over the run cancels out of these.
	paired := func(b *build) float64 {
		var rs []float64
		for i, d := range b.paced {
			rs = append(rs, float64(d)/float64(builds[0].paced[i]))
		}
		sort.Float64s(rs)
		return rs[len(rs)/2]
	}
	first := med(builds[0].paced)
	fmt.Printf("\nMedians of %d alternating launches per build (8,000-char reply, 4-char chunks 2 ms apart, %d×%d).\n\n", rounds, cols, rows)
	head := "| build | CPU while streaming | per chunk | ratio to " + builds[0].name + " | median of the rounds' ratios | peak RSS |"
	sep := "|---|---|---|---|---|---|"
	if turns > 0 {
		head += fmt.Sprintf(" per chunk, 10 earlier messages | per chunk, %d earlier messages | %d / 10 |", 2*turns, 2*turns)
		sep += "---|---|---|"
	}
	fmt.Println(head)
	fmt.Println(sep)
	for _, b := range builds {
		m := med(b.paced)
		rss := append([]int64(nil), b.rss...)
		sort.Slice(rss, func(i, j int) bool { return rss[i] < rss[j] })
		row := fmt.Sprintf("| %s | %s | %s | %.2f× | %.2f× | %s |", b.name, sec(m), us(time.Duration(float64(m)/chunks)), float64(m)/float64(first), paired(b), mib(rss[len(rss)/2]))
		if turns > 0 {
			s, l := med(b.short), med(b.lng)
			row += fmt.Sprintf(" %s | %s | %.2f× |", us(s), us(l), float64(l)/float64(s))
		}
		fmt.Println(row)
	}
	if prof != "" {
		fmt.Printf("\nCPU profiles: %s\n", filepath.Clean(prof)+"NAME-ROUND.prof")
	}
}
