// Command benchexit measures what the Docker sandbox costs a person at both ends of a session,
// against the engine DOCKER_HOST names (or the default one):
//
//   - co --plain, "!true" typed at the first prompt: prompt → the command's result (the container
//     is created meanwhile), and whether co said "starting the sandbox…" while it waited;
//   - then end of input (Ctrl+D) → co has exited, and → the engine has removed the container;
//   - co run with one `ls` from a scripted model: launch → exit.
//
// It prints the median and the slowest of n runs of each.
//
//	go run ./scripts/benchexit -co ./bin/co -n 5
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

func main() {
	bin := flag.String("co", "./bin/co", "the co binary")
	n := flag.Int("n", 5, "runs of each measurement")
	flag.Parse()
	abs, err := filepath.Abs(*bin) // co runs in a directory of its own
	if err != nil {
		fail(err)
	}
	*bin = abs
	srv := llmtest.NewServer()
	defer srv.Close()

	var first, exit, gone, run []time.Duration
	said := 0
	for i := 0; i < *n; i++ {
		f, e, g, s := plainRun(*bin, srv)
		first, exit, gone = append(first, f), append(exit, e), append(gone, g)
		if s {
			said++
		}
		run = append(run, coRun(*bin, srv))
	}
	fmt.Printf("engine: %s, storage driver %s\n", host(), driver())
	fmt.Printf("%-58s %10s %10s\n", "measurement", "median", "max")
	row := func(name string, d []time.Duration) {
		slices.Sort(d)
		fmt.Printf("%-58s %10s %10s\n", name, ms(d[len(d)/2]), ms(d[len(d)-1]))
	}
	row("--plain: prompt → first command's result (!true at once)", first)
	row("--plain: end of input → co exited", exit)
	row("--plain: end of input → container removed", gone)
	row("co run, one ls: launch → exit", run)
	fmt.Printf("\"starting the sandbox…\" shown in %d of %d first commands\n", said, *n)
}

func environ(srv *llmtest.Server) []string {
	home, err := os.MkdirTemp("", "co-bench-exit-")
	if err != nil {
		fail(err)
	}
	e := []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"LLM_PROVIDER=openai", "OPENAI_BASE_URL=" + srv.URL, "OPENAI_MODEL=m", "OPENAI_API_KEY=sk-bench",
		"CO_CLI_SANDBOX_BACKEND=docker",
	}
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		e = append(e, "DOCKER_HOST="+h)
	}
	return e
}

// plainRun: the first command's latency from the prompt, exit time, time until the container is
// gone, and whether the starting notice was printed.
func plainRun(bin string, srv *llmtest.Server) (first, exit, gone time.Duration, said bool) {
	e := environ(srv)
	defer os.RemoveAll(strings.TrimPrefix(e[0], "HOME="))
	cmd := exec.Command(bin, "--plain")
	cmd.Env = e
	cmd.Dir = strings.TrimPrefix(e[0], "HOME=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		fail(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	r := bufio.NewReader(stdout)
	readUntil(r, "co> ", nil)
	prompt := time.Now()
	io.WriteString(stdin, "!true\n")
	var seen strings.Builder
	readUntil(r, "result: run_shell_command", &seen)
	first = time.Since(prompt)
	said = strings.Contains(seen.String(), "starting the sandbox")
	readUntil(r, "co> ", nil)
	pid := cmd.Process.Pid
	eof := time.Now()
	stdin.Close()
	go io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil {
		fail(fmt.Errorf("co --plain: %w", err))
	}
	exit = time.Since(eof)
	for {
		out, err := exec.Command("docker", "ps", "-aq", "--filter", "label=co-cli.pid="+strconv.Itoa(pid)).Output()
		if err != nil {
			fail(err)
		}
		if strings.TrimSpace(string(out)) == "" {
			break
		}
		if time.Since(eof) > 5*time.Minute {
			fail(fmt.Errorf("co's container is still there 5 minutes after it exited"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	return first, exit, time.Since(eof), said
}

// coRun: co run with a model that calls ls once, launch to exit.
func coRun(bin string, srv *llmtest.Server) time.Duration {
	args, _ := json.Marshal(map[string]string{"cmd": "ls"})
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "run_shell_command", Args: string(args)}}}, llmtest.Reply{Text: "done"})
	e := environ(srv)
	defer os.RemoveAll(strings.TrimPrefix(e[0], "HOME="))
	cmd := exec.Command(bin, "run", "list the files")
	cmd.Env = e
	cmd.Dir = strings.TrimPrefix(e[0], "HOME=")
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		fail(fmt.Errorf("co run: %w\n%s", err, out))
	}
	return time.Since(start)
}

func readUntil(r *bufio.Reader, s string, keep *strings.Builder) {
	var got strings.Builder
	buf := make([]byte, 1)
	for !strings.HasSuffix(got.String(), s) {
		if _, err := r.Read(buf); err != nil {
			fail(fmt.Errorf("reading co's output (waiting for %q): %w\n%s", s, err, got.String()))
		}
		got.WriteByte(buf[0])
	}
	if keep != nil {
		keep.WriteString(got.String())
	}
}

func host() string {
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		return h
	}
	return "default"
}

func driver() string {
	out, err := exec.Command("docker", "info", "--format", "{{.Driver}}").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchexit:", err)
	os.Exit(1)
}
