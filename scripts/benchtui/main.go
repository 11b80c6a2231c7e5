// Command benchtui measures co's full-screen chat as a whole process driven
// through a pseudo-terminal against agent/llmtest, the way a user runs it:
//
//   - ready prompt: launch to the prompt on screen (median of -n launches)
//   - CPU-seconds to render an 8,000-character markdown reply streamed in
//     4-character chunks 2 ms apart, and the same reply unpaced
//   - from the reply's last chunk leaving the server to the reply being
//     fully on screen
//   - peak RSS (one reply; a 1,000-message transcript)
//   - CPU per streamed chunk with 10 and with 1,000 earlier messages
//   - a keystroke typed while a reply streams, to the screen
//
// "On screen" is decided by a terminal emulator fed with co's output
// (scripts/internal/vt), not by searching the byte stream. CPU is the
// sum over co's threads of /proc/<pid>/task/*/schedstat; peak RSS is
// co's VmHWM read just before it exits (not the child's ru_maxrss,
// which Linux carries over from the forking process across exec, so it
// can report this program's own RSS).
//
//	go run ./scripts/benchtui -co bin/co
//
// -profile old=BIN,new=BIN profiles the start-up of builds phase by
// phase (profile.go; scripts/bench-startup-profile.sh uses it).
//
// -compare old=BIN,new=BIN measures only the start-up of several builds,
// alternating launches (scripts/bench-startup.sh uses it).
// -stream-compare old=BIN,new=BIN measures only the paced reply's CPU of
// several builds, alternating launches, with medians of -n and ratios to
// the first; -stream-turns N adds the CPU per chunk with 10 and 2×N
// earlier messages (stream.go). -rss
// old=BIN,new=BIN measures only their memory after 100 and 1,000 turns of
// a conversation, alternating (scripts/bench-rss.sh uses it; rss.go).
//
// For experiments: BENCH_GOMAXPROCS, BENCH_GOGC and BENCH_CPUPROFILE (a
// file) are passed to the chat as GOMAXPROCS, GOGC and CO_CPUPROFILE;
// BENCH_NOPLAIN=1 skips the --plain runs; BENCHTUI_MEM=1 prints co's
// resident memory at exit (=smaps: its largest mappings too);
// BENCHTUI_RECORD=FILE keeps the raw output; BENCHTUI_SKILLS=1 gives each
// launch an AGENTS.md, 100 skills and 20 custom commands (half the user's,
// half the workspace's), to compare the ready prompt with and without them.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/scripts/internal/benchkit"
	"github.com/co-cli/co/scripts/internal/vt"
)

const (
	cols, rows = 120, 40
	readyText  = "Ask co anything"
	endMarker  = benchkit.EndMarker
)

var bin = flag.String("co", "bin/co", "the co binary")

// rec, when BENCHTUI_RECORD names a file, gets co's raw output (to check
// the emulator against a real terminal).
var rec = func() *os.File {
	if p := os.Getenv("BENCHTUI_RECORD"); p != "" {
		f, err := os.Create(p)
		if err == nil {
			return f
		}
	}
	return nil
}()

func main() {
	n := flag.Int("n", 20, "launches for the ready-prompt figure")
	turns := flag.Int("turns", 500, "turns for the long-transcript figures (2 messages each)")
	repeat := flag.Int("repeat", 5, "runs of each CPU measurement (the median is shown)")
	only := flag.String("only", "", "run only these measurements (comma-separated: ready,readymcp,paced,unpaced,keys,transcript)")
	mcpServer := flag.String("mcp-server", "", "readymcp: the command line of an MCP server (e.g. \"node .../server-everything/dist/index.js stdio\"); three of it are configured")
	compare := flag.String("compare", "", "only compare the start-up of builds, alternating: name=binary,name=binary,… (ready prompt, CPU to it, peak RSS; -n rounds)")
	rss := flag.String("rss", "", "only compare the memory of builds in a long conversation, alternating: name=binary,name=binary,… (-rss-turns, -n rounds)")
	rssTurns := flag.String("rss-turns", "100,1000", "-rss: the conversation lengths, in turns")
	rssKeepAll := flag.Bool("rss-keep-all", false, "-rss: keep every message in the history (max_history_messages 100000: no summary) instead of the default settings")
	profile := flag.String("profile", "", "only profile the start-up of builds, alternating: name=binary,name=binary,… (phases from exec to the first frame and the ready prompt, wall and CPU; package initialisation; -n rounds)")
	streamCmp := flag.String("stream-compare", "", "only compare the CPU of the paced reply of builds, alternating: name=binary,name=binary,… (-n rounds; ratios to the first build)")
	streamTurns := flag.Int("stream-turns", 0, "-stream-compare: also CPU per chunk after 10 and after 2×N earlier messages, each round (0: not measured)")
	flag.Parse()
	if *profile != "" {
		profileStartup(*profile, *n)
		return
	}
	if *streamCmp != "" {
		compareStream(*streamCmp, *n, *streamTurns)
		return
	}
	if *compare != "" {
		compareStartup(*compare, *n)
		return
	}
	if *rss != "" {
		var lengths []int
		for _, s := range strings.Split(*rssTurns, ",") {
			v, err := strconv.Atoi(s)
			if err != nil || v <= 0 {
				fail(fmt.Errorf("-rss-turns %q: want turns,turns", *rssTurns))
			}
			lengths = append(lengths, v)
		}
		compareRSS(*rss, lengths, *n, *rssKeepAll)
		return
	}
	if abs, err := filepath.Abs(*bin); err == nil {
		*bin = abs
	}
	// Run a copy written just now, as the linker writes a fresh build, so
	// the page cache holds it the same way whether or not go build had
	// anything to relink (see dropPageCache below).
	fresh, err := benchkit.FreshCopy(*bin)
	if err != nil {
		fail(err)
	}
	defer os.Remove(fresh)
	*bin = fresh

	srv := llmtest.NewServer()
	defer srv.Close()
	px := newProxy(strings.TrimSuffix(strings.TrimPrefix(srv.URL, "http://"), "/v1"))
	defer px.Close()
	base := "http://" + px.Addr() + "/v1"
	reply := benchkit.MarkdownReply(8000)

	var rows [][3]string
	add := func(what, fig, target string) {
		rows = append(rows, [3]string{what, fig, target})
		fmt.Fprintf(os.Stderr, "  %-62s %s\n", what, fig)
	}

	want := func(name string) bool { return *only == "" || strings.Contains(","+*only+",", ","+name+",") }

	if want("ready") {
		fmt.Fprintln(os.Stderr, "ready prompt…")
		var ready []time.Duration
		var idleRSS int64
		for i := 0; i < *n+1; i++ {
			t := launch(base)
			d := t.wait(10*time.Second, func(s string) bool { return strings.Contains(s, readyText) }).Sub(t.started)
			t.quit()
			if i > 0 { // the first run warms the page cache
				ready = append(ready, d)
				idleRSS = max(idleRSS, t.hwm)
			}
		}
		sort.Slice(ready, func(i, j int) bool { return ready[i] < ready[j] })
		add("launch to ready prompt (median / p90)", fmt.Sprintf("%s / %s", ms(ready[len(ready)/2]), ms(ready[len(ready)*9/10])), "< 50 ms")
		add("peak RSS, idle session", mib(idleRSS), "")
	}

	if want("readymcp") && *mcpServer != "" {
		// The same run, interleaved: launches with no MCP server and with
		// three configured, so the machine's drift falls on both.
		fmt.Fprintln(os.Stderr, "ready prompt with three MCP servers…")
		f := strings.Fields(*mcpServer)
		args, _ := json.Marshal(f[1:])
		one := fmt.Sprintf(`{"command": %q, "args": %s}`, f[0], args)
		servers := fmt.Sprintf(`CO_CLI_MCP_SERVERS={"a": %s, "b": %s, "c": %s}`, one, one, one)
		var none, three []time.Duration
		for i := 0; i < 2*(*n+1); i++ {
			var extra []string
			if i%2 == 1 {
				extra = append(extra, servers)
			}
			t := launch(base, extra...)
			d := t.wait(10*time.Second, func(s string) bool { return strings.Contains(s, readyText) }).Sub(t.started)
			t.quit()
			switch {
			case i < 2: // the first pair warms the page cache
			case i%2 == 1:
				three = append(three, d)
			default:
				none = append(none, d)
			}
		}
		med := func(ds []time.Duration) time.Duration {
			sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
			return ds[len(ds)/2]
		}
		a, b := med(none), med(three)
		add("ready prompt, no MCP server / three (median)", fmt.Sprintf("%s / %s (%+.1f ms)", ms(a), ms(b), float64(b-a)/float64(time.Millisecond)), "within 5 ms")
	}

	if want("paced") {
		fmt.Fprintln(os.Stderr, "paced reply…")
		paced := median(*repeat, func() result { return runReply(srv, px, base, reply, 2*time.Millisecond) })
		add("CPU for an 8,000-char reply in 4-char chunks 2 ms apart", sec(paced.cpu), "< 0.5 s")
		add("  last chunk sent → reply fully on screen", ms(paced.tail), "< 50 ms")
		add("  whole process CPU (launch, reply, exit)", sec(paced.total), "")
		plain := median(*repeat, func() result { return runPlain(srv, base, reply) })
		add("  the same in co --plain (agent and HTTP, no drawing)", sec(plain.total), "")
		add("  peak RSS (binary as just written by the linker)", mib(paced.rss), "< 45 MiB")
		// A binary written moments ago sits in the page cache in large
		// folios, and this kernel maps a whole folio on each fault: every
		// byte of co's 19 MB of segments counts as resident. Read from
		// disk (after a reboot, or once the cache let it go) it is mapped
		// 64 KB around each page touched. Drop the binary's cached pages
		// and measure again.
		if err := dropPageCache(*bin); err != nil {
			fail(err)
		}
		disk := runReply(srv, px, base, reply, 2*time.Millisecond)
		add("  peak RSS (binary read from disk)", mib(disk.rss), "< 45 MiB")
	}

	if want("unpaced") {
		fmt.Fprintln(os.Stderr, "unpaced reply…")
		fast := median(*repeat, func() result { return runReply(srv, px, base, reply, 0) })
		add("CPU for the same reply unpaced", sec(fast.cpu), "< 0.1 s")
		add("  last chunk sent → reply fully on screen", ms(fast.tail), "< 50 ms")
	}

	if want("keys") {
		fmt.Fprintln(os.Stderr, "keystrokes while streaming…")
		keys := keystrokes(srv, base, reply)
		add("keystroke while streaming → on screen (median / max of 20)", fmt.Sprintf("%s / %s", ms(keys[len(keys)/2]), ms(keys[len(keys)-1])), "< 50 ms")
	}

	if want("transcript") {
		fmt.Fprintln(os.Stderr, "transcripts of 10 and", 2**turns, "messages…")
		short := transcript(srv, px, base, reply, 5)
		long := transcript(srv, px, base, reply, *turns)
		chunks := float64(len([]rune(reply))) / 4
		perShort := time.Duration(float64(short.cpu) / chunks)
		perLong := time.Duration(float64(long.cpu) / chunks)
		add("CPU per streamed chunk, 10 earlier messages", us(perShort), "")
		add(fmt.Sprintf("CPU per streamed chunk, %d earlier messages", 2**turns), fmt.Sprintf("%s (%.2fx)", us(perLong), float64(perLong)/float64(perShort)), "within 2x")
		add(fmt.Sprintf("peak RSS, %d-message transcript", 2**turns), mib(long.rss), "< 60 MiB")
	}

	fmt.Printf("\nCPU figures are medians of %d runs; each run is a fresh process.\n", *repeat)
	fmt.Printf("\n| %-66s | %-22s | %-10s |\n|%s|%s|%s|\n", "what", "co", "target", strings.Repeat("-", 68), strings.Repeat("-", 24), strings.Repeat("-", 12))
	for _, r := range rows {
		fmt.Printf("| %-66s | %-22s | %-10s |\n", r[0], r[1], r[2])
	}
}

// compareStartup launches each build in turn, round after round, so the
// machine's drift (other jobs, the page cache) falls on all of them
// alike, and prints for each the launch to the ready prompt (median /
// p90), co's CPU time until then (summed over its threads; steadier than
// the wall clock on a busy machine) and its peak RSS (median).
func compareStartup(spec string, rounds int) {
	type build struct {
		name, path string
		ready, cpu []time.Duration
		rss        []int64
	}
	var builds []*build
	names, paths, cleanup := freshBuilds("-compare", spec)
	defer cleanup()
	for i, name := range names {
		builds = append(builds, &build{name: name, path: paths[i]})
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	base := srv.URL
	for r := 0; r <= rounds; r++ {
		for _, b := range builds {
			*bin = b.path
			t := launch(base)
			at := t.wait(10*time.Second, func(s string) bool { return strings.Contains(s, readyText) })
			cpu := t.cpu()
			t.quit()
			if r == 0 { // the first round warms the page cache
				continue
			}
			b.ready = append(b.ready, at.Sub(t.started))
			b.cpu = append(b.cpu, cpu)
			b.rss = append(b.rss, t.hwm)
		}
		fmt.Fprintf(os.Stderr, "round %d of %d\n", r, rounds)
	}
	sorted := func(ds []time.Duration) []time.Duration {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds
	}
	fmt.Printf("| build | ready prompt, median / p90 | CPU to the ready prompt, median | peak RSS, median |\n|---|---|---|---|\n")
	for _, b := range builds {
		ready, cpu := sorted(b.ready), sorted(b.cpu)
		sort.Slice(b.rss, func(i, j int) bool { return b.rss[i] < b.rss[j] })
		fmt.Printf("| %s | %s / %s | %s | %s |\n", b.name, ms(ready[len(ready)/2]), ms(ready[len(ready)*9/10]), ms(cpu[len(cpu)/2]), mib(b.rss[len(b.rss)/2]))
	}
}

type result struct {
	cpu, tail, total time.Duration
	rss              int64
}

// median runs f n times and returns, field by field, the median result:
// the machine is shared, so single runs are noisy.
func median(n int, f func() result) result {
	var rs []result
	for i := 0; i < max(n, 1); i++ {
		rs = append(rs, f())
	}
	pick := func(get func(result) int64) int64 {
		v := make([]int64, len(rs))
		for i, r := range rs {
			v[i] = get(r)
		}
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
		return v[len(v)/2]
	}
	return result{
		cpu:   time.Duration(pick(func(r result) int64 { return int64(r.cpu) })),
		tail:  time.Duration(pick(func(r result) int64 { return int64(r.tail) })),
		total: time.Duration(pick(func(r result) int64 { return int64(r.total) })),
		rss:   pick(func(r result) int64 { return r.rss }),
	}
}

// runReply launches co, sends a prompt answered by reply streamed with
// delay between 4-character chunks, and measures co's CPU from the
// prompt to the reply fully on screen.
func runReply(srv *llmtest.Server, px *proxy, base, reply string, delay time.Duration) result {
	srv.Script(llmtest.Reply{Text: reply, ChunkSize: 4, ChunkDelay: delay})
	t := launch(base)
	t.wait(10*time.Second, func(s string) bool { return strings.Contains(s, readyText) })
	time.Sleep(200 * time.Millisecond) // let start-up work finish
	px.reset()
	cpu0 := t.cpu()
	t.send("explain the design\r")
	shown := t.wait(60*time.Second, func(s string) bool { return strings.Contains(s, endMarker) })
	time.Sleep(100 * time.Millisecond) // work triggered by the last frame
	cpu1 := t.cpu()
	ru := t.quit()
	return result{cpu: cpu1 - cpu0, tail: shown.Sub(px.lastContent()), total: rusageCPU(ru), rss: t.hwm}
}

// runPlain answers the same prompt with co --plain, whose CPU is the
// agent's and the HTTP stream's without any drawing: the floor the
// full-screen chat adds to.
func runPlain(srv *llmtest.Server, base, reply string) result {
	if os.Getenv("BENCH_NOPLAIN") != "" { // experiments on the chat alone
		return result{}
	}
	srv.Script(llmtest.Reply{Text: reply, ChunkSize: 4, ChunkDelay: 2 * time.Millisecond})
	home, err := os.MkdirTemp("", "co-benchtui-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(home)
	cmd := exec.Command(*bin, "--plain")
	cmd.Dir = home
	cmd.Env = append(coEnv(home, base), "CO_CPUPROFILE=") // profile the chat only
	cmd.Stdin = strings.NewReader("explain the design\n")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		fail(fmt.Errorf("co --plain: %v", err))
	}
	if !strings.Contains(out.String(), endMarker) {
		fail(fmt.Errorf("co --plain did not print the reply"))
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return result{total: rusageCPU(ru)}
}

// keystrokes types 20 characters, one every 100 ms, while a slow reply
// streams, and returns how long each took to show in the prompt.
func keystrokes(srv *llmtest.Server, base, reply string) []time.Duration {
	srv.Script(llmtest.Reply{Text: reply, ChunkSize: 4, ChunkDelay: 2 * time.Millisecond})
	t := launch(base)
	t.wait(10*time.Second, func(s string) bool { return strings.Contains(s, readyText) })
	t.send("explain the design\r")
	t.wait(10*time.Second, func(s string) bool { return strings.Contains(s, "Overview") })
	typed := ""
	var out []time.Duration
	for i := 0; i < 20; i++ {
		c := string(rune('a' + i))
		typed += c
		want := "❯ " + typed
		start := time.Now()
		t.send(c)
		at := t.wait(10*time.Second, func(s string) bool { return strings.Contains(s, want) })
		out = append(out, at.Sub(start))
		time.Sleep(100 * time.Millisecond)
	}
	t.quit()
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// transcript plays turns short turns, then streams reply (paced) and
// measures the CPU of that reply and the peak RSS.
func transcript(srv *llmtest.Server, px *proxy, base, reply string, turns int) result {
	var script []llmtest.Reply
	for i := 0; i < turns; i++ {
		script = append(script, llmtest.Reply{Text: fmt.Sprintf("Answer %d: the **value** is `%d`, as the table says.\n\n- checked\n- verified\n\nR%d-DONE", i, i*7, i), ChunkSize: 16})
	}
	script = append(script, llmtest.Reply{Text: reply, ChunkSize: 4, ChunkDelay: 2 * time.Millisecond})
	srv.Script(script...)
	t := launch(base)
	t.wait(10*time.Second, func(s string) bool { return strings.Contains(s, readyText) })
	for i := 0; i < turns; i++ {
		t.send(fmt.Sprintf("question %d\r", i))
		want := fmt.Sprintf("R%d-DONE", i)
		t.wait(30*time.Second, func(s string) bool { return strings.Contains(s, want) && !strings.Contains(s, "thinking") })
	}
	time.Sleep(300 * time.Millisecond)
	px.reset()
	cpu0 := t.cpu()
	t.send("explain the design\r")
	t.wait(60*time.Second, func(s string) bool { return strings.Contains(s, endMarker) })
	time.Sleep(100 * time.Millisecond)
	cpu1 := t.cpu()
	ru := t.quit()
	return result{cpu: cpu1 - cpu0, rss: t.hwm, total: rusageCPU(ru)}
}

// term is co running in a pseudo-terminal, its output fed to a screen.
type term struct {
	cmd     *exec.Cmd
	ptmx    *os.File
	scr     *vt.Screen
	started time.Time
	home    string

	mu     sync.Mutex
	waits  []*waiter
	closed chan struct{}
	hwm    int64     // co's peak RSS in KiB (VmHWM), read as it quits
	first  time.Time // when co's first output was read
}

type waiter struct {
	cond func(string) bool
	at   chan time.Time
	// cpu, when set, gets co's CPU time read the moment cond held.
	cpu chan time.Duration
}

func launch(base string, extraEnv ...string) *term {
	home, err := os.MkdirTemp("", "co-benchtui-")
	if err != nil {
		fail(err)
	}
	if os.Getenv("BENCHTUI_SKILLS") != "" {
		addSkills(home)
	}
	cmd := exec.Command(*bin)
	cmd.Dir = home
	cmd.Env = append(coEnv(home, base), extraEnv...)
	if stderrTo != nil { // -rss: the runtime's gctrace, away from the screen
		cmd.Stderr = stderrTo
	}
	t := &term{cmd: cmd, scr: vt.New(cols, rows), home: home, closed: make(chan struct{})}
	t.started = time.Now()
	t.ptmx, err = pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
	if err != nil {
		fail(err)
	}
	go t.read()
	return t
}

// coEnv is co's environment: its own home, the scripted server as an
// OpenAI-compatible provider, a colour terminal.
func coEnv(home, base string) []string {
	env := []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color", "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"LLM_PROVIDER=openai", "OPENAI_BASE_URL=" + base, "OPENAI_MODEL=bench-model", "OPENAI_API_KEY=sk-bench",
		// Measure the chat, not the sandbox engine.
		"CO_CLI_SANDBOX_BACKEND=subprocess",
	}
	if !defaultHistory {
		// Keep the whole conversation: a summary would be another
		// (scripted) request, and the transcript on screen keeps every
		// message anyway.
		env = append(env, "CO_CLI_MAX_HISTORY_MESSAGES=100000")
	}
	// Knobs for experiments: the runtime's settings, and a CPU profile
	// of the chat (co's CO_CPUPROFILE, not passed to the --plain run).
	for _, kv := range [][2]string{{"BENCH_GOMAXPROCS", "GOMAXPROCS"}, {"BENCH_GOGC", "GOGC"}, {"BENCH_CPUPROFILE", "CO_CPUPROFILE"}} {
		if v := os.Getenv(kv[0]); v != "" {
			env = append(env, kv[1]+"="+v)
		}
	}
	return env
}

func (t *term) read() {
	defer close(t.closed)
	buf := make([]byte, 64*1024)
	for {
		n, err := t.ptmx.Read(buf)
		now := time.Now()
		if n > 0 {
			if rec != nil {
				rec.Write(buf[:n])
			}
			t.scr.Write(buf[:n])
			t.mu.Lock()
			if t.first.IsZero() {
				t.first = now
			}
			if len(t.waits) > 0 {
				text := t.scr.Text()
				kept := t.waits[:0]
				for _, w := range t.waits {
					if w.cond(text) {
						if w.cpu != nil {
							w.cpu <- t.cpu()
						}
						w.at <- now
						continue
					}
					kept = append(kept, w)
				}
				t.waits = kept
			}
			t.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// wait returns when the screen first satisfied cond (the time of the
// read that made it so).
func (t *term) wait(timeout time.Duration, cond func(string) bool) time.Time {
	w := &waiter{cond: cond, at: make(chan time.Time, 1)}
	t.mu.Lock()
	if cond(t.scr.Text()) {
		t.mu.Unlock()
		return time.Now()
	}
	t.waits = append(t.waits, w)
	t.mu.Unlock()
	select {
	case at := <-w.at:
		return at
	case <-time.After(timeout):
		fail(fmt.Errorf("timed out; screen:\n%s", t.scr.Text()))
	}
	return time.Time{}
}

func (t *term) send(s string) {
	if _, err := io.WriteString(t.ptmx, s); err != nil {
		fail(err)
	}
}

// cpu is co's CPU time so far, summed over its threads.
func (t *term) cpu() time.Duration {
	dir := fmt.Sprintf("/proc/%d/task", t.cmd.Process.Pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		fail(err)
	}
	var total int64
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "schedstat"))
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			total += n
		}
	}
	return time.Duration(total)
}

// quit exits co with Ctrl+D and returns its resource usage.
func (t *term) quit() *syscall.Rusage {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", t.cmd.Process.Pid))
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			t.hwm, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	if os.Getenv("BENCHTUI_MEM") != "" {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "Rss") || strings.HasPrefix(l, "VmHWM") {
				fmt.Fprintln(os.Stderr, "   ", l)
			}
		}
		if os.Getenv("BENCHTUI_MEM") == "smaps" {
			out, _ := exec.Command("sh", "-c", fmt.Sprintf("awk '/^[0-9a-f]+-/{name=$0} /^Rss:/{print $2, name}' /proc/%d/smaps | sort -rn | head -14", t.cmd.Process.Pid)).Output()
			os.Stderr.Write(out)
		}
	}
	t.send("\x15\x04") // ctrl+u empties the prompt, ctrl+d exits
	done := make(chan error, 1)
	go func() { done <- t.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = t.cmd.Process.Kill()
		<-done
		fail(fmt.Errorf("co did not exit on ctrl+d; screen:\n%s", t.scr.Text()))
	}
	t.ptmx.Close()
	<-t.closed
	os.RemoveAll(t.home)
	ru, _ := t.cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		return &syscall.Rusage{}
	}
	return ru
}

// dropPageCache evicts path's pages from the page cache (they are clean
// once synced), so the next exec reads it from disk.
func dropPageCache(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return err
	}
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}

func rusageCPU(ru *syscall.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// proxy forwards TCP to the llmtest server and notes when the last chunk
// carrying reply text went to co.
type proxy struct {
	ln     net.Listener
	target string
	last   atomic.Int64
}

func newProxy(target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	p := &proxy{ln: ln, target: target}
	go p.serve()
	return p
}

func (p *proxy) Addr() string { return p.ln.Addr().String() }
func (p *proxy) Close()       { p.ln.Close() }
func (p *proxy) reset()       { p.last.Store(0) }

func (p *proxy) lastContent() time.Time { return time.Unix(0, p.last.Load()) }

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				return
			}
			defer s.Close()
			go io.Copy(s, c)
			buf := make([]byte, 32*1024)
			for {
				n, err := s.Read(buf)
				if n > 0 {
					if hasContent(buf[:n]) {
						p.last.Store(time.Now().UnixNano())
					}
					if _, werr := c.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
	}
}

// hasContent reports whether b holds a chunk with non-empty reply text.
func hasContent(b []byte) bool {
	for {
		i := bytes.Index(b, []byte(`"content":"`))
		if i < 0 {
			return false
		}
		b = b[i+len(`"content":"`):]
		if len(b) > 0 && b[0] != '"' {
			return true
		}
	}
}

func ms(d time.Duration) string  { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
func us(d time.Duration) string  { return fmt.Sprintf("%.0f µs", float64(d.Nanoseconds())/1000) }
func sec(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }
func mib(kb int64) string        { return fmt.Sprintf("%.1f MiB", float64(kb)/1024) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchtui:", err)
	os.Exit(1)
}

// addSkills writes an AGENTS.md, 100 skills and 20 custom commands into
// home (the workspace) and its config directory (BENCHTUI_SKILLS).
func addSkills(home string) {
	put := func(path, text string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fail(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			fail(err)
		}
	}
	user := filepath.Join(home, "config", "co-cli")
	put(filepath.Join(home, ".git", "HEAD"), "ref: refs/heads/main\n")
	put(filepath.Join(home, "AGENTS.md"), strings.Repeat("Run the tests before committing.\n", 100))
	body := strings.Repeat("Step: do the thing carefully.\n", 60)
	for i := range 100 {
		dir := filepath.Join(user, "skills")
		if i%2 == 1 {
			dir = filepath.Join(home, ".agents", "skills")
		}
		name := fmt.Sprintf("skill-%03d", i)
		put(filepath.Join(dir, name, "SKILL.md"), fmt.Sprintf("---\nname: %s\ndescription: Does task %s. Use when asked for %s.\n---\n%s", name, name, name, body))
	}
	for i := range 20 {
		dir := filepath.Join(user, "commands")
		if i%2 == 1 {
			dir = filepath.Join(home, ".co-cli", "commands")
		}
		put(filepath.Join(dir, fmt.Sprintf("cmd%02d.md", i)), "---\ndescription: command\n---\nDo $ARGUMENTS now.\n")
	}
}

// freshBuilds parses flag's spec, name=binary,name=binary, and copies each
// binary afresh (freshCopy); cleanup removes the copies.
func freshBuilds(flag, spec string) (names, paths []string, cleanup func()) {
	cleanup = func() {
		for _, p := range paths {
			os.Remove(p)
		}
	}
	for _, kv := range strings.Split(spec, ",") {
		name, path, ok := strings.Cut(kv, "=")
		if !ok {
			cleanup()
			fail(fmt.Errorf("%s %q: want name=binary,name=binary", flag, kv))
		}
		abs, err := filepath.Abs(path)
		if err == nil {
			abs, err = benchkit.FreshCopy(abs)
		}
		if err != nil {
			cleanup()
			fail(err)
		}
		names, paths = append(names, name), append(paths, abs)
	}
	return names, paths, cleanup
}
