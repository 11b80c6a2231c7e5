package mcp

import (
	"context"
	"encoding/json"
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
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/co-cli/co/lib/count"
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

// checkConsent marks the project servers the user has not consented to,
// as their definitions and files are now, AwaitingConsent; once.
func (m *Manager) checkConsent() {
	m.consentOnce.Do(func() {
		for _, name := range m.order {
			s := m.servers[name]
			if !s.cfg.Project {
				continue
			}
			data, files := consent(m.opts.Project, s.cfg, m.opts.Getenv)
			trusted := m.opts.Trust.Trusted(m.opts.Project, name, data)
			m.mu.Lock()
			s.files = files
			if !trusted && s.state == NotStarted {
				s.state = AwaitingConsent
			}
			m.mu.Unlock()
		}
	})
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

// Trust records the user's consent to project server name's definition,
// and the files it names as they are now, and starts it.
func (m *Manager) Trust(name string) error {
	m.checkConsent()
	m.mu.Lock()
	s, ok := m.servers[name]
	m.mu.Unlock()
	if !ok {
		return m.unknown(name)
	}
	if !s.cfg.Project {
		return fmt.Errorf("MCP server %s is in your own settings: it needs no consent", name)
	}
	if m.opts.Trust == nil {
		return errors.New("no place to record consent (no data directory)")
	}
	data, files := consent(m.opts.Project, s.cfg, m.opts.Getenv)
	if err := m.opts.Trust.Grant(m.opts.Project, name, data); err != nil {
		return fmt.Errorf("recording consent to MCP server %s: %w", name, err)
	}
	m.mu.Lock()
	s.files = files
	if s.state != AwaitingConsent {
		m.mu.Unlock()
		return nil
	}
	s.state = NotStarted
	m.started = true
	m.mu.Unlock()
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
		tools := fmt.Sprintf("%d tools", len(s.tools))
		if len(s.tools) == 1 {
			tools = "1 tool"
		}
		s.notice("MCP server %s connected: %s", s.cfg.Name, tools)
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

// listTools lists every tool, page by page.
func listTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing tools: %w", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// setTools replaces the server's tools in the registry. m.mu is held.
func (s *server) setTools(list []*sdk.Tool) {
	reg := s.m.opts.Registry
	if reg == nil {
		return
	}
	reg.Remove(s.tools...)
	s.tools = nil
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	for _, t := range list {
		name := ToolName(s.cfg.Name, t.Name, func(n string) bool { _, taken := reg.Get(n); return taken })
		schema, _ := json.Marshal(t.InputSchema)
		desc := strings.TrimSpace(t.Description)
		if desc == "" {
			desc = t.Title
		}
		tool := &Tool{name: name, remote: t.Name, srv: s, schema: Simplify(schema),
			desc: fmt.Sprintf("%s (tool %s of MCP server %s)", desc, t.Name, s.cfg.Name)}
		if reg.Add(tool) == nil {
			s.tools = append(s.tools, name)
		}
	}
}

// refresh lists the tools again after notifications/tools/list_changed.
func (s *server) refresh(gen int) {
	defer func() { _ = recover() }()
	m := s.m
	m.mu.Lock()
	cs := s.session
	if s.gen != gen || s.state != Connected || cs == nil {
		m.mu.Unlock()
		return
	}
	m.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.timeout())
	defer cancel()
	list, err := listTools(ctx, cs)
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.gen != gen || s.state != Connected {
		return
	}
	if err != nil {
		s.problem("MCP server %s changed its tools but listing them failed: %s", s.cfg.Name, s.unexp.text(err.Error()))
		return
	}
	before := len(s.tools)
	s.setTools(list)
	s.notice("MCP server %s changed its tools: %d now (was %d)", s.cfg.Name, len(s.tools), before)
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

// call runs one tools/call within the server's timeout. sent is false
// when the call failed before any request (the server is not connected).
func (s *server) call(ctx context.Context, tool string, args json.RawMessage) (res *sdk.CallToolResult, sent bool, err error) {
	m := s.m
	m.mu.Lock()
	cs, state, why, unexp := s.session, s.state, s.err, s.unexp
	m.mu.Unlock()
	if state == NeedsLogin {
		return nil, false, errors.New(why)
	}
	if cs == nil || state != Connected {
		if why != "" {
			return nil, false, fmt.Errorf("MCP server %s is %s (%s); /mcp restart %s", s.cfg.Name, state, why, s.cfg.Name)
		}
		return nil, false, fmt.Errorf("MCP server %s is %s", s.cfg.Name, state)
	}
	timeout := s.cfg.timeout()
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(timeout, func() { cancel(context.DeadlineExceeded) })
	defer timer.Stop()
	callCtx := context.Context(cctx)
	if ask := tools.FormAsker(ctx); ask != nil {
		// The call's context names it to the forms it causes (formtag.go).
		a := &asker{ask: ask, call: cctx, timer: timer, timeout: timeout, tag: newFormTag()}
		defer s.addAsker(a)()
		callCtx = withAsker(cctx, a)
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	res, err = cs.CallTool(callCtx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return nil, true, ctx.Err() // the user interrupted: the SDK sent notifications/cancelled
		}
		if ne := s.takeNeeded(); ne != nil {
			return nil, true, ne
		}
		// The error may name the endpoint, a token in it expanded.
		return nil, true, errors.New(unexp.text(callError(s.cfg.Name, tool, errors.Is(context.Cause(cctx), context.DeadlineExceeded), timeout.String(), err).Error()))
	}
	return res, true, nil
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
		u := x(s.cfg.URL)
		h := http.Header{}
		for k, v := range s.cfg.Headers {
			h.Set(k, x(v))
		}
		oc := OAuthClient{ClientID: x(s.cfg.OAuth.ClientID), ClientSecret: x(s.cfg.OAuth.ClientSecret), ClientMetadataURL: x(s.cfg.OAuth.ClientMetadataURL)}
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
