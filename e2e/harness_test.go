// Package e2e drives the built co binary as a person or a script would: as
// a process with piped standard streams or in a pseudo-terminal, against the
// scripted LLM server (agent/llmtest) and, for shell tests, a real sandbox.
package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// coBin is the binary under test, built once by TestMain.
var coBin string

func TestMain(m *testing.M) {
	if code, ok := helperMode(); ok { // the conformance suite's client, or its browser
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "co-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	coBin = filepath.Join(dir, "co")
	args := []string{"build", "-o", coBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, "..")
	build := exec.Command("go", args...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building co:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is a clean environment for co: its own home and XDG dirs, the
// scripted server as an OpenAI-compatible provider, a dumb terminal.
func env(t testing.TB, srv *llmtest.Server, extra ...string) []string {
	t.Helper()
	home := t.TempDir()
	e := []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"PATH=" + os.Getenv("PATH"),
		"TERM=dumb",
		"LANG=C.UTF-8",
		// Tests that need the Docker sandbox set CO_CLI_SANDBOX_BACKEND=docker.
		"CO_CLI_SANDBOX_BACKEND=subprocess",
	}
	if srv != nil {
		e = append(e, "LLM_PROVIDER=openai", "OPENAI_BASE_URL="+srv.URL, "OPENAI_MODEL=test-model", "OPENAI_API_KEY=sk-test")
	}
	if v := os.Getenv("DOCKER_HOST"); v != "" {
		e = append(e, "DOCKER_HOST="+v)
	}
	return append(e, extra...)
}

// syncBuffer is a bytes.Buffer safe for one writer and many readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// proc is a running co with piped streams.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *syncBuffer
	stderr *syncBuffer
	done   chan struct{}
	err    error
}

func start(t *testing.T, dir string, environ []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(coBin, args...)
	cmd.Env = environ
	cmd.Dir = dir
	p := &proc{t: t, cmd: cmd, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("stdout:\n%s\nstderr:\n%s", p.stdout, p.stderr)
		}
	})
	return p
}

func (p *proc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("writing %q: %v", line, err)
	}
}

// hangFloor is the least any wait of these tests allows: their deadlines
// only detect a hang, so a loaded machine (a race build, other packages'
// tests, two busy loops) must never come near one. A shorter timeout given
// by a caller says what is expected, and is raised to this.
const hangFloor = time.Minute

// hangDeadline is when a wait of timeout (raised to hangFloor) gives up.
func hangDeadline(timeout time.Duration) time.Time {
	return time.Now().Add(max(timeout, hangFloor))
}

// waitFor waits until stdout contains s, anywhere in what co printed so
// far: text an earlier action printed satisfies it (see waitForNew).
func (p *proc) waitFor(s string, timeout time.Duration) {
	p.t.Helper()
	deadline := hangDeadline(timeout)
	for time.Now().Before(deadline) {
		if strings.Contains(p.stdout.String(), s) {
			return
		}
		select {
		case <-p.done:
			if strings.Contains(p.stdout.String(), s) {
				return
			}
			p.t.Fatalf("co exited (%v) before printing %q", p.err, s)
		case <-time.After(10 * time.Millisecond):
		}
	}
	p.t.Fatalf("timed out waiting for %q", s)
}

// count is how often s appears in stdout.
func (p *proc) count(s string) int { return strings.Count(p.stdout.String(), s) }

// waitForNew does act and waits until stdout holds s more times than just
// before it. stdout keeps everything co printed, so waitFor finds text an
// earlier turn printed (a question asked before, a prompt) at once; this
// waits for act's own. Call it once what came before act is printed.
func (p *proc) waitForNew(s string, timeout time.Duration, act func()) {
	p.t.Helper()
	n := p.count(s)
	act()
	p.waitCount(s, n+1, timeout)
}

func (p *proc) wait(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(max(timeout, hangFloor)):
		p.t.Fatalf("co did not exit within %s", max(timeout, hangFloor))
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		p.t.Fatalf("co: %v", p.err)
	}
	return 0
}

// runCo runs co to completion with stdin and returns its output and code.
func runCo(t testing.TB, dir string, environ []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, coBin, args...)
	cmd.Env = environ
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running co: %v", err)
	}
	return out.String(), errb.String(), code
}

func execOut(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}

func itoa(n int) string { return fmt.Sprint(n) }
