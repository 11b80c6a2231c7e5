package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/co-cli/co/lib/count"
	"github.com/co-cli/co/lib/redact"
)

// attempt is one start of a server. Its goroutine (connect) owns what
// the start makes, the log file, the process and the session until it is
// handed to the server, and ends all that is not handed over; done is
// closed when it has: the process killed and reaped (the SDK's Connect
// returns only after it has closed what it made), the log file closed.
// stop cancels the attempt and waits for done, so Close returns with
// nothing of a start still running or writing.
type attempt struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// start connects the server in the background.
func (s *server) start() {
	m := s.m
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	s.gen++
	gen := s.gen
	s.state, s.err, s.detail, s.closing = Starting, "", "", false
	timeout := s.cfg.timeout()
	s.deadline = time.Now().Add(timeout)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	a := &attempt{cancel: cancel, done: make(chan struct{})}
	s.att = a
	ready := make(chan struct{})
	s.ready = ready
	m.mu.Unlock()
	reported := make(chan struct{})
	go func() {
		defer close(a.done)
		defer cancel()
		s.connect(ctx, gen, sync.OnceFunc(func() { close(reported) }))
	}()
	go func() {
		// The start is told at the timeout even when connect is slower to
		// end (the SDK waits for a process slow to exit).
		defer close(ready)
		select {
		case <-reported:
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				s.timedOut(gen, timeout)
			}
		}
	}()
}

// connect starts the process or opens the connection, initialises the
// session and lists the tools, within ctx (the server's timeout, ended
// early by stop), and calls reported once it has said how that went.
func (s *server) connect(ctx context.Context, gen int, reported func()) {
	defer reported()
	defer func() {
		if r := recover(); r != nil {
			s.fail(gen, fmt.Sprintf("internal error: %v", r), nil)
		}
	}()
	if h := s.m.startHook; h != nil {
		h(ctx)
	}
	if ctx.Err() != nil {
		return // stopped before it began: nothing to make
	}
	tr, cmd, logFile, err := s.transport(ctx, gen)
	if logFile != nil {
		// Closed once Connect, which starts the process (which keeps its
		// own copy), has returned.
		defer logFile.Close()
	}
	if err != nil {
		s.fail(gen, err.Error(), err)
		return
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "co", Version: s.m.opts.Version}, &sdk.ClientOptions{
		// co offers no roots or sampling; elicitation as a form or a URL
		// shown to the user (elicit.go).
		Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{
			Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}},
		ElicitationHandler: s.elicit,
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			go s.refresh(gen)
		},
	})
	client.AddReceivingMiddleware(s.refusedForms)
	cs, err := client.Connect(ctx, tr, nil)
	var list []*sdk.Tool
	if err == nil {
		list, err = listTools(ctx, cs)
	}
	if err == nil && s.connected(gen, cs, cmd, list) {
		go s.watch(gen, cs)
		return
	}
	if err != nil {
		msg := err.Error()
		if errors.Is(err, context.DeadlineExceeded) {
			msg = timeoutReason(s.cfg.timeout())
		}
		s.failStart(gen, msg, err)
	}
	reported()
	// Failed, or stopped meanwhile: end what the attempt made.
	s.endAttempt(gen, cmd)
	if cs != nil {
		_ = cs.Close() // reaps the process, killed above
	}
}

// connected makes cs attempt gen's session unless the attempt was stopped
// or has failed (timed out) meanwhile.
func (s *server) connected(gen int, cs *sdk.ClientSession, cmd *exec.Cmd, list []*sdk.Tool) bool {
	m := s.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.gen != gen || m.closed || s.state != Starting {
		return false
	}
	s.session, s.proc, s.state = cs, cmd, Connected
	if ir := cs.InitializeResult(); ir != nil {
		s.protocol = ir.ProtocolVersion
	}
	s.setTools(list)
	if m.listen != nil {
		// A front end that shows notices as they happen says so: its
		// banner counted the tools before the server's were in.
		s.notice("MCP server %s connected: %s", s.cfg.Name, count.Of(len(s.tools), "tool"))
	}
	return true
}

// timedOut fails attempt gen, still starting at its timeout (unless
// connect said so first), and kills its process group: the SDK's Connect,
// which closes what it made before it returns, then need not wait for a
// server slow to exit.
func (s *server) timedOut(gen int, timeout time.Duration) {
	m := s.m
	m.mu.Lock()
	s.failHeld(gen, timeoutReason(timeout), context.DeadlineExceeded)
	pgid := 0
	if s.gen == gen && s.state != Connected {
		pgid = s.pgid
	}
	m.mu.Unlock()
	killPgid(pgid)
}

func timeoutReason(timeout time.Duration) string {
	return fmt.Sprintf("did not finish starting within %s (timeout_seconds)", timeout)
}

// watch waits for the session to end; an end nobody asked for fails the
// server and withdraws its tools.
func (s *server) watch(gen int, cs *sdk.ClientSession) {
	defer func() { _ = recover() }()
	err := cs.Wait()
	m := s.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.gen != gen || s.closing || m.closed {
		return
	}
	reason := "the server closed the connection"
	if s.proc != nil {
		reason = "the server process exited"
		if st := s.proc.ProcessState; st != nil {
			reason = "the server process exited (" + st.String() + ")"
		}
	}
	// The exit status is said once: the session's error is often the
	// same *exec.ExitError ("signal: terminated") as ProcessState's.
	var exitErr *exec.ExitError
	if err != nil && !errors.Is(err, sdk.ErrConnectionClosed) && !errors.Is(err, io.EOF) && !errors.As(err, &exitErr) &&
		!strings.Contains(reason, err.Error()) {
		reason += ": " + s.unexp.text(err.Error())
	}
	reason = withJunk(s.junk, reason)
	n := len(s.tools)
	s.failLocked(reason)
	s.problem("MCP server %s failed: %s; its %s withdrawn (/mcp restart %s)", s.cfg.Name, reason, count.Of(n, "tool was", "tools were"), s.cfg.Name)
	s.logLine("failed: " + reason)
}

// fail marks the current start attempt failed. err, when not nil, is the
// error behind reason: said in words when it is a server out of reach or
// a command not found, the raw text kept as the status's Detail and in
// the log.
func (s *server) fail(gen int, reason string, err error) {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	s.failHeld(gen, reason, err)
}

// failHeld is fail with m.mu held; false when attempt gen is no longer
// the one starting (stopped, timed out, connected).
func (s *server) failHeld(gen int, reason string, err error) bool {
	if s.gen != gen || s.state != Starting {
		return false
	}
	detail := ""
	if words := s.inWords(err); words != "" && s.junk.explain() == "" {
		detail, reason = s.unexp.text(reason), words
	}
	reason = withJunk(s.junk, s.unexp.text(reason))
	s.failLocked(reason)
	s.detail = detail
	s.problem("MCP server %s failed to start: %s", s.cfg.Name, reason)
	if detail != "" {
		s.logLine("failed to start: " + reason + " (" + detail + ")")
	} else {
		s.logLine("failed to start: " + reason)
	}
	return true
}

// inWords says what err means for this server when it is one a user meets
// first: the URL refuses connections or has no address, the command is
// not there. "" for the rest, which keep their own text.
func (s *server) inWords(err error) string {
	if err == nil {
		return ""
	}
	name := s.cfg.Name
	if s.cfg.Remote() {
		url := s.unexp.text(s.cfg.URL)
		var dns *net.DNSError
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			return fmt.Sprintf("could not connect to %s: connection refused — is the server running? (mcp_servers.%s.url)", url, name)
		case errors.As(err, &dns):
			return fmt.Sprintf("could not connect to %s: cannot resolve the host %s — check mcp_servers.%s.url", url, dns.Name, name)
		}
		return ""
	}
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("command %s not found — check mcp_servers.%s.command (a full path, or a program on PATH)", s.unexp.text(s.cfg.Command), name)
	}
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Sprintf("command %s cannot be run (permission denied) — check mcp_servers.%s.command", s.unexp.text(s.cfg.Command), name)
	}
	return ""
}

// withJunk is reason, said in words when the server wrote something
// that is not JSON-RPC to stdout (the decoder's "invalid character 'h'
// looking for beginning of value" says nothing to a user): that first, then
// reason unless it is only the decoder's complaint.
func withJunk(j *junkWatch, reason string) string {
	why := j.explain()
	if why == "" {
		return reason
	}
	if strings.Contains(reason, "invalid character") || strings.Contains(reason, "invalid trailing data") {
		return why
	}
	return why + "; " + reason
}

// logLine appends one line of co's about a local server (why it failed or
// exited, settings as written) to its log file, the file /mcp names.
func (s *server) logLine(line string) {
	p := s.m.logPath(s.cfg.Name)
	if p == "" || s.cfg.Remote() {
		return
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "--- co: %s %s at %s\n", s.cfg.Name, strings.ReplaceAll(line, "\n", " "), time.Now().Format(time.RFC3339))
	f.Close()
}

func (s *server) failLocked(reason string) {
	if reg := s.m.opts.Registry; reg != nil {
		reg.Remove(s.tools...)
	}
	s.tools = nil
	s.state, s.err = Failed, reason
	s.session = nil
}

// stop ends the current session or start attempt, if any, and waits for
// it.
func (s *server) stop() {
	m := s.m
	m.mu.Lock()
	cs, pgid, a := s.session, s.pgid, s.att
	s.closing = true
	s.gen++ // events of the stopped session are stale
	if reg := m.opts.Registry; reg != nil {
		reg.Remove(s.tools...)
	}
	s.tools, s.session, s.proc, s.pgid = nil, nil, nil, 0
	if s.state == Connected || s.state == Starting {
		s.state = NotStarted
	}
	m.mu.Unlock()
	if a != nil {
		a.cancel()
	}
	if cs != nil {
		closeSession(cs, pgid)
	}
	killPgid(pgid)
	if a != nil {
		<-a.done // a start under way has ended what it made
	}
}

// closeSession closes cs, ending process group pgid (0: a remote server)
// if it does not exit within the grace periods.
func closeSession(cs *sdk.ClientSession, pgid int) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { _ = recover() }()
		_ = cs.Close()
	}()
	wait := func(d time.Duration) bool {
		select {
		case <-done:
			return true
		case <-time.After(d):
			return false
		}
	}
	if pgid == 0 {
		wait(remoteCloseWait)
		return
	}
	if wait(stopGrace) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	if wait(stopGrace) {
		return
	}
	killPgid(pgid)
	wait(stopGrace) // the SDK reaps the process
}

// started records the process group of attempt gen's local server as soon
// as its process runs; an attempt already stopped or out of time (or a
// manager closed) has it ended at once.
func (s *server) started(ctx context.Context, gen int, pid int) {
	m := s.m
	m.mu.Lock()
	stale := s.gen != gen || m.closed || ctx.Err() != nil
	if !stale {
		s.pgid = pid
	}
	m.mu.Unlock()
	if stale {
		killPgid(pid)
	}
}

// endAttempt ends what is left of attempt gen's process group after a
// failed start.
func (s *server) endAttempt(gen int, cmd *exec.Cmd) {
	killGroup(cmd)
	if cmd == nil || cmd.Process == nil {
		return
	}
	m := s.m
	m.mu.Lock()
	if s.gen == gen && s.pgid == cmd.Process.Pid {
		s.pgid = 0
	}
	m.mu.Unlock()
}

// transport makes the SDK transport for the server: a process over stdio
// (its stderr to the log file, in its own process group so the terminal's
// Ctrl+C does not reach it) or streamable HTTP with the configured headers.
func (s *server) transport(ctx context.Context, gen int) (sdk.Transport, *exec.Cmd, *os.File, error) {
	missing := map[string]bool{}
	get := s.m.opts.Getenv
	s.m.mu.Lock()
	s.unexp = newUnexpander(s.cfg, get)
	s.junk = nil
	s.m.mu.Unlock()
	x := func(v string) string { return expand(v, get, missing) }
	if s.cfg.Remote() {
		u, h, oc := s.remote(x)
		if err := missingVars(missing); err != nil {
			return nil, nil, nil, err
		}
		// MaxRetries is left at the SDK's default (5; a negative value
		// disables it), which keeps its reconnection of a dropped stream
		// (SSE retry with Last-Event-ID) working: resume_test.go.
		tr := &sdk.StreamableClientTransport{Endpoint: u, HTTPClient: &http.Client{Transport: headerTransport{h: h, base: tagTransport{base: s.m.roundTrip}}}}
		var ah *authHandler
		if s.m.opts.Auth != nil && h.Get("Authorization") == "" {
			// A server given its own Authorization header is not asked
			// to log in: a 401 then means that header is wrong.
			var err error
			if ah, err = newAuthHandler(s.cfg, u, oc, s.m.opts.Auth, nil, s.m.secrets()); err != nil {
				return nil, nil, nil, err
			}
			tr.OAuthHandler = ah
		}
		s.m.mu.Lock()
		s.auth = ah
		s.m.mu.Unlock()
		return tr, nil, nil, nil
	}
	args := make([]string, len(s.cfg.Args))
	for i, a := range s.cfg.Args {
		args[i] = x(a)
	}
	cmd := exec.Command(x(s.cfg.Command), args...)
	// A project's server (a file from a repository) gets co's environment
	// without the variables whose names look secret, as the unsandboxed
	// shell's commands do (redact.SecretName), plus the env its definition
	// sets (which the consent shows); a user's own server gets it all.
	cmd.Env = os.Environ()
	if s.cfg.Project {
		cmd.Env = redact.WithoutSecretNames(cmd.Env)
	}
	for _, k := range slices.Sorted(maps.Keys(s.cfg.Env)) {
		cmd.Env = append(cmd.Env, k+"="+x(s.cfg.Env[k]))
	}
	cmd.Dir = x(s.cfg.Cwd)
	if cmd.Dir == "" && !s.cfg.Project {
		// A server of the user's own settings starts in every workspace:
		// there, python -m NAME would import the repository's NAME.py and
		// npx its node_modules. It starts in co's folder of server logs
		// instead, unless its cwd says where; a project's server (consented
		// to) starts in the workspace it came with.
		cmd.Dir = s.m.neutralDir()
	}
	if err := missingVars(missing); err != nil {
		return nil, nil, nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var logFile *os.File
	if p := s.m.logPath(s.cfg.Name); p != "" {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err == nil {
			if f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
				fmt.Fprintf(f, "--- co started %s at %s\n", s.cfg.Name, time.Now().Format(time.RFC3339))
				cmd.Stderr, logFile = f, f
			}
		}
	}
	if cmd.Stderr == nil {
		cmd.Stderr = io.Discard // never the terminal
	}
	s.m.mu.Lock()
	s.junk = newJunkWatch()
	s.m.mu.Unlock()
	return stdioTransport{cmd: cmd, started: func(pid int) { s.started(ctx, gen, pid) }, junk: s.junk, terminate: 2 * time.Second},
		cmd, logFile, nil
}

// takeNeeded is the current attempt's last refusal only a login answers,
// cleared; nil when there is none.
func (s *server) takeNeeded() *NeedsLoginError {
	s.m.mu.Lock()
	ah := s.auth
	s.m.mu.Unlock()
	return ah.takeNeeded()
}

// failStart fails start attempt gen, unless what refused it was a server
// wanting a login: then the server needs one (needLogin), not failed.
func (s *server) failStart(gen int, reason string, err error) {
	if ne := s.takeNeeded(); ne != nil {
		s.needLogin(gen, ne)
		return
	}
	s.fail(gen, reason, err)
}

// needLogin marks attempt gen as waiting for the user's login: the server
// is not failed, its tools are not there, and the notice says how to log in.
func (s *server) needLogin(gen int, ne *NeedsLoginError) {
	m := s.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.gen != gen || s.state != Starting {
		return
	}
	s.failLocked(ne.Error())
	s.state, s.detail = NeedsLogin, ne.Why
	s.authStamp = m.opts.Auth.stamp(s.cfg.Name)
	s.problem("%s", ne.Error())
}

func missingVars(missing map[string]bool) error {
	if len(missing) == 0 {
		return nil
	}
	names := slices.Sorted(maps.Keys(missing))
	return fmt.Errorf("the settings reference ${%s}, which is not set in the environment", strings.Join(names, "}, ${"))
}

// killGroup ends what is left of a local server's process group (npx and
// the node it started, for one).
func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	killPgid(cmd.Process.Pid)
}

// killPgid ends process group pgid (a server runs as the leader of its
// own group, Setpgid); 0 is none.
func killPgid(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// headerTransport adds the configured headers to every request, which
// base (http.DefaultTransport when nil) carries.
type headerTransport struct {
	h    http.Header
	base http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	if t.base != nil {
		return t.base.RoundTrip(r)
	}
	return http.DefaultTransport.RoundTrip(r)
}
