// Command benchresume measures resuming a long saved session: it writes a
// 1,000-turn session (each turn: prompt, a tool call and its result, a
// markdown reply) into a fresh data dir with co's own session store, then
// runs `co --continue` in a pseudo-terminal and reports the time from launch
// until the last reply is on screen, and the process's peak RSS. It also
// times `co --continue --plain` to its prompt.
//
//	go run ./scripts/benchresume -co ./bin/co -turns 1000
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
)

func main() {
	bin := flag.String("co", "./bin/co", "the co binary")
	turns := flag.Int("turns", 1000, "turns in the saved session")
	runs := flag.Int("n", 5, "runs of each measurement")
	flag.Parse()
	abs, err := filepath.Abs(*bin)
	check(err)
	*bin = abs
	home, err := os.MkdirTemp("", "co-resume-")
	check(err)
	defer os.RemoveAll(home)
	work := filepath.Join(home, "work")
	check(os.MkdirAll(work, 0o755))
	data := filepath.Join(home, "data")
	st, err := sessions.Open(filepath.Join(data, "co-cli", sessions.FileName))
	check(err)
	rec := st.New(work)
	for i := 0; i < *turns; i++ {
		id := fmt.Sprintf("c%d", i)
		for _, m := range []message.Message{
			{Role: message.RoleUser, Content: fmt.Sprintf("question number %d: what is in the files?", i)},
			{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: id, Name: "run_shell_command", Args: `{"cmd":"ls -la"}`}}},
			{Role: message.RoleTool, ToolCallID: id, ToolName: "run_shell_command", Content: `{"display":"a.txt\nb.txt\nc.txt","exit_code":0}`},
			{Role: message.RoleAssistant, Content: fmt.Sprintf("Answer %d: there are **three** files:\n\n- a.txt\n- b.txt\n- c.txt\n\n```go\nfunc main() {}\n```", i)},
		} {
			check(rec.Append(m))
		}
	}
	st.Close()
	last := fmt.Sprintf("Answer %d: there are", *turns-1)
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color", "LANG=C.UTF-8",
		"XDG_DATA_HOME=" + data, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"LLM_PROVIDER=openai", "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_MODEL=m", "CO_CLI_SANDBOX_BACKEND=subprocess"}

	var tuiT, plainT []time.Duration
	var rss []int64
	for i := 0; i < *runs; i++ {
		d, r := tui(*bin, work, env, last)
		tuiT, rss = append(tuiT, d), append(rss, r)
		plainT = append(plainT, plain(*bin, work, env))
	}
	sort.Slice(tuiT, func(i, j int) bool { return tuiT[i] < tuiT[j] })
	sort.Slice(plainT, func(i, j int) bool { return plainT[i] < plainT[j] })
	sort.Slice(rss, func(i, j int) bool { return rss[i] < rss[j] })
	fmt.Printf("resume of a %d-turn session (%d messages), median of %d runs\n", *turns, *turns*4, *runs)
	fmt.Printf("  co --continue: last reply on screen after %6.1f ms, peak RSS %d MiB\n", ms(tuiT[len(tuiT)/2]), rss[len(rss)/2]>>10)
	fmt.Printf("  co --continue --plain: transcript and prompt after %6.1f ms\n", ms(plainT[len(plainT)/2]))
}

// tui launches co in a PTY and waits until want is on screen.
func tui(bin, dir string, env []string, want string) (time.Duration, int64) {
	cmd := exec.Command(bin, "--continue")
	cmd.Dir, cmd.Env = dir, env
	start := time.Now()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	check(err)
	var seen bytes.Buffer
	buf := make([]byte, 64<<10)
	var took time.Duration
	deadline := time.Now().Add(30 * time.Second)
	for took == 0 && time.Now().Before(deadline) {
		n, err := f.Read(buf)
		seen.Write(buf[:n])
		// The screen is drawn with cursor movements: look for the words.
		if strings.Contains(stripped(seen.Bytes()), stripped([]byte(want))) {
			took = time.Since(start)
		}
		if err != nil {
			break
		}
	}
	if took == 0 {
		fail(fmt.Errorf("the last reply never appeared; output: %q", tail(seen.String())))
	}
	cmd.Process.Signal(syscall.SIGTERM)
	go io.Copy(io.Discard, f)
	cmd.Wait()
	f.Close()
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return took, ru.Maxrss
}

func plain(bin, dir string, env []string) time.Duration {
	cmd := exec.Command(bin, "--continue", "--plain")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.StdoutPipe()
	check(err)
	in, err := cmd.StdinPipe()
	check(err)
	start := time.Now()
	check(cmd.Start())
	var seen strings.Builder
	buf := make([]byte, 64<<10)
	var took time.Duration
	for {
		n, err := out.Read(buf)
		seen.Write(buf[:n])
		if strings.Contains(seen.String(), "(resumed session; type to continue)\nco> ") {
			took = time.Since(start)
			break
		}
		if err != nil {
			fail(fmt.Errorf("--plain never showed its prompt: %q", tail(seen.String())))
		}
	}
	in.Close()
	io.Copy(io.Discard, out)
	cmd.Wait()
	return took
}

// stripped drops escape sequences and spaces, so text drawn in pieces
// still matches.
func stripped(b []byte) string {
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] == 0x1b {
			for i++; i < len(b) && (b[i] < 0x40 || b[i] > 0x7e || b[i] == '['); i++ {
			}
			continue
		}
		if b[i] > ' ' {
			out = append(out, b[i])
		}
	}
	return string(out)
}

func tail(s string) string {
	if len(s) > 400 {
		return s[len(s)-400:]
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func check(err error) {
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchresume:", err)
	os.Exit(1)
}
