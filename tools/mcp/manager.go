package mcp

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/co-cli/co/lib/protect"
	"github.com/co-cli/co/lib/redact"
	"github.com/co-cli/co/tools"
)

// State is where a server is in its life.
type State int

// The states. A project server waits for consent (AwaitingConsent) until
// the user trusts its definition; a disabled one is only listed.
const (
	NotStarted State = iota
	Starting
	Connected
	Failed
	AwaitingConsent
	Disabled
	// NeedsLogin is a remote server that refused co until the user logs in
	// (co mcp login, /mcp login): not a failure.
	NeedsLogin
)

func (s State) String() string {
	switch s {
	case NotStarted:
		return "not started"
	case Starting:
		return "starting"
	case Connected:
		return "connected"
	case Failed:
		return "failed"
	case AwaitingConsent:
		return "awaiting consent"
	case Disabled:
		return "disabled"
	case NeedsLogin:
		return "needs login"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Status is one server as /mcp and co mcp list show it.
type Status struct {
	Name  string
	State State
	Err   string // why it failed, in words
	// Detail is the error as the system or the SDK said it, when Err puts
	// it in words ("dial tcp …: connect: connection refused"), for /mcp
	// and co mcp list; "" when Err is all there is.
	Detail  string
	Tools   []string // the names offered to the model, sorted
	Project bool     // declared in the project file
	Remote  bool     // reached over HTTP
	Target  string   // the command or URL, unexpanded
	Log     string   // where a local server's stderr goes
	Auto    bool     // "approve": "auto"
	// TrustedContent is "trusted_content": true: the server's results are
	// not untrusted content.
	TrustedContent bool
	// Protocol is the protocol version negotiated, once connected.
	Protocol string
	// Definition, for a project's server, is everything its definition
	// says beyond Target, as written (the user consents to all of it): the
	// working directory, each env and header value, and which of the
	// user's environment variables it reads (a header can carry one to
	// the server).
	Definition []string
	// Files, for a project's server, are the files inside the project its
	// command or arguments name, relative to the project: their content
	// is part of the consent (a changed file asks again).
	Files []string
}

// definition lists what a project server's definition says beyond its
// command or URL, values as written.
func definition(c ServerConfig) []string {
	var out []string
	if c.Cwd != "" {
		out = append(out, "cwd: "+c.Cwd)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		out = append(out, "env: "+k+"="+c.Env[k])
	}
	for _, k := range slices.Sorted(maps.Keys(c.Headers)) {
		out = append(out, "header: "+k+": "+c.Headers[k])
	}
	for _, kv := range [][2]string{{"client_id", c.OAuth.ClientID}, {"client_secret", c.OAuth.ClientSecret}, {"client_metadata_url", c.OAuth.ClientMetadataURL}} {
		if kv[1] != "" {
			out = append(out, "oauth: "+kv[0]+"="+kv[1])
		}
	}
	refs := map[string]bool{}
	for _, v := range append(append([]string{c.Command, c.URL, c.Cwd, c.OAuth.ClientID, c.OAuth.ClientSecret, c.OAuth.ClientMetadataURL}, c.Args...), append(slices.Collect(maps.Values(c.Env)), slices.Collect(maps.Values(c.Headers))...)...) {
		for _, m := range envRef.FindAllStringSubmatch(v, -1) {
			refs[m[1]] = true
		}
	}
	if len(refs) > 0 {
		out = append(out, "reads your environment variables: "+strings.Join(slices.Sorted(maps.Keys(refs)), ", "))
	}
	if !c.Remote() {
		out = append(out, "receives: your environment without variables named like keys, tokens, secrets or passwords, plus its env")
	}
	return out
}

// Options configure a Manager.
type Options struct {
	Servers []ServerConfig
	// Registry receives the servers' tools as they connect and loses them
	// as they go.
	Registry *tools.Registry
	// LogDir receives each local server's stderr as NAME.log.
	LogDir string
	// Trust holds the user's consent to project servers; Project is the
	// project directory it is keyed by.
	Trust   *Trust
	Project string
	// Version is co's, sent as the client's implementation version.
	Version string
	// Getenv resolves ${VAR} references; os.LookupEnv when nil.
	Getenv func(string) (string, bool)
	// Auth keeps the tokens of the remote servers the user logged in to;
	// nil: no remote server is asked for a login.
	Auth *AuthStore
	// Secrets, when set, is given every token a login or a refresh
	// obtains (the span store redacts them from then on).
	Secrets func(...string)
	// Workspace and Protected: a call whose arguments name a protected
	// path of the workspace always asks (protectedArg).
	Workspace string
	Protected protect.Set
}

// Manager runs the configured MCP servers of one run of co.
type Manager struct {
	opts Options

	// consentOnce checks the project servers' consent (reading the
	// files they name) on first use, never in New: New runs before the
	// chat's first frame.
	consentOnce sync.Once

	mu      sync.Mutex
	order   []string
	servers map[string]*server
	started bool
	closed  bool
	notices []notice
	// listen, once set (Listen), receives each notice as it happens
	// instead of the queue Wait empties.
	listen  func(text string, problem bool)
	outbox  []notice // notices not yet given to listen
	sending bool     // a goroutine is giving them

	// startHook, set by tests before Start, is called first by each start
	// attempt with its context: a start held there is one under way.
	startHook func(ctx context.Context)
	// roundTrip, set by tests before Start, carries the remote servers'
	// requests instead of http.DefaultTransport (an in-memory network,
	// for a test whose clock is testing/synctest's).
	roundTrip http.RoundTripper

	// logins are the logins under way, by server (Login), guarded by mu.
	logins map[string]*loginRun

	// typed holds what the user typed into the secret fields of forms
	// (elicit.go): every server's results and errors are redacted of it,
	// so an echo reaches neither the model nor the saved session.
	typed *redact.Redactor
}

// notice is one message for the next turn about server srv's attempt gen:
// one about an attempt a restart has since replaced is dropped.
type notice struct {
	srv     *server
	gen     int
	text    string
	problem bool // a failure, not news
}

// server is one configured server and its current connection.
type server struct {
	m   *Manager
	cfg ServerConfig

	// Guarded by m.mu.
	state   State
	err     string
	detail  string        // the raw error behind err, when err says it in words
	askers  []*asker      // the running calls that can show the user a form (elicit.go), latest last
	gen     int           // bumped by each start: events of an older one are ignored
	ready   chan struct{} // closed when the current start attempt ends
	session *sdk.ClientSession
	proc    *exec.Cmd
	// pgid is the process group of the current attempt's local server
	// from the moment its process starts, whatever the state (stop ends
	// it even while the server is still starting); 0 when none.
	pgid     int
	tools    []string // registered names
	protocol string
	closing  bool
	// unexp turns expanded ${VAR} values in error text back into the
	// settings as written (set by transport).
	unexp *unexpander
	// junk watches the current attempt's stdout for lines that are not
	// JSON-RPC (a local server).
	junk *junkWatch
	// auth is the current attempt's OAuth handler (a remote server
	// without an Authorization header of its settings); nil otherwise.
	auth *authHandler
	// authStamp is the token file as it was when the server came to need
	// a login (AuthStore.stamp): a change is a login made elsewhere.
	authStamp string
	// files are the project files the consent covers (Status.Files).
	files []string
	// deadline is when the current start attempt gives up.
	deadline time.Time
	// att is the current start attempt (nil before the first).
	att *attempt
}

// New makes a Manager. Nothing starts until Start.
func New(opts Options) *Manager {
	if opts.Getenv == nil {
		opts.Getenv = osGetenv
	}
	m := &Manager{opts: opts, servers: map[string]*server{}, typed: redact.NewRedactor(nil)}
	for _, c := range opts.Servers {
		s := &server{m: m, cfg: c, ready: closedChan()}
		if c.Disabled {
			s.state = Disabled
		}
		m.servers[c.Name] = s
		m.order = append(m.order, c.Name)
	}
	return m
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// Len is the number of configured servers.
func (m *Manager) Len() int { return len(m.order) }

// Start starts every enabled server the user trusts, each in its own
// goroutine, and returns at once. Later calls do nothing.
func (m *Manager) Start() {
	m.checkConsent()
	m.mu.Lock()
	if m.started || m.closed {
		m.mu.Unlock()
		return
	}
	m.started = true
	var todo []*server
	for _, name := range m.order {
		s := m.servers[name]
		switch s.state {
		case NotStarted:
			todo = append(todo, s)
		case AwaitingConsent:
			if m.listen != nil { // the chat says why it does not start
				s.notice("MCP server %s is declared by this project and waits for your consent before it starts: /mcp shows its definition, /mcp trust %s starts it", name, name)
			}
		}
	}
	m.mu.Unlock()
	for _, s := range todo {
		s.start()
	}
}

// Wait blocks until no server is starting (each start is bounded by its
// server's timeout) or ctx ends, then returns the notices gathered since
// the last call: servers that failed, tools withdrawn or changed.
func (m *Manager) Wait(ctx context.Context) []string { return m.Ready(ctx, nil) }

// Ready is Wait telling waiting, before it blocks, which servers it waits
// for and for how long at most (agent.Config.ToolsReady): a hung server
// otherwise stalls a turn for its whole timeout with nothing said.
func (m *Manager) Ready(ctx context.Context, waiting func(string)) []string {
	m.pickUpLogins()
	m.mu.Lock()
	var waits []chan struct{}
	var names []string
	var longest time.Duration
	for _, name := range m.order {
		if s := m.servers[name]; s.state == Starting {
			waits = append(waits, s.ready)
			names = append(names, name)
			longest = max(longest, time.Until(s.deadline))
		}
	}
	m.mu.Unlock()
	if d, ok := ctx.Deadline(); ok {
		longest = min(longest, time.Until(d)) // co status waits less
	}
	if len(waits) > 0 && waiting != nil {
		which := "MCP server " + names[0]
		if len(names) > 1 {
			which = "MCP servers " + strings.Join(names, ", ")
		}
		secs := int((longest + time.Second - 1) / time.Second) // rounded up
		waiting(fmt.Sprintf("waiting for %s to start (up to %d s)…", which, max(secs, 1)))
	}
	for _, w := range waits {
		select {
		case <-w:
		case <-ctx.Done():
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, n := range m.notices {
		if n.srv.gen == n.gen {
			out = append(out, n.text)
		}
	}
	m.notices = nil
	return out
}

// Statuses lists the servers in configuration order.
func (m *Manager) Statuses() []Status {
	m.checkConsent()
	m.pickUpLogins()
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, 0, len(m.order))
	for _, name := range m.order {
		s := m.servers[name]
		st := Status{Name: name, State: s.state, Err: s.err, Detail: s.detail, Tools: slices.Sorted(slices.Values(s.tools)),
			Project: s.cfg.Project, Remote: s.cfg.Remote(), Auto: s.cfg.AutoApprove, TrustedContent: s.cfg.TrustedContent,
			Protocol: s.protocol}
		if s.cfg.Project {
			st.Definition, st.Files = definition(s.cfg), slices.Clone(s.files)
		}
		if s.cfg.Remote() {
			st.Target = s.cfg.URL
		} else {
			st.Target = strings.TrimSpace(s.cfg.Command + " " + strings.Join(s.cfg.Args, " "))
			st.Log = m.logPath(name)
		}
		out = append(out, st)
	}
	return out
}

// States is Statuses with only each server's Name, State, Project and
// Tools, and without checking the project servers' consent (which reads
// the files they name): cheap enough for every frame of the chat. Before
// Start, a project server not yet checked is NotStarted.
func (m *Manager) States() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, 0, len(m.order))
	for _, name := range m.order {
		s := m.servers[name]
		out = append(out, Status{Name: name, State: s.state, Project: s.cfg.Project, Tools: slices.Clone(s.tools)})
	}
	return out
}

// Restart stops server name, if running, and starts it again.
func (m *Manager) Restart(name string) error {
	m.checkConsent()
	m.mu.Lock()
	s, ok := m.servers[name]
	if !ok {
		m.mu.Unlock()
		return m.unknown(name)
	}
	switch s.state {
	case AwaitingConsent:
		m.mu.Unlock()
		return fmt.Errorf("MCP server %s is declared by this project and waits for your consent: /mcp trust %s", name, name)
	case Disabled:
		m.mu.Unlock()
		return fmt.Errorf(`MCP server %s is disabled ("enabled": false in its settings)`, name)
	}
	m.started = true
	m.mu.Unlock()
	s.stop()
	s.start()
	return nil
}

func (m *Manager) unknown(name string) error {
	if len(m.order) == 0 {
		return fmt.Errorf("no MCP server is configured (mcp_servers in the settings)")
	}
	return fmt.Errorf("no MCP server is named %q; the servers are: %s", name, strings.Join(m.order, ", "))
}

// Close stops every server, in parallel, and waits for them.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	all := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		all = append(all, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(s.stop)
	}
	wg.Wait()
}

// notice records a notice about s's current attempt. m.mu is held. With a
// listener (Listen) it goes to the listener at once, in its own goroutine
// (the listener must not be called under m.mu), in order.
func (s *server) notice(format string, a ...any) { s.say(false, format, a...) }

// problem is notice for a failure.
func (s *server) problem(format string, a ...any) { s.say(true, format, a...) }

func (s *server) say(problem bool, format string, a ...any) {
	n := notice{srv: s, gen: s.gen, text: fmt.Sprintf(format, a...), problem: problem}
	if s.m.listen != nil {
		s.m.deliver(n)
		return
	}
	s.m.notices = append(s.m.notices, n)
}

// Listen makes f receive every notice (a server that failed to start or
// exited, tools withdrawn or changed) as it happens, from any goroutine,
// never two at once, in the order they happened: a front end shows them
// when they happen (at start, right after /mcp trust) instead of at the
// next turn; problem is true for a failure. Notices already waiting go
// to f first; Wait then returns none. f may block (a goroutine of the
// Manager's waits); it must not call the Manager.
func (m *Manager) Listen(f func(text string, problem bool)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.listen = f
	for _, n := range m.notices {
		if n.srv.gen == n.gen {
			m.deliver(n)
		}
	}
	m.notices = nil
}

// deliver queues text for the listener, started once. m.mu is held.
func (m *Manager) deliver(n notice) {
	m.outbox = append(m.outbox, n)
	if m.sending {
		return
	}
	m.sending = true
	go func() {
		for {
			m.mu.Lock()
			if len(m.outbox) == 0 {
				m.sending = false
				m.mu.Unlock()
				return
			}
			n, f := m.outbox[0], m.listen
			m.outbox = m.outbox[1:]
			m.mu.Unlock()
			func() {
				defer func() { _ = recover() }()
				f(n.text, n.problem)
			}()
		}
	}()
}

// neutralDir is where a user's local server without a cwd starts: the
// folder of the servers' logs (co's own, holding nothing that runs), or the
// file system's root without one.
func (m *Manager) neutralDir() string {
	if d := m.opts.LogDir; d != "" && os.MkdirAll(d, 0o700) == nil {
		return d
	}
	return string(filepath.Separator)
}

func (m *Manager) logPath(name string) string {
	if m.opts.LogDir == "" {
		return ""
	}
	return filepath.Join(m.opts.LogDir, sanitize(name)+".log")
}

// Shutting down a server: a local one has stopGrace after its stdin
// closes to exit, then SIGTERM and stopGrace more, then SIGKILL (the MCP
// specification's stdio shutdown, as the SDK's CommandTransport Close
// quotes it, with shorter waits than its own, which hold co's exit ~4 s);
// a remote one's close (an HTTP DELETE) is waited for remoteCloseWait at
// most.
const (
	stopGrace       = 500 * time.Millisecond
	remoteCloseWait = 2 * time.Second
)
