package mcp

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioTransport runs a local server and speaks to it over its stdin and
// stdout, as the SDK's CommandTransport does, with two additions: the
// manager is told the process as soon as it runs (a server still starting
// has a process co must end when it stops), and what the server writes to
// stdout passes a junkWatch, so that a server printing a banner or a log
// line there is reported in words ("wrote something that is not JSON-RPC
// to stdout: …") rather than as the decoder's "invalid character 'h'
// looking for beginning of value".
type stdioTransport struct {
	cmd     *exec.Cmd
	started func(pid int)
	junk    *junkWatch
	// terminate is how long closing waits, after stdin closes, before
	// SIGTERM, and after SIGTERM before SIGKILL.
	terminate time.Duration
}

func (t stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	t.started(t.cmd.Process.Pid)
	// Closing the connection closes stdin (the server's cue to exit), not
	// stdout, as the SDK's CommandTransport does.
	return (&sdk.IOTransport{
		Reader: io.NopCloser(t.junk.reader(stdout)),
		Writer: &procStdin{WriteCloser: stdin, cmd: t.cmd, terminate: t.terminate},
	}).Connect(ctx)
}

// procStdin is the server's stdin; closing it ends the server as the MCP
// specification's stdio shutdown says and the SDK's CommandTransport
// (mcp/cmd.go, pipeRWC.Close) does it: close stdin, wait for the process
// to exit, then SIGTERM, then SIGKILL.
// https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#stdio
type procStdin struct {
	io.WriteCloser
	cmd       *exec.Cmd
	terminate time.Duration
}

func (p *procStdin) Close() error {
	if err := p.WriteCloser.Close(); err != nil {
		return fmt.Errorf("closing stdin: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	wait := func() (error, bool) {
		select {
		case err := <-done:
			return err, true
		case <-time.After(p.terminate):
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := p.cmd.Process.Kill(); err != nil {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return fmt.Errorf("unresponsive subprocess")
}

// junkShown is how much of a line that is not JSON-RPC is quoted.
const junkShown = 60

// junkWatch watches a stdio server's stdout, line by line, for the first
// line that cannot be a JSON-RPC message: one whose first character that
// is not white space is not '{' or '[' (newline-delimited JSON, the stdio
// transport: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio).
type junkWatch struct {
	mu    sync.Mutex
	bol   bool   // at the start of a line (only white space so far)
	in    bool   // inside the first junk line
	first []byte // its first bytes
	done  bool   // the first junk line is complete or long enough
}

func newJunkWatch() *junkWatch { return &junkWatch{bol: true} }

func (j *junkWatch) reader(r io.Reader) io.Reader { return junkReader{r: r, j: j} }

type junkReader struct {
	r io.Reader
	j *junkWatch
}

func (r junkReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.j.see(p[:n])
	return n, err
}

func (j *junkWatch) see(b []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, c := range b {
		if j.done {
			return
		}
		switch {
		case j.in:
			if c == '\n' || len(j.first) >= junkShown+1 {
				j.done = true
				continue
			}
			j.first = append(j.first, c)
		case c == '\n':
			j.bol = true
		case !j.bol:
		case c == ' ' || c == '\t' || c == '\r':
		case c == '{' || c == '[':
			j.bol = false
		default:
			j.in = true
			j.first = append(j.first, c)
		}
	}
}

// explain is why the server failed when it wrote a line that is not
// JSON-RPC to stdout (its first bytes quoted, control characters and
// invalid UTF-8 escaped, so they never reach a terminal raw); "" when it
// wrote none.
func (j *junkWatch) explain() string {
	if j == nil {
		return ""
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.first) == 0 {
		return ""
	}
	b, more := j.first, ""
	if len(b) > junkShown {
		n := junkShown
		for n > 0 && !utf8.RuneStart(b[n]) {
			n-- // not in the middle of a character
		}
		b, more = b[:n], "…"
	}
	return "the server wrote something that is not JSON-RPC to stdout: " + strconv.Quote(string(b)) + more +
		" (a stdio server may write only protocol messages there; logs belong on stderr)"
}
