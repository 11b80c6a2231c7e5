// Command benchpeers measures co against other builds of co and against
// its peers (crush) the way a user meets them: each program runs in a
// real tmux pane of 120×40, talks to a scripted OpenAI-compatible server
// (agent/llmtest) and is timed from the byte stream it writes into the
// pane, fed to a terminal emulator (scripts/internal/vt). Issue 44.
//
//	go run ./scripts/benchpeers -compare t3=/work/bin-t3,new=bin/co,crush=/work/peers/crush/crush \
//	  -n 8 -ratio new/t3,new/crush
//
// The figures and how Crush was built: docs/figures.md, "Against the
// turn-3 build and crush (issue 44)". -keep keeps each launch's home,
// its raw output and the time and start of each read (output.reads).
//
// For each launch:
//
//   - first frame: from exec to the first visible text;
//   - ready prompt: from exec to the prompt's placeholder on screen
//     (co: "Ask co anything"; crush: one of its "Ready…" placeholders);
//   - CPU to the ready prompt (the sum over the program's threads of
//     /proc/PID/task/*/schedstat, as scripts/benchtui reads it);
//   - idle on the landing screen: CPU (% of a core), wake-ups a second
//     (the third schedstat field: times a thread was put on a CPU) and
//     bytes a second written to the terminal, over -idle after -settle;
//   - a prompt is typed, then Enter: wall time and CPU from Enter to the
//     whole reply on screen. The reply is 8,000 characters of markdown in
//     4-character chunks 2 ms apart (as scripts/benchtui streams it); its
//     last word, an end marker, decides "on screen";
//   - idle after the reply: the same three figures as above;
//   - total CPU (utime+stime of the program and its waited-for children,
//     /proc/PID/stat, 10 ms ticks) and peak RSS (VmHWM) just before it
//     is told to quit.
//
// Launches alternate between the commands round after round (-n rounds;
// the order rotates each round, and a first round warms the page cache
// and is not counted). Each binary is copied afresh first, as benchtui
// does, so the page cache holds all of them alike.
//
// The pane: a private tmux server (its own socket under a temporary
// TMUX_TMPDIR, -f /dev/null, status off), so TERM and TMUX are what tmux
// sets and a program that asks tmux for its features (`tmux info`, as
// colour-profile detection does inside tmux) reaches this server. No
// client is attached: tmux itself answers the primary device attributes
// and XTVERSION; -bg gives the window a background colour so tmux also
// answers OSC 11 (the background query) as a real terminal would.
// The program is exec'd as the pane's command (through /bin/sh, which
// waits on a FIFO so that pipe-pane is in place before the program's
// first byte, then execs it: the pane's PID is the program's). Its
// output reaches this process through `tmux pipe-pane -O` into a FIFO.
//
// Each program gets an empty HOME and XDG directories of its own and an
// empty working directory. co: the provider from the environment, as
// scripts/benchtui sets it. crush: a crushrc (crush.go).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/scripts/internal/benchkit"
	"github.com/co-cli/co/scripts/internal/vt"
)

const (
	cols, rows = 120, 40
	endMarker  = benchkit.EndMarker
	prompt     = "explain the design"
)

func main() {
	compare := flag.String("compare", "", "the programs, in order: name=binary,name=binary,… (a binary named crush*, or a name starting with crush, is run as crush; the rest as co)")
	n := flag.Int("n", 8, "rounds (each launches every program once; one more round warms up first)")
	idle := flag.Duration("idle", 3*time.Second, "how long idle CPU is measured, on the landing screen and after the reply")
	settle := flag.Duration("settle", time.Second, "wait before each idle measurement")
	bg := flag.String("bg", "#1e1e2e", "the pane's background colour, so tmux answers OSC 11 (empty: no answer)")
	ratio := flag.String("ratio", "", "ratios of medians to print: a/b,c/d (default: each program over the first)")
	keep := flag.Bool("keep", false, "keep each launch's home and output (print where)")
	flag.Parse()
	if *compare == "" {
		fmt.Fprintln(os.Stderr, "usage: benchpeers -compare name=binary,name=binary,… [-n rounds]")
		os.Exit(2)
	}
	if err := run(*compare, *ratio, *n, *idle, *settle, *bg, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "benchpeers:", err)
		os.Exit(1)
	}
}

func run(compare, ratio string, n int, idle, settle time.Duration, bg string, keep bool) error {
	progs, cleanup, err := parsePrograms(compare)
	if err != nil {
		return err
	}
	defer cleanup()
	ratios, err := parseRatios(ratio, progs)
	if err != nil {
		return err
	}

	srv := llmtest.NewServer()
	defer srv.Close()
	// Crush names its session with the small model: a short answer, so
	// that request costs it what it costs with a real provider.
	srv.Rules(llmtest.Reply{Match: "Generate a concise title", Text: "Bench title", Reusable: true})
	srv.SetDefault(llmtest.Reply{Text: benchkit.MarkdownReply(8000), ChunkSize: 4, ChunkDelay: 2 * time.Millisecond})

	tm, err := startTmux(bg)
	if err != nil {
		return err
	}
	defer tm.close()

	// Interrupted: the copies and the tmux server go too.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-stop
		tm.close()
		cleanup()
		os.Exit(1)
	}()

	for r := 0; r <= n; r++ {
		for i := range progs {
			p := progs[(i+r)%len(progs)]
			m, err := measure(tm, p, srv, idle, settle, keep)
			if err != nil {
				return fmt.Errorf("%s, round %d: %w", p.name, r, err)
			}
			if r > 0 { // the first round warms the page cache
				p.runs = append(p.runs, m)
			}
			fmt.Fprintf(os.Stderr, "round %d %-8s ready %6.1f ms  stream CPU %.3f s  idle %.2f%% / %.2f%%\n",
				r, p.name, ms(m.ready), m.streamCPU.Seconds(), m.idleReady.pct(), m.idleReply.pct())
		}
	}
	if n < 1 {
		fmt.Fprintln(os.Stderr, "no rounds counted (-n 0: the warm-up round only)")
		return nil
	}
	printTable(os.Stdout, progs, ratios)
	return nil
}

// program is one command under test.
type program struct {
	name, path string
	kind       *kind
	runs       []measurement
}

// kind is how to run one family of programs: its configuration and what
// its ready prompt looks like.
type kind struct {
	name string
	// setup writes the program's configuration under home and returns
	// its environment and arguments; base is the server's URL (…/v1).
	setup func(home, base string) (env, args []string, err error)
	// ready reports whether the screen shows the prompt ready for input.
	ready func(screen string) bool
}

var coKind = &kind{
	name: "co",
	setup: func(home, base string) ([]string, []string, error) {
		// As scripts/benchtui's coEnv: the scripted server as an
		// OpenAI-compatible provider, the chat and not the sandbox engine.
		return []string{
			"LLM_PROVIDER=openai", "OPENAI_BASE_URL=" + base, "OPENAI_MODEL=bench-model", "OPENAI_API_KEY=sk-bench",
			"CO_CLI_SANDBOX_BACKEND=subprocess", "CO_CLI_MAX_HISTORY_MESSAGES=100000",
		}, nil, nil
	},
	ready: func(s string) bool { return strings.Contains(s, "Ask co anything") },
}

// parsePrograms reads name=binary,… and copies each binary afresh.
func parsePrograms(spec string) ([]*program, func(), error) {
	var progs []*program
	cleanup := func() {
		for _, p := range progs {
			os.Remove(p.path)
		}
	}
	for _, kv := range strings.Split(spec, ",") {
		name, path, ok := strings.Cut(kv, "=")
		if !ok || name == "" || path == "" {
			cleanup()
			return nil, nil, fmt.Errorf("-compare %q: want name=binary,name=binary", kv)
		}
		k := coKind
		if strings.HasPrefix(filepath.Base(path), "crush") || strings.HasPrefix(name, "crush") {
			k = crushKind
		}
		abs, err := filepath.Abs(path)
		if err == nil {
			abs, err = benchkit.FreshCopy(abs)
		}
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		progs = append(progs, &program{name: name, path: abs, kind: k})
	}
	return progs, cleanup, nil
}

// measurement is one launch's figures.
type measurement struct {
	first, ready         time.Duration // exec → first visible text, → ready prompt
	readyCPU             time.Duration
	idleReady, idleReply idleFigures
	streamWall           time.Duration // Enter → the reply's end on screen
	streamCPU            time.Duration
	totalCPU             time.Duration
	hwmKiB               int64
}

// idleFigures is what a program did while nobody touched it.
type idleFigures struct {
	cpu    time.Duration
	wakes  int64
	bytes  int64
	period time.Duration
}

func (f idleFigures) pct() float64 { return 100 * f.cpu.Seconds() / f.period.Seconds() }
func (f idleFigures) wakesPerSec() float64 {
	return float64(f.wakes) / f.period.Seconds()
}
func (f idleFigures) bytesPerSec() float64 { return float64(f.bytes) / f.period.Seconds() }

func measure(tm *tmux, p *program, srv *llmtest.Server, idle, settle time.Duration, keep bool) (m measurement, err error) {
	home, err := os.MkdirTemp("", "benchpeers-"+p.name+"-")
	if err != nil {
		return m, err
	}
	if keep {
		fmt.Fprintln(os.Stderr, "  kept:", home)
	} else {
		defer os.RemoveAll(home)
	}
	work := filepath.Join(home, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return m, err
	}
	env, args, err := p.kind.setup(home, srv.URL)
	if err != nil {
		return m, err
	}
	env = append([]string{
		"HOME=" + home, "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
	}, append(noNetwork, env...)...)

	pn, err := tm.launch(home, work, env, append([]string{p.path}, args...), keep)
	if err != nil {
		return m, err
	}
	defer func() {
		if cerr := pn.close(); err == nil && cerr != nil {
			err = cerr
		}
	}()

	wait := func(what string, timeout time.Duration, cond func(string) bool) (time.Time, error) {
		at, ok := pn.wait(timeout, cond)
		if !ok {
			return at, fmt.Errorf("no %s within %s; screen:\n%s", what, timeout, pn.scr.Text())
		}
		return at, nil
	}
	firstAt, err := wait("first frame", 20*time.Second, func(s string) bool { return strings.TrimSpace(s) != "" })
	if err != nil {
		return m, err
	}
	readyAt, err := wait("ready prompt", 20*time.Second, p.kind.ready)
	if err != nil {
		return m, err
	}
	m.first, m.ready = firstAt.Sub(pn.started), readyAt.Sub(pn.started)
	cpu, _, err := threadsCPU(pn.pid)
	if err != nil {
		return m, err
	}
	m.readyCPU = cpu
	if err := pn.tmuxShows(p.kind.ready); err != nil {
		return m, err
	}

	time.Sleep(settle)
	if m.idleReady, err = pn.idle(idle); err != nil {
		return m, err
	}

	if err := tm.sendKeys(pn.target, "-l", prompt); err != nil {
		return m, err
	}
	if _, err := wait("typed prompt", 10*time.Second, func(s string) bool { return strings.Contains(s, prompt) }); err != nil {
		return m, err
	}
	time.Sleep(200 * time.Millisecond)
	cpu0, _, err := threadsCPU(pn.pid)
	if err != nil {
		return m, err
	}
	enter := time.Now()
	if err := tm.sendKeys(pn.target, "Enter"); err != nil {
		return m, err
	}
	shown, err := wait("reply", 60*time.Second, func(s string) bool { return strings.Contains(s, endMarker) })
	if err != nil {
		return m, err
	}
	time.Sleep(100 * time.Millisecond) // work triggered by the last frame
	cpu1, _, err := threadsCPU(pn.pid)
	if err != nil {
		return m, err
	}
	m.streamWall, m.streamCPU = shown.Sub(enter), cpu1-cpu0
	if err := pn.tmuxShows(func(s string) bool { return strings.Contains(s, endMarker) }); err != nil {
		return m, err
	}

	time.Sleep(settle)
	if m.idleReply, err = pn.idle(idle); err != nil {
		return m, err
	}

	if m.totalCPU, err = processCPU(pn.pid); err != nil {
		return m, err
	}
	if m.hwmKiB, err = peakRSS(pn.pid); err != nil {
		return m, err
	}
	return m, nil
}

// tmux is a private tmux server.
type tmux struct {
	dir  string // TMUX_TMPDIR: the socket lives here
	env  []string
	next int
}

func startTmux(bg string) (*tmux, error) {
	dir, err := os.MkdirTemp("", "benchpeers-tmux-")
	if err != nil {
		return nil, err
	}
	// The server's environment is what every pane starts from (tmux adds
	// TERM, TMUX and TMUX_PANE): nothing of this process's own.
	t := &tmux{dir: dir, env: []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "HOME=" + dir, "TMUX_TMPDIR=" + dir}}
	// A session that keeps the server up between launches.
	args := []string{"new-session", "-d", "-s", "keep", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "sleep 100000",
		";", "set", "-g", "status", "off", ";", "set", "-g", "exit-empty", "off"}
	if bg != "" {
		args = append(args, ";", "set", "-g", "window-style", "bg="+bg)
	}
	if err := t.run(args...); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return t, nil
}

func (t *tmux) run(args ...string) error {
	cmd := exec.Command("tmux", append([]string{"-f", "/dev/null"}, args...)...)
	cmd.Env = t.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

func (t *tmux) output(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-f", "/dev/null"}, args...)...)
	cmd.Env = t.env
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("tmux %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

func (t *tmux) sendKeys(target string, keys ...string) error {
	return t.run(append([]string{"send-keys", "-t", target}, keys...)...)
}

func (t *tmux) close() {
	_ = t.run("kill-server")
	os.RemoveAll(t.dir)
}

// pane is one program running in its own tmux session.
type pane struct {
	tm      *tmux
	target  string
	pid     int
	scr     *vt.Screen
	started time.Time
	bytes   atomic.Int64
	rec     *os.File // -keep: the raw output
	reads   *os.File // -keep: each read's time, size and start

	mu     sync.Mutex
	waits  []*waiter
	closed chan struct{}
}

type waiter struct {
	cond func(string) bool
	at   chan time.Time
}

// launch starts argv in a new session, its output piped back through a
// FIFO, and returns once the program has been exec'd.
func (t *tmux) launch(home, work string, env, argv []string, keep bool) (*pane, error) {
	t.next++
	p := &pane{tm: t, target: fmt.Sprintf("run%d", t.next), scr: vt.New(cols, rows), closed: make(chan struct{})}
	startFIFO, outFIFO := filepath.Join(home, "start.fifo"), filepath.Join(home, "out.fifo")
	for _, f := range []string{startFIFO, outFIFO} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			return nil, err
		}
	}
	if keep {
		f, err := os.Create(filepath.Join(home, "output.raw"))
		if err != nil {
			return nil, err
		}
		p.rec = f
		if p.reads, err = os.Create(filepath.Join(home, "output.reads")); err != nil {
			return nil, err
		}
	}
	args := []string{"new-session", "-d", "-s", p.target, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "-c", work}
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	// The shell waits for the word to go, then becomes the program.
	args = append(args, "--", "/bin/sh", "-c", `read go < "$0" && exec "$@"`, startFIFO)
	args = append(args, argv...)
	if err := t.run(args...); err != nil {
		return nil, err
	}
	pid, err := t.output("display", "-p", "-t", p.target, "#{pane_pid}")
	if err != nil {
		return nil, err
	}
	if p.pid, err = strconv.Atoi(pid); err != nil {
		return nil, fmt.Errorf("pane pid %q: %v", pid, err)
	}
	if err := t.run("pipe-pane", "-O", "-t", p.target, "exec cat > "+shellQuote(outFIFO)); err != nil {
		return nil, err
	}
	out, err := os.Open(outFIFO) // returns once cat has it open
	if err != nil {
		return nil, err
	}
	go p.read(out)
	start, err := os.OpenFile(startFIFO, os.O_WRONLY, 0) // once the shell waits on it
	if err != nil {
		return nil, err
	}
	p.started = time.Now()
	_, err = start.WriteString("go\n")
	start.Close()
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (p *pane) read(r io.ReadCloser) {
	defer close(p.closed)
	defer r.Close()
	buf := make([]byte, 64*1024)
	for {
		n, err := r.Read(buf)
		now := time.Now()
		if n > 0 {
			p.bytes.Add(int64(n))
			if p.rec != nil {
				p.rec.Write(buf[:n])
				fmt.Fprintf(p.reads, "%9.3f ms %6d %q\n", ms(now.Sub(p.started)), n, buf[:min(n, 120)])
			}
			p.scr.Write(buf[:n])
			p.mu.Lock()
			if len(p.waits) > 0 {
				text := p.scr.Text()
				kept := p.waits[:0]
				for _, w := range p.waits {
					if w.cond(text) {
						w.at <- now
						continue
					}
					kept = append(kept, w)
				}
				p.waits = kept
			}
			p.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// wait returns when the screen first satisfied cond: the time of the read
// that made it so.
func (p *pane) wait(timeout time.Duration, cond func(string) bool) (time.Time, bool) {
	w := &waiter{cond: cond, at: make(chan time.Time, 1)}
	p.mu.Lock()
	if cond(p.scr.Text()) {
		p.mu.Unlock()
		return time.Now(), true
	}
	p.waits = append(p.waits, w)
	p.mu.Unlock()
	select {
	case at := <-w.at:
		return at, true
	case <-time.After(timeout):
		return time.Time{}, false
	}
}

// tmuxShows checks the emulator against tmux: what decided a figure must
// be on tmux's own screen of the pane too.
func (p *pane) tmuxShows(cond func(string) bool) error {
	text, err := p.tm.output("capture-pane", "-p", "-t", p.target)
	if err != nil {
		return err
	}
	if !cond(text) {
		return fmt.Errorf("the emulator's screen and tmux's differ; tmux:\n%s\nemulator:\n%s", text, p.scr.Text())
	}
	return nil
}

// idle measures the program left alone for d.
func (p *pane) idle(d time.Duration) (idleFigures, error) {
	cpu0, wakes0, err := threadsCPU(p.pid)
	if err != nil {
		return idleFigures{}, err
	}
	b0, t0 := p.bytes.Load(), time.Now()
	time.Sleep(d)
	cpu1, wakes1, err := threadsCPU(p.pid)
	if err != nil {
		return idleFigures{}, err
	}
	return idleFigures{cpu: cpu1 - cpu0, wakes: wakes1 - wakes0, bytes: p.bytes.Load() - b0, period: time.Since(t0)}, nil
}

// close kills the session (the program gets SIGHUP) and waits for the
// program to be gone and its output to end.
func (p *pane) close() error {
	defer func() {
		if p.rec != nil {
			p.rec.Close()
			p.reads.Close()
		}
	}()
	_ = p.tm.run("kill-session", "-t", p.target)
	deadline := time.Now().Add(5 * time.Second)
	for alive(p.pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
			deadline = time.Now().Add(5 * time.Second)
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-p.closed:
		return nil
	case <-time.After(5 * time.Second):
		return errors.New("the pane's output did not end")
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	st, err := parseStat(string(b))
	return err == nil && st.state != 'Z' && st.state != 'X'
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// threadsCPU sums, over pid's threads, the time on a CPU and the number
// of times a thread was put on one (/proc/PID/task/*/schedstat).
func threadsCPU(pid int) (time.Duration, int64, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, err
	}
	var cpu, wakes int64
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "schedstat"))
		if err != nil {
			continue // the thread has just ended
		}
		c, w, err := parseSchedstat(string(b))
		if err != nil {
			return 0, 0, err
		}
		cpu += c
		wakes += w
	}
	return time.Duration(cpu), wakes, nil
}

// parseSchedstat reads a schedstat line: nanoseconds on a CPU,
// nanoseconds waiting for one, timeslices run.
func parseSchedstat(s string) (cpuNs, slices int64, err error) {
	f := strings.Fields(s)
	if len(f) < 3 {
		return 0, 0, fmt.Errorf("schedstat %q: want three fields", s)
	}
	if cpuNs, err = strconv.ParseInt(f[0], 10, 64); err != nil {
		return 0, 0, fmt.Errorf("schedstat %q: %v", s, err)
	}
	if slices, err = strconv.ParseInt(f[2], 10, 64); err != nil {
		return 0, 0, fmt.Errorf("schedstat %q: %v", s, err)
	}
	return cpuNs, slices, nil
}

// stat is what benchpeers reads of /proc/PID/stat.
type stat struct {
	state                        byte
	utime, stime, cutime, cstime int64 // clock ticks
}

// parseStat reads /proc/PID/stat. The command name, in parentheses, may
// hold spaces and parentheses itself: the fields start after the last ')'.
func parseStat(s string) (stat, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, fmt.Errorf("stat %q: no command name", s)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime..cstime are fields 14–17.
	if len(f) < 15 || len(f[0]) != 1 {
		return stat{}, fmt.Errorf("stat %q: too few fields", s)
	}
	var v [4]int64
	for j := range v {
		n, err := strconv.ParseInt(f[11+j], 10, 64)
		if err != nil {
			return stat{}, fmt.Errorf("stat field %d %q: %v", 14+j, f[11+j], err)
		}
		v[j] = n
	}
	return stat{state: f[0][0], utime: v[0], stime: v[1], cutime: v[2], cstime: v[3]}, nil
}

// clockTick is USER_HZ, the unit of /proc/PID/stat's times: 100 on Linux
// on every architecture Go supports.
const clockTick = 100

// processCPU is pid's CPU time so far, its waited-for children's included.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	st, err := parseStat(string(b))
	if err != nil {
		return 0, err
	}
	ticks := st.utime + st.stime + st.cutime + st.cstime
	return time.Duration(ticks) * time.Second / clockTick, nil
}

// peakRSS is pid's VmHWM in KiB.
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseVmHWM(string(b))
}

func parseVmHWM(status string) (int64, error) {
	sc := bufio.NewScanner(strings.NewReader(status))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "VmHWM:" {
			if len(f) == 3 && f[2] != "kB" {
				return 0, fmt.Errorf("VmHWM in %q, not kB", f[2])
			}
			return strconv.ParseInt(f[1], 10, 64)
		}
	}
	return 0, errors.New("no VmHWM line")
}

// figure is one row of the table.
type figure struct {
	what string
	get  func(measurement) float64
	unit string
	prec int
}

var figures = []figure{
	{"first frame (exec → first text)", func(m measurement) float64 { return ms(m.first) }, "ms", 1},
	{"ready prompt (exec → placeholder)", func(m measurement) float64 { return ms(m.ready) }, "ms", 1},
	{"CPU to the ready prompt", func(m measurement) float64 { return ms(m.readyCPU) }, "ms", 1},
	{"idle, landing screen: CPU", func(m measurement) float64 { return m.idleReady.pct() }, "% core", 2},
	{"idle, landing screen: wake-ups", func(m measurement) float64 { return m.idleReady.wakesPerSec() }, "/s", 0},
	{"idle, landing screen: bytes to the terminal", func(m measurement) float64 { return m.idleReady.bytesPerSec() }, "B/s", 0},
	{"Enter → 8 KB reply on screen (wall)", func(m measurement) float64 { return m.streamWall.Seconds() }, "s", 3},
	{"CPU while streaming (Enter → reply on screen)", func(m measurement) float64 { return m.streamCPU.Seconds() }, "s", 3},
	{"idle after the reply: CPU", func(m measurement) float64 { return m.idleReply.pct() }, "% core", 2},
	{"idle after the reply: wake-ups", func(m measurement) float64 { return m.idleReply.wakesPerSec() }, "/s", 0},
	{"idle after the reply: bytes to the terminal", func(m measurement) float64 { return m.idleReply.bytesPerSec() }, "B/s", 0},
	{"total CPU (launch → before quitting)", func(m measurement) float64 { return m.totalCPU.Seconds() }, "s", 2},
	{"peak RSS (VmHWM)", func(m measurement) float64 { return float64(m.hwmKiB) / 1024 }, "MiB", 1},
}

// printTable writes, for each figure and program, the median [min–max]
// of its launches, then the ratios of medians asked for (a/b: a's median
// over b's).
func printTable(w io.Writer, progs []*program, ratios [][2]*program) {
	fmt.Fprintf(w, "\n%d launches of each program, alternating; median [min–max].\n\n", len(progs[0].runs))
	fmt.Fprint(w, "| figure |")
	for _, p := range progs {
		fmt.Fprintf(w, " %s (%s) |", p.name, p.kind.name)
	}
	for _, r := range ratios {
		fmt.Fprintf(w, " %s / %s |", r[0].name, r[1].name)
	}
	fmt.Fprint(w, "\n|---|")
	for range len(progs) + len(ratios) {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, f := range figures {
		fmt.Fprintf(w, "| %s, %s |", f.what, f.unit)
		med := map[*program]float64{}
		for _, p := range progs {
			v := make([]float64, len(p.runs))
			for j, m := range p.runs {
				v[j] = f.get(m)
			}
			m, lo, hi := summary(v)
			med[p] = m
			fmt.Fprintf(w, " %.*f [%.*f–%.*f] |", f.prec, m, f.prec, lo, f.prec, hi)
		}
		for _, r := range ratios {
			if b := med[r[1]]; b != 0 {
				fmt.Fprintf(w, " %.2f× |", med[r[0]]/b)
			} else {
				fmt.Fprint(w, " – |")
			}
		}
		fmt.Fprintln(w)
	}
}

// parseRatios reads a/b,c/d (names of programs); empty: each program
// over the first.
func parseRatios(spec string, progs []*program) ([][2]*program, error) {
	byName := map[string]*program{}
	for _, p := range progs {
		byName[p.name] = p
	}
	var out [][2]*program
	if spec == "" {
		for _, p := range progs[1:] {
			out = append(out, [2]*program{p, progs[0]})
		}
		return out, nil
	}
	for _, r := range strings.Split(spec, ",") {
		a, b, ok := strings.Cut(r, "/")
		pa, pb := byName[a], byName[b]
		if !ok || pa == nil || pb == nil {
			return nil, fmt.Errorf("-ratio %q: want name/name of programs in -compare", r)
		}
		out = append(out, [2]*program{pa, pb})
	}
	return out, nil
}

// summary is the median, minimum and maximum of v (the median of an even
// count is the mean of the middle two).
func summary(v []float64) (med, lo, hi float64) {
	if len(v) == 0 {
		return 0, 0, 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
