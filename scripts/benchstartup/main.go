// Command benchstartup measures co's start-up: `co version` to exit, and
// `co --plain` from launch to its first prompt on standard output. It runs
// each many times and prints the median and the 90th percentile.
//
//	go run ./scripts/benchstartup -co ./co -n 50
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	bin := flag.String("co", "./co", "the co binary")
	n := flag.Int("n", 50, "runs of each measurement")
	flag.Parse()
	home, err := os.MkdirTemp("", "co-bench-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(home)
	env := []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=dumb",
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		// A configured provider: no probe, as for a user with a key.
		"LLM_PROVIDER=openai", "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_MODEL=m",
		// Measure co, not the sandbox engine: the container starts in the
		// background anyway.
		"CO_CLI_SANDBOX_BACKEND=subprocess",
	}
	version := measure(*n, func() time.Duration { return timeVersion(*bin, env) })
	plain := measure(*n, func() time.Duration { return timePlainPrompt(*bin, env) })
	fmt.Printf("%-36s %10s %10s\n", "measurement", "median", "p90")
	fmt.Printf("%-36s %10s %10s\n", "co version (launch to exit)", ms(version[len(version)/2]), ms(version[len(version)*9/10]))
	fmt.Printf("%-36s %10s %10s\n", "co --plain (launch to first prompt)", ms(plain[len(plain)/2]), ms(plain[len(plain)*9/10]))
}

func measure(n int, f func() time.Duration) []time.Duration {
	f() // warm the page cache
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = f()
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func timeVersion(bin string, env []string) time.Duration {
	cmd := exec.Command(bin, "version")
	cmd.Env = env
	start := time.Now()
	if err := cmd.Run(); err != nil {
		fail(err)
	}
	return time.Since(start)
}

func timePlainPrompt(bin string, env []string) time.Duration {
	cmd := exec.Command(bin, "--plain")
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		fail(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	r := bufio.NewReader(stdout)
	var seen strings.Builder
	buf := make([]byte, 4096)
	var d time.Duration
	for {
		k, err := r.Read(buf)
		seen.Write(buf[:k])
		if strings.Contains(seen.String(), "co> ") {
			d = time.Since(start)
			break
		}
		if err != nil {
			fail(fmt.Errorf("co exited before its prompt: %v\n%s", err, seen.String()))
		}
	}
	stdin.Close()
	io.Copy(io.Discard, r)
	cmd.Wait()
	return d
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchstartup:", err)
	os.Exit(1)
}
