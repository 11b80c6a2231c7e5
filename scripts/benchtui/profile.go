package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// profileStartup prints where the full-screen chat's start-up goes, for
// each build, launches alternating round by round (the first round only
// warms the page cache): from outside, exec to co's first byte, first
// frame and ready prompt, with co's CPU (schedstat) the moment the screen
// showed each; from inside, lib/startmark's marks (CO_STARTUP_MARKS);
// and GODEBUG=inittrace=1's clock time per package, on the same
// launches. Each launch has a home of its own, as at a first start.
func profileStartup(spec string, rounds int) {
	type build struct {
		name, path string
		phases     map[string][]time.Duration // wall since exec
		cpus       map[string][]time.Duration // CPU at it
		inits      map[string][]float64       // package -> clock ms
		initTotal  []float64
	}
	var builds []*build
	names, paths, cleanup := freshBuilds("-profile", spec)
	defer cleanup()
	for i, name := range names {
		builds = append(builds, &build{name: name, path: paths[i], phases: map[string][]time.Duration{},
			cpus: map[string][]time.Duration{}, inits: map[string][]float64{}})
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	tmp, err := os.MkdirTemp("", "co-profile-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	for r := 0; r <= rounds; r++ {
		for _, b := range builds {
			marks := filepath.Join(tmp, "marks")
			trace := filepath.Join(tmp, "inittrace")
			os.Remove(marks)
			errf, err := os.Create(trace)
			if err != nil {
				fail(err)
			}
			*bin = b.path
			stderrTo = errf
			t := launch(srv.URL, "CO_STARTUP_MARKS="+marks, "GODEBUG=inittrace=1")
			stderrTo = nil
			type seen struct {
				name string
				cond func(string) bool
			}
			var waits []*waiter
			for _, s := range []seen{
				{"first frame", func(s string) bool { return strings.TrimSpace(s) != "" }},
				{"ready prompt", func(s string) bool { return strings.Contains(s, readyText) }},
			} {
				w := &waiter{cond: s.cond, at: make(chan time.Time, 1), cpu: make(chan time.Duration, 1)}
				t.mu.Lock()
				t.waits = append(t.waits, w)
				t.mu.Unlock()
				waits = append(waits, w)
			}
			got := map[string]time.Time{}
			gotCPU := map[string]time.Duration{}
			for i, name := range []string{"first frame", "ready prompt"} {
				select {
				case at := <-waits[i].at:
					got[name], gotCPU[name] = at, <-waits[i].cpu
				case <-time.After(10 * time.Second):
					fail(fmt.Errorf("%s: no %s; screen:\n%s", b.name, name, t.scr.Text()))
				}
			}
			first := t.firstByte()
			t.quit()
			errf.Close()
			if r == 0 {
				continue
			}
			for name, at := range got {
				b.phases[name] = append(b.phases[name], at.Sub(t.started))
				b.cpus[name] = append(b.cpus[name], gotCPU[name])
			}
			if !first.IsZero() {
				b.phases["first byte"] = append(b.phases["first byte"], first.Sub(t.started))
			}
			for _, m := range readMarks(marks) {
				b.phases[m.name] = append(b.phases[m.name], m.wall.Sub(t.started))
				b.cpus[m.name] = append(b.cpus[m.name], m.cpu)
			}
			total := 0.0
			for pkg, clock := range readInitTrace(trace) {
				b.inits[pkg] = append(b.inits[pkg], clock)
				total += clock
			}
			b.initTotal = append(b.initTotal, total)
		}
		fmt.Fprintf(os.Stderr, "round %d of %d\n", r, rounds)
	}

	order := []string{"main", "settings", "app", "program", "view", "first byte", "first frame", "ready prompt"}
	fmt.Printf("Start-up phases, median of %d launches each (wall from exec; CPU used by then):\n\n", rounds)
	fmt.Printf("| phase |")
	for _, b := range builds {
		fmt.Printf(" %s wall | %s CPU |", b.name, b.name)
	}
	if len(builds) > 1 {
		fmt.Printf(" %s / %s wall |", builds[len(builds)-1].name, builds[0].name)
	}
	fmt.Printf("\n|---|")
	for range builds {
		fmt.Printf("---|---|")
	}
	if len(builds) > 1 {
		fmt.Printf("---|")
	}
	fmt.Println()
	for _, ph := range order {
		fmt.Printf("| %s |", ph)
		var meds []time.Duration
		for _, b := range builds {
			w, c := medianD(b.phases[ph]), medianD(b.cpus[ph])
			meds = append(meds, w)
			fmt.Printf(" %s | %s |", msOr(w), msOr(c))
		}
		if len(builds) > 1 {
			if meds[0] > 0 && meds[len(meds)-1] > 0 {
				fmt.Printf(" %.2f× |", float64(meds[len(meds)-1])/float64(meds[0]))
			} else {
				fmt.Printf(" – |")
			}
		}
		fmt.Println()
	}
	fmt.Printf("\nPackage initialisation (GODEBUG=inittrace=1, clock ms, median): the sum, then the packages that cost most\n\n| package |")
	for _, b := range builds {
		fmt.Printf(" %s |", b.name)
	}
	fmt.Printf("\n|---|")
	for range builds {
		fmt.Printf("---|")
	}
	fmt.Printf("\n| all packages |")
	for _, b := range builds {
		fmt.Printf(" %.1f |", medianF(b.initTotal))
	}
	fmt.Println()
	worst := map[string]float64{}
	for _, b := range builds {
		for pkg, v := range b.inits {
			worst[pkg] = max(worst[pkg], medianF(v))
		}
	}
	var pkgs []string
	for p := range worst {
		pkgs = append(pkgs, p)
	}
	sort.Slice(pkgs, func(i, j int) bool { return worst[pkgs[i]] > worst[pkgs[j]] })
	for _, p := range pkgs[:min(len(pkgs), 20)] {
		fmt.Printf("| %s |", p)
		for _, b := range builds {
			if v, ok := b.inits[p]; ok {
				fmt.Printf(" %.2f |", medianF(v))
			} else {
				fmt.Printf(" – |")
			}
		}
		fmt.Println()
	}
}

// firstByte is when co's first output was read ("" before any).
func (t *term) firstByte() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.first
}

type mark struct {
	name string
	wall time.Time
	cpu  time.Duration
}

// readMarks reads lib/startmark's file: "NAME WALL_UNIX_NS CPU_NS".
func readMarks(path string) []mark {
	f, err := os.Open(path)
	if err != nil {
		return nil // a build without lib/startmark
	}
	defer f.Close()
	var out []mark
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 {
			continue
		}
		w, err1 := strconv.ParseInt(fs[1], 10, 64)
		c, err2 := strconv.ParseInt(fs[2], 10, 64)
		if err1 == nil && err2 == nil {
			out = append(out, mark{fs[0], time.Unix(0, w), time.Duration(c)})
		}
	}
	return out
}

// readInitTrace sums the clock time of each package in a
// GODEBUG=inittrace=1 trace:
//
//	init github.com/alecthomas/chroma/v2/lexers @12 ms, 25 ms clock, 8117920 bytes, 60306 allocs
func readInitTrace(path string) map[string]float64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	out := map[string]float64{}
	for _, l := range strings.Split(string(b), "\n") {
		fs := strings.Fields(l)
		if len(fs) < 7 || fs[0] != "init" || fs[6] != "clock," {
			continue
		}
		v, err := strconv.ParseFloat(fs[4], 64)
		if err == nil {
			out[fs[1]] += v
		}
	}
	return out
}

func medianD(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func medianF(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func msOr(d time.Duration) string {
	if d == 0 {
		return "–"
	}
	return ms(d)
}
