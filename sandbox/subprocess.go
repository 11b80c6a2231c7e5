package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/co-cli/co/lib/redact"
)

// Subprocess runs commands on this machine with `sh -c` in the workspace directory (Isolation
// None). Each command gets its own process group, which is killed whole (SIGKILL) when the command
// times out, when ctx is cancelled, on Close, and also when the shell exits: nothing a command
// starts outlives its Run (unless it leaves the process group on purpose, e.g. with setsid).
// The environment is an allowlist (see [subprocessEnv]).
type Subprocess struct {
	workspace  string
	maxTimeout time.Duration
	env        []string
	watch      *Watch // nil: no Watch

	life   context.Context // done on Close
	cancel context.CancelFunc
}

func newSubprocess(cfg Config) *Subprocess {
	life, cancel := context.WithCancel(context.Background())
	return &Subprocess{
		workspace:  cfg.Workspace,
		maxTimeout: cfg.MaxTimeout,
		env:        subprocessEnv(os.Environ()),
		watch:      cfg.Watch,
		life:       life,
		cancel:     cancel,
	}
}

// Isolation reports None.
func (s *Subprocess) Isolation() Isolation { return None }

// Close kills the commands still running; Run then returns ErrClosed. Idempotent.
func (s *Subprocess) Close() error {
	s.cancel()
	return nil
}

// envAllowed are the variables a subprocess inherits from co's environment.
var envAllowed = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LANG": true, "LC_ALL": true,
	"TERM": true, "SHELL": true, "TMPDIR": true,
}

// subprocessEnv filters environ ("NAME=value" entries) down to the allowlist, drops any name that
// looks like it holds a secret, and sets PAGER and GIT_PAGER to cat so nothing waits for a pager.
func subprocessEnv(environ []string) []string {
	var env []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || !envAllowed[name] || looksSecret(name) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PAGER=cat", "GIT_PAGER=cat")
}

// looksSecret is the rule a project's MCP servers share (redact.SecretName): KEY, SECRET, TOKEN or
// PASSWORD in the name.
func looksSecret(name string) bool { return redact.SecretName(name) }

// pipeDrain bounds how long Run waits for output after the process group is dead: a process that
// left the group (setsid) may still hold the pipe.
const pipeDrain = time.Second

// Run runs cmd with sh -c in the workspace. See the package documentation for the contract.
func (s *Subprocess) Run(ctx context.Context, cmd string, opts Options) (Output, error) {
	if s.life.Err() != nil {
		return Output{}, ErrClosed
	}
	secs := effectiveTimeout(opts.Timeout, s.maxTimeout)
	capt := newCapture(maxOutput(opts))
	if s.watch != nil {
		// Approved: its changes while it runs are its own; what changes after its process
		// group is killed (a process that left the group) is not.
		s.watch.BeginApproved()
		defer s.watch.EndApproved()
	}

	r, w, err := os.Pipe()
	if err != nil {
		return Output{}, fmt.Errorf("sandbox: pipe: %w", err)
	}
	c := exec.Command("/bin/sh", "-c", cmd)
	c.Dir = s.workspace
	c.Env = s.env
	// One *os.File for both: the child writes to the pipe directly, in order, and Wait does not
	// wait for copying goroutines that a lingering grandchild could keep alive.
	c.Stdout, c.Stderr = w, w
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	start := time.Now()
	if err := c.Start(); err != nil {
		r.Close()
		w.Close()
		return Output{}, fmt.Errorf("sandbox: start sh: %w", err)
	}
	w.Close()
	pgid := c.Process.Pid // Setpgid makes the shell the leader of a new group

	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		_, _ = io.Copy(capt, r)
	}()
	exited := make(chan struct{})
	var waitErr error
	go func() {
		defer close(exited)
		waitErr = c.Wait()
	}()

	timer := time.NewTimer(time.Duration(secs) * time.Second)
	defer timer.Stop()
	var timedOut bool
	var cause error
	select {
	case <-exited:
	case <-timer.C:
		timedOut = true
	case <-ctx.Done():
		cause = ctx.Err()
	case <-s.life.Done():
		cause = ErrClosed
	}
	// Kill the whole group, also after a normal exit, so that no background child survives. Once
	// the shell is reaped its pid could in principle be reused as a group id, but only after the
	// pid space wraps around; the window is microseconds.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-exited
	select {
	case <-readDone:
	case <-time.After(pipeDrain):
		r.Close() // unblocks io.Copy
		<-readDone
	}
	r.Close()

	out := Output{Duration: time.Since(start), TimedOut: timedOut}
	out.ExitCode = exitCode(c.ProcessState, waitErr)
	if timedOut {
		out.ExitCode = 124
	}
	out.Text, out.Truncated = capt.text(timedOut, secs)
	if cause != nil {
		return out, cause
	}
	if c.ProcessState == nil {
		return out, fmt.Errorf("sandbox: wait for sh: %w", waitErr)
	}
	return out, nil
}

// exitCode is the shell's exit status, as a shell would report it (128+n for signal n).
func exitCode(ps *os.ProcessState, waitErr error) int {
	if ps == nil {
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) {
			ps = ee.ProcessState
		} else {
			return -1
		}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

var _ Sandbox = (*Subprocess)(nil)
