package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

// ErrLoginReplaced ends a login that another login of the same server,
// started while it waited, replaced.
var ErrLoginReplaced = errors.New("replaced by a newer login of the same server")

// LoginTimeout bounds a login when its context has no deadline: the
// user has that long to finish in the browser.
const LoginTimeout = 5 * time.Minute

// LoginOptions are how a login reaches the user.
type LoginOptions struct {
	// Open opens the authorization page in a browser; nil or an error:
	// the page is only told (Say), for the user to open elsewhere.
	Open func(url string) error
	// Say tells the user something (the page to open); nil: a notice of
	// the manager (Listen).
	Say func(text string)
	// Pasted, when not nil, are lines the user types while the login
	// waits: the address the browser ended on, for a browser on another
	// machine that cannot reach this one's loopback listener.
	Pasted <-chan string
}

// Login logs in to remote server name as the MCP authorization
// specification says, on the SDK's AuthorizationCodeHandler: discovery,
// registration, the authorization page opened in a browser and told to the
// user, the code brought back to a loopback listener on 127.0.0.1 (state
// checked), exchanged with PKCE; the token is stored (AuthStore). A server
// that needs none still connects. Then the server starts again with it.
// Sources: docs/SOURCES.md#mcp-authorization-the-login-flow.
func (m *Manager) Login(ctx context.Context, name string, o LoginOptions) error {
	s, err := m.canLogin(name)
	if err != nil {
		return err
	}
	say := o.Say
	if say == nil {
		say = func(text string) {
			m.mu.Lock()
			s.notice("%s", text)
			m.mu.Unlock()
		}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, LoginTimeout)
		defer cancel()
	}
	ctx, end := m.loginUnderWay(ctx, name)
	defer end()
	if err := s.login(ctx, o.Open, say, o.Pasted); err != nil {
		if errors.Is(context.Cause(ctx), ErrLoginReplaced) {
			return ErrLoginReplaced
		}
		return err
	}
	m.mu.Lock()
	restart := m.started && !m.closed
	m.mu.Unlock()
	if restart {
		s.stop()
		s.start()
	}
	return nil
}

// loginRun is a login under way.
type loginRun struct{ cancel context.CancelCauseFunc }

// loginUnderWay registers a login of server name, ending (ErrLoginReplaced)
// the one under way, if any: the user typing /mcp login again (the page
// lost) means this one. end unregisters it.
func (m *Manager) loginUnderWay(ctx context.Context, name string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	run := &loginRun{cancel: cancel}
	m.mu.Lock()
	if prev := m.logins[name]; prev != nil {
		prev.cancel(ErrLoginReplaced)
	}
	if m.logins == nil {
		m.logins = map[string]*loginRun{}
	}
	m.logins[name] = run
	m.mu.Unlock()
	return ctx, func() {
		m.mu.Lock()
		if m.logins[name] == run {
			delete(m.logins, name)
		}
		m.mu.Unlock()
		cancel(nil)
	}
}

// pickUpLogins starts again each server needing a login whose token file
// changed since (co mcp login in another terminal), unless a login of its
// own is under way here.
func (m *Manager) pickUpLogins() {
	m.mu.Lock()
	var again []*server
	if m.started && !m.closed && m.opts.Auth != nil {
		for _, name := range m.order {
			s := m.servers[name]
			if s.state == NeedsLogin && m.logins[name] == nil && m.opts.Auth.stamp(name) != s.authStamp {
				again = append(again, s)
			}
		}
	}
	m.mu.Unlock()
	for _, s := range again {
		s.stop()
		s.start()
	}
}

// CanLogin says why co cannot log in to server name now, and what to
// do; nil when it can.
func (m *Manager) CanLogin(name string) error {
	_, err := m.canLogin(name)
	return err
}

func (m *Manager) canLogin(name string) (*server, error) {
	m.checkConsent()
	m.mu.Lock()
	s, ok := m.servers[name]
	var state State
	if ok {
		state = s.state
	}
	m.mu.Unlock()
	switch {
	case !ok:
		return nil, m.unknown(name)
	case !s.cfg.Remote():
		return nil, fmt.Errorf("MCP server %s is local (command): co logs in only to remote (url) servers; a local server takes its credentials from its env", name)
	case state == AwaitingConsent:
		return nil, fmt.Errorf("MCP server %s is declared by this project and waits for your consent first: co mcp trust %s (or /mcp trust %s)", name, name, name)
	case state == Disabled:
		return nil, fmt.Errorf(`MCP server %s is disabled ("enabled": false in its settings)`, name)
	case m.opts.Auth == nil:
		return nil, errors.New("no place to keep tokens (no data directory)")
	}
	if _, has := ciHeader(s.cfg.Headers, "Authorization"); has {
		return nil, fmt.Errorf("MCP server %s has an Authorization header in its settings: co sends that and does not log in (remove mcp_servers.%s.headers.Authorization to log in instead)", name, name)
	}
	return s, nil
}

// LoggedIn reports whether co keeps a login for remote server name (for
// its url as now set); false for a server that asked for none.
func (m *Manager) LoggedIn(name string) bool {
	m.mu.Lock()
	s, ok := m.servers[name]
	m.mu.Unlock()
	if !ok || !s.cfg.Remote() || m.opts.Auth == nil {
		return false
	}
	missing := map[string]bool{}
	u := expand(s.cfg.URL, m.opts.Getenv, missing)
	return len(missing) == 0 && m.opts.Auth.LoggedIn(name, u)
}

// LoginEnded tells, as a notice, how a login in the background (/mcp
// login) ended; a server that asked for no login was said so already.
func (m *Manager) LoginEnded(name string, err error) {
	if err == nil && !m.LoggedIn(name) || errors.Is(err, ErrLoginReplaced) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[name]
	if !ok {
		return
	}
	if err != nil {
		s.problem("%s", err.Error())
		return
	}
	s.notice("Logged in to MCP server %s; it is starting again with the new token (/mcp shows its state)", name)
}

// Logout deletes server name's tokens and, when it runs, starts it again
// without them; it says what it did.
func (m *Manager) Logout(name string) (string, error) {
	m.mu.Lock()
	s, ok := m.servers[name]
	m.mu.Unlock()
	switch {
	case !ok:
		return "", m.unknown(name)
	case !s.cfg.Remote():
		return "", fmt.Errorf("MCP server %s is local (command): co keeps no login for it", name)
	case m.opts.Auth == nil:
		return "", errors.New("no place where tokens are kept (no data directory)")
	}
	had, err := m.opts.Auth.Remove(name)
	if err != nil {
		return "", fmt.Errorf("deleting the tokens of MCP server %s: %w", name, err)
	}
	if !had {
		return fmt.Sprintf("MCP server %s had no login to forget.", name), nil
	}
	m.mu.Lock()
	running := m.started && !m.closed && (s.state == Connected || s.state == Starting)
	m.mu.Unlock()
	if running {
		s.stop()
		s.start()
	}
	return fmt.Sprintf("Logged out of MCP server %s: its tokens are deleted from %s.", name, m.opts.Auth.Dir()), nil
}

// ciHeader finds header k in h, whatever its case.
func ciHeader(h map[string]string, k string) (string, bool) {
	for hk, v := range h {
		if strings.EqualFold(hk, k) {
			return v, true
		}
	}
	return "", false
}

// remote is a remote server's URL, headers and OAuth client with their
// ${VAR}s expanded by x: what a connection and a login both send.
func (s *server) remote(x func(string) string) (string, http.Header, OAuthClient) {
	h := http.Header{}
	for k, v := range s.cfg.Headers {
		h.Set(k, x(v))
	}
	return x(s.cfg.URL), h, OAuthClient{ClientID: x(s.cfg.OAuth.ClientID), ClientSecret: x(s.cfg.OAuth.ClientSecret), ClientMetadataURL: x(s.cfg.OAuth.ClientMetadataURL)}
}

// login runs the flow on a connection of its own, closed at the end.
func (s *server) login(ctx context.Context, open func(string) error, say func(string), pasted <-chan string) error {
	missing := map[string]bool{}
	get := s.m.opts.Getenv
	u, h, oc := s.remote(func(v string) string { return expand(v, get, missing) })
	if err := missingVars(missing); err != nil {
		return err
	}
	unexp := newUnexpander(s.cfg, get)
	name := s.cfg.Name
	store := s.m.opts.Auth
	var reuse *registration
	if rec := store.load(name, u); rec != nil && oc.ClientID == "" {
		// The user's own client always wins; a client ID metadata
		// document too, which the SDK tries first where it is supported.
		reuse = rec.Registered
	}
	if reuse != nil {
		refused, err := s.loginOnce(ctx, u, h, oc, unexp, reuse, open, say, pasted)
		if refused == "" {
			return err
		}
		_ = store.update(name, u, func(r *authRecord) { r.Registered = nil })
		say(fmt.Sprintf("MCP server %s: %s; co registers itself again", name, refused))
	}
	_, err := s.loginOnce(ctx, u, h, oc, unexp, nil, open, say, pasted)
	return err
}

// loginOnce runs the flow once, reusing registration reuse when it is
// not nil. refused, when not empty, says why reuse could not be used
// (its port taken, or the authorization server refused it): a fresh
// registration may do.
func (s *server) loginOnce(ctx context.Context, u string, h http.Header, oc OAuthClient, unexp *unexpander, reuse *registration,
	open func(string) error, say func(string), pasted <-chan string) (refused string, err error) {
	addr := "127.0.0.1:0"
	if reuse != nil {
		ru, perr := url.Parse(reuse.RedirectURI)
		if perr != nil || ru.Hostname() != "127.0.0.1" || ru.Port() == "" {
			return "the stored registration's redirect " + reuse.RedirectURI + " is not a loopback port", nil
		}
		addr = ru.Host
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if reuse != nil {
			return fmt.Sprintf("the port of the last login's redirect, %s, is taken (%v)", addr, err), nil
		}
		return "", fmt.Errorf("starting the listener the login comes back to: %w", err)
	}
	defer ln.Close()
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)
	cb := newCallback()
	srv := &http.Server{Handler: cb, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	name := s.cfg.Name
	var used atomic.Value // the client_id of the authorization request
	used.Store("")
	fetch := func(ctx context.Context, a *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		pu, err := url.Parse(a.URL)
		if err != nil {
			return nil, fmt.Errorf("the authorization URL: %w", err)
		}
		if s := strings.ToLower(pu.Scheme); s != "http" && s != "https" {
			// The authorization server chose it: co opens only a web page,
			// never a file or a URL some other program on the desktop handles.
			return nil, fmt.Errorf("the authorization server of MCP server %s gave an authorization URL that is not a web page (%s:): co opens only http and https pages; check mcp_servers.%s.url, or ask the server's operator", name, pu.Scheme, name)
		}
		cb.expect(pu.Query().Get("state"))
		used.Store(pu.Query().Get("client_id"))
		how := "opening it in your browser"
		if open == nil {
			how = "open it in a browser"
		} else if err := open(a.URL); err != nil {
			how = "no browser could be opened (" + err.Error() + "): open it in a browser yourself, on this machine or one that reaches " + redirect
		}
		paste := ""
		if pasted != nil {
			paste = " — or, when the browser is on another machine, paste here the address it ends on (it starts " + redirect + ")"
			go cb.readPasted(ctx, pasted, say)
		}
		if reuse != nil {
			// An authorization server that deleted the client may show
			// an error page instead of coming back.
			paste += "; co reuses the client it registered at the last login: should the page say it is unknown, end this login and run co mcp logout " + name + " first"
		}
		say(fmt.Sprintf("To log in to MCP server %s, visit %s (%s); co waits for the browser to come back to %s%s", name, a.URL, how, redirect, paste))
		return cb.wait(ctx)
	}
	seen := &issuerSeen{base: http.DefaultTransport}
	lg := &loginParams{fetch: fetch, redirect: redirect, reuse: reuse, issuer: seen,
		client: &http.Client{Timeout: authClient.Timeout, Transport: seen}}
	ah, err := newAuthHandler(s.cfg, u, oc, s.m.opts.Auth, lg, s.m.secrets())
	if err != nil {
		return "", err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "co", Version: s.m.opts.Version}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	statuses := &statusSeen{base: headerTransport{h: h}}
	tr := &sdk.StreamableClientTransport{Endpoint: u, HTTPClient: &http.Client{Transport: statuses}, OAuthHandler: ah}
	cs, err := client.Connect(ctx, tr, nil)
	if err == nil {
		_, err = listTools(ctx, cs)
		_ = cs.Close()
	}
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("logging in to MCP server %s: nobody came back from the browser in time; run the login again", name)
		}
		if reuse != nil && ctx.Err() == nil {
			if why := clientRefused(ah.loginFailure(), reuse, used.Load().(string), seen.get()); why != "" {
				return why, err
			}
		}
		return "", s.loginFailed(u, err, statuses, unexp)
	}
	if !s.m.opts.Auth.LoggedIn(name, u) {
		say(fmt.Sprintf("MCP server %s asked for no login: it connected without one", name))
	}
	return "", nil
}

// clientRefused says how the authorization server refused registration
// reg ("" when it did not): invalid_client or unauthorized_client at the
// authorization redirect or the token endpoint (RFC 6749 sections 4.1.2.1
// and 5.2) to an authorization requested as reg (client), or another
// issuer than the one that issued it.
func clientRefused(err error, reg *registration, client, issuer string) string {
	if reg.Issuer != "" && issuer != "" && issuer != reg.Issuer {
		return fmt.Sprintf("the authorization server is now %s, not %s, which registered co at the last login", issuer, reg.Issuer)
	}
	refusedCode := func(c string) bool {
		return client == reg.ClientID && (c == "invalid_client" || c == "unauthorized_client")
	}
	var at *refusal
	if errors.As(err, &at) && refusedCode(at.code) {
		return "the authorization server refused co's registration from the last login (" + at.code + ")"
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && refusedCode(re.ErrorCode) {
		return "the authorization server's token endpoint refused co's registration from the last login (" + re.ErrorCode + ")"
	}
	return ""
}

// issuerSeen is the transport of a login's discovery, registration and
// token requests: it keeps the issuer of the authorization server
// metadata the SDK fetched, which the stored registration names.
type issuerSeen struct {
	base   http.RoundTripper
	mu     sync.Mutex
	issuer string
}

func (t *issuerSeen) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	p := req.URL.Path
	if err != nil || resp.StatusCode != http.StatusOK ||
		!strings.Contains(p, "/.well-known/oauth-authorization-server") && !strings.Contains(p, "/.well-known/openid-configuration") {
		return resp, err
	}
	b, rerr := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	if rerr != nil {
		return resp, nil
	}
	var meta struct {
		Issuer string `json:"issuer"`
	}
	if json.Unmarshal(b, &meta) == nil && meta.Issuer != "" {
		t.mu.Lock()
		t.issuer = meta.Issuer
		t.mu.Unlock()
	}
	return resp, nil
}

func (t *issuerSeen) get() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.issuer
}

// refusal is the authorization server's refusal brought back by the
// redirect (error=…).
type refusal struct{ code, desc string }

func (e *refusal) Error() string {
	return fmt.Sprintf("the authorization server refused: %s %s", e.code, e.desc)
}

// callback is the loopback listener's handler: it waits for the request
// with the state of the current authorization and hands its code on. A
// request with another state is refused and the wait goes on.
type callback struct {
	state chan string
	got   chan result
}

type result struct {
	res *auth.AuthorizationResult
	err error
}

func newCallback() *callback {
	return &callback{state: make(chan string, 1), got: make(chan result, 1)}
}

// expect sets the state the next callback must carry.
func (c *callback) expect(state string) {
	select {
	case <-c.state:
	default:
	}
	c.state <- state
}

func (c *callback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/callback" {
		http.NotFound(w, r)
		return
	}
	ours, page := c.take(r.URL.Query())
	if !ours {
		http.Error(w, page, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if r.URL.Query().Get("error") != "" {
		w.WriteHeader(http.StatusBadRequest)
	}
	fmt.Fprintln(w, page)
}

// take is what came back to the listener or was pasted: a refusal or a
// code for the login under way (ours), or another login's state (not
// ours, and not taken). page is what to tell the user.
func (c *callback) take(q url.Values) (ours bool, page string) {
	want := ""
	select {
	case want = <-c.state:
		c.state <- want
	default:
	}
	if want == "" || q.Get("state") != want {
		return false, "co: this is not the login co is waiting for (its state does not match); start it again from co"
	}
	var res result
	if e := q.Get("error"); e != "" {
		res.err = &refusal{code: e, desc: q.Get("error_description")}
		page = "co: the login was refused; see co for what to do next."
	} else {
		res.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
		// Not "logged in": co has yet to exchange the code for a token.
		page = "co: the authorization came back to co, which finishes the login now; see co for whether it worked. You can close this page."
	}
	select {
	case c.got <- res:
	default:
	}
	return true, page
}

// readPasted takes the addresses the user pastes while the login waits,
// as if the browser had come back with them; a line that is not one is
// said, and the wait goes on.
func (c *callback) readPasted(ctx context.Context, pasted <-chan string, say func(string)) {
	for {
		select {
		case <-ctx.Done():
			return
		case line, ok := <-pasted:
			if !ok {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			u, err := url.Parse(line)
			if err != nil || u.Path != "/callback" || (u.Query().Get("code") == "" && u.Query().Get("error") == "") {
				say("That is not the address the browser ended on: paste the whole address from its address bar, starting http://127.0.0.1:")
				continue
			}
			if ours, page := c.take(u.Query()); !ours {
				say(strings.TrimPrefix(page, "co: "))
			}
		}
	}
}

func (c *callback) wait(ctx context.Context) (*auth.AuthorizationResult, error) {
	select {
	case r := <-c.got:
		return r.res, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
