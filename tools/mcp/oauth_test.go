package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/mcp"
	"github.com/co-cli/co/tools/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// authRun is one run of co against an OAuthServer: a manager with the
// token store of dir.
type authRun struct {
	m   *mcp.Manager
	reg *tools.Registry
}

func newAuthRun(t *testing.T, dir string, srv *mcptest.OAuthServer) *authRun {
	t.Helper()
	reg, _ := tools.NewRegistry()
	m := mcp.New(mcp.Options{
		Servers:  []mcp.ServerConfig{{Name: "hosted", URL: srv.URL, Timeout: 10 * time.Second}},
		Registry: reg, LogDir: filepath.Join(dir, "mcp"), Version: "test",
		Auth: mcp.NewAuthStore(filepath.Join(dir, "mcp-auth")),
	})
	t.Cleanup(m.Close)
	return &authRun{m: m, reg: reg}
}

func (r *authRun) start(t *testing.T) []string {
	t.Helper()
	r.m.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return r.m.Wait(ctx)
}

func (r *authRun) status(t *testing.T) mcp.Status {
	t.Helper()
	return r.m.Statuses()[0]
}

// login logs in with the scripted browser, returning what it told the user.
func (r *authRun) login(t *testing.T) []string {
	t.Helper()
	var said []string
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := r.m.Login(ctx, "hosted", mcp.LoginOptions{Open: mcptest.Browse, Say: func(s string) { said = append(said, s) }})
	if err != nil {
		t.Fatalf("login: %v (said %q)", err, said)
	}
	r.m.Wait(ctx) // a started manager starts the server again with the token
	return said
}

func (r *authRun) whoami(t *testing.T) (string, error) {
	t.Helper()
	tl, ok := r.reg.Get("mcp__hosted__whoami")
	if !ok {
		t.Fatalf("no whoami tool; statuses %+v", r.m.Statuses())
	}
	res, err := tl.Run(context.Background(), json.RawMessage(`{}`))
	return res.Display, err
}

// A remote server that answers 401 is not failed but needs a login, said
// with how to log in; a run that is not a login starts no authorization
// (no registration, no authorization request).
func TestRemoteServerNeedsLogin(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	r := newAuthRun(t, t.TempDir(), srv)
	notes := r.start(t)
	st := r.status(t)
	if st.State != mcp.NeedsLogin {
		t.Fatalf("state %s (%s), want needs login", st.State, st.Err)
	}
	want := "run co mcp login hosted (or /mcp login hosted in the chat)"
	if !strings.Contains(st.Err, want) || len(notes) != 1 || !strings.Contains(notes[0], want) {
		t.Errorf("err %q, notices %q: want them to say %q", st.Err, notes, want)
	}
	if n, a := srv.Registered(), srv.Authorized(); n != 0 || len(a) != 0 {
		t.Errorf("a run that is not a login registered %d clients and asked %d authorizations", n, len(a))
	}
}

// co mcp login's flow: the page told, opened, the browser coming back to
// the loopback listener; the token kept in a private file that a later run
// uses without a login, and that logout deletes.
func TestLoginStoresTokenForLaterRuns(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	dir := t.TempDir()
	r := newAuthRun(t, dir, srv)
	var redacted []string // what the span store is told to redact from now on
	r.m.RedactWith(func(v ...string) { redacted = append(redacted, v...) })
	said := r.login(t)
	if len(said) != 1 || !strings.Contains(said[0], "visit http") || !strings.Contains(said[0], "opening it in your browser") ||
		!strings.Contains(said[0], "http://127.0.0.1:") {
		t.Errorf("the login told %q, want the page and the loopback address", said)
	}
	file := filepath.Join(dir, "mcp-auth", "hosted.json")
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	di, _ := os.Stat(filepath.Dir(file))
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Errorf("token file %v, its directory %v: want 0600 and 0700", fi.Mode(), di.Mode())
	}

	later := newAuthRun(t, dir, srv)
	later.start(t)
	if st := later.status(t); st.State != mcp.Connected {
		t.Fatalf("a later run: %s (%s)", st.State, st.Err)
	}
	out, err := later.whoami(t)
	if err != nil {
		t.Fatal(err)
	}
	tok := strings.TrimPrefix(out, "your token is ")
	stored, _ := os.ReadFile(file)
	if !strings.HasPrefix(tok, "at-") || !strings.Contains(string(stored), tok) {
		t.Errorf("the call carried %q; the file holds %s", tok, stored)
	}
	if !slices.Contains(redacted, tok) {
		t.Errorf("the login's token %q was not given to the span store's redaction (%q)", tok, redacted)
	}
	if got := len(srv.Authorized()); got != 1 {
		t.Errorf("%d authorizations, want the login's one", got)
	}

	msg, err := later.m.Logout("hosted")
	if err != nil || !strings.Contains(msg, "Logged out of MCP server hosted") {
		t.Fatalf("logout: %q, %v", msg, err)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the token file is still there: %v", err)
	}
	if st := later.status(t); st.State != mcp.NeedsLogin && st.State != mcp.Starting {
		t.Errorf("after logout: %s", st.State)
	}
	if msg, _ := later.m.Logout("hosted"); !strings.Contains(msg, "had no login") {
		t.Errorf("a second logout said %q", msg)
	}
}

// An expired token is refreshed with its refresh token and the new one
// stored; a token the server no longer accepts, refresh and all, makes the
// server need a login again rather than fail.
func TestTokenRefreshedAndStored(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	srv.ExpiresIn = 1 // oauth2 takes it for expired at once: each use refreshes
	dir := t.TempDir()
	newAuthRun(t, dir, srv).login(t)
	file := filepath.Join(dir, "mcp-auth", "hosted.json")
	before, _ := os.ReadFile(file)

	r := newAuthRun(t, dir, srv)
	var redacted []string
	r.m.RedactWith(func(v ...string) { redacted = append(redacted, v...) })
	r.start(t)
	if st := r.status(t); st.State != mcp.Connected {
		t.Fatalf("%s (%s)", st.State, st.Err)
	}
	out, err := r.whoami(t)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Refreshes() == 0 {
		t.Fatal("no refresh")
	}
	after, _ := os.ReadFile(file)
	tok := strings.TrimPrefix(out, "your token is ")
	if string(after) == string(before) || !strings.Contains(string(after), tok) {
		t.Errorf("the refreshed token %q was not stored:\n%s", tok, after)
	}
	if !slices.Contains(redacted, tok) {
		t.Errorf("the refreshed token was not given to the span store's redaction")
	}

	srv.Revoke()
	again := newAuthRun(t, dir, srv)
	again.start(t)
	if st := again.status(t); st.State != mcp.NeedsLogin {
		t.Errorf("with every token revoked: %s (%s), want needs login", st.State, st.Err)
	}
}

// A call refused for want of scope (403 insufficient_scope) fails saying
// a login gives it; the next login asks for that scope too (step-up).
func TestStepUpAcrossRuns(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	srv.CallScope = "write"
	dir := t.TempDir()
	newAuthRun(t, dir, srv).login(t)
	r := newAuthRun(t, dir, srv)
	r.start(t)
	_, err := r.whoami(t)
	if err == nil || !strings.Contains(err.Error(), "needs more access than your login gave (read write): run co mcp login hosted") {
		t.Fatalf("the refused call: %v", err)
	}
	r.login(t)
	auths := srv.Authorized()
	if len(auths) != 2 || !strings.Contains(auths[1], "write") || !strings.Contains(auths[1], "read") {
		t.Fatalf("authorization scopes %q: the second login should ask for read and write", auths)
	}
	if out, err := r.whoami(t); err != nil || !strings.HasPrefix(out, "your token is at-") {
		t.Errorf("after the step-up: %q, %v", out, err)
	}
}

// The loopback listener takes only the callback of the login under way:
// another state is refused and the login goes on waiting for its own.
func TestLoginCallbackChecksState(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	r := newAuthRun(t, t.TempDir(), srv)
	var forged int
	open := func(page string) error {
		pu, _ := url.Parse(page)
		back, _ := url.Parse(pu.Query().Get("redirect_uri"))
		q := back.Query()
		q.Set("code", "forged")
		q.Set("state", "not-the-state")
		back.RawQuery = q.Encode()
		resp, err := http.Get(back.String())
		if err != nil {
			return err
		}
		resp.Body.Close()
		forged = resp.StatusCode
		return mcptest.Browse(page)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.m.Login(ctx, "hosted", mcp.LoginOptions{Open: open, Say: func(string) {}}); err != nil {
		t.Fatal(err)
	}
	if forged != http.StatusBadRequest {
		t.Errorf("a callback with another state got %d, want 400", forged)
	}
}

// A login no browser finishes ends when its context does, saying so; a
// browser that cannot be opened still leaves the page told.
func TestLoginWithoutBrowser(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	r := newAuthRun(t, t.TempDir(), srv)
	ctx, cancel := context.WithCancel(context.Background())
	var said string
	err := r.m.Login(ctx, "hosted", mcp.LoginOptions{
		Open: func(string) error { return errors.New("no browser available") },
		Say:  func(s string) { said = s; cancel() }, // the user walks away
	})
	if err == nil || !strings.Contains(said, "no browser could be opened (no browser available): open it in a browser yourself") {
		t.Errorf("err %v; said %q", err, said)
	}
}

// Who cannot be logged in to is said, with what to do.
func TestLoginRefusals(t *testing.T) {
	dir := t.TempDir()
	m := mcp.New(mcp.Options{Servers: []mcp.ServerConfig{
		{Name: "local", Command: "true"},
		{Name: "keyed", URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"authorization": "Bearer x"}},
	}, Auth: mcp.NewAuthStore(dir)})
	defer m.Close()
	for name, want := range map[string]string{
		"local":   "is local (command)",
		"keyed":   "has an Authorization header in its settings",
		"missing": `no MCP server is named "missing"`,
	} {
		if err := m.CanLogin(name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}

// A login the user refuses in the browser (Deny) ends with the refusal:
// co opened the authorization page a second time (the SDK's next request
// of the failed connection asked for another authorization).
func TestLoginRefusedInBrowserOpensPageOnce(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	srv.Deny = true
	r := newAuthRun(t, t.TempDir(), srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var opened []string
	err := r.m.Login(ctx, "hosted", mcp.LoginOptions{
		Open: func(u string) error { opened = append(opened, u); return mcptest.Browse(u) },
		Say:  func(string) {},
	})
	if err == nil || !strings.Contains(err.Error(), "access_denied") {
		t.Errorf("login: %v, want the refusal (access_denied)", err)
	}
	if len(opened) != 1 || len(srv.Authorized()) != 1 {
		t.Errorf("the page was opened %d times (%d authorization requests), want once", len(opened), len(srv.Authorized()))
	}
}

// A stored login co cannot use says why in the status, not only "needs
// login": a file that is not a login, one others can read (not used, as
// ssh refuses such a key), one for another URL, a token the server
// refuses. A login replaces the file with a private one.
func TestStoredLoginNotUsedSaysWhy(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp-auth", "hosted.json")
	newAuthRun(t, dir, srv).login(t)
	good, _ := os.ReadFile(file)
	write := func(b []byte) { // a new file: WriteFile keeps an old file's mode
		os.Remove(file)
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	chmod := func(mode os.FileMode) {
		if err := os.Chmod(file, mode); err != nil {
			t.Fatal(err)
		}
	}
	status := func() mcp.Status {
		r := newAuthRun(t, dir, srv)
		r.start(t)
		return r.status(t)
	}
	for _, c := range []struct {
		name, want string
		prep       func()
	}{
		{"garbage", "cannot be read", func() { write([]byte("{garbage")) }},
		{"readable by others", "readable by other users (mode 0644)", func() { write(good); chmod(0o644) }},
		{"another URL", "was made for http://127.0.0.1:1/mcp", func() {
			write([]byte(strings.Replace(string(good), srv.URL, "http://127.0.0.1:1/mcp", 1)))
		}},
		{"revoked", "refused the stored login", func() { write(good); srv.Revoke() }},
	} {
		c.prep()
		st := status()
		if st.State != mcp.NeedsLogin || !strings.Contains(st.Err, c.want) || !strings.Contains(st.Err, "co mcp login hosted") ||
			!strings.Contains(st.Detail, c.want) {
			t.Errorf("%s: %s, err %q, detail %q; want needs login saying %q", c.name, st.State, st.Err, st.Detail, c.want)
		}
	}
	chmod(0o644)
	newAuthRun(t, dir, srv).login(t)
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("after a new login: %v, %v; want 0600", fi.Mode(), err)
	}
	if st := status(); st.State != mcp.Connected {
		t.Errorf("after a new login: %s (%s)", st.State, st.Err)
	}
}

// Two servers whose names differ only in characters a file name cannot
// keep ("team.tracker", "team_tracker") keep a login each: one file each,
// so logging in to one (or out of it) leaves the other's alone.
func TestLoginsOfSimilarNamesKeptApart(t *testing.T) {
	a, b := mcptest.NewOAuthServer(t), mcptest.NewOAuthServer(t)
	dir := t.TempDir()
	newRun := func() (*mcp.Manager, *tools.Registry) {
		reg, _ := tools.NewRegistry()
		m := mcp.New(mcp.Options{
			Servers: []mcp.ServerConfig{{Name: "team.tracker", URL: a.URL, Timeout: 10 * time.Second},
				{Name: "team_tracker", URL: b.URL, Timeout: 10 * time.Second}},
			Registry: reg, LogDir: filepath.Join(dir, "mcp"), Version: "test",
			Auth: mcp.NewAuthStore(filepath.Join(dir, "mcp-auth")),
		})
		t.Cleanup(m.Close)
		return m, reg
	}
	m, _ := newRun()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, name := range []string{"team.tracker", "team_tracker"} {
		if err := m.Login(ctx, name, mcp.LoginOptions{Open: mcptest.Browse, Say: func(string) {}}); err != nil {
			t.Fatalf("login %s: %v", name, err)
		}
	}
	later, _ := newRun()
	later.Start()
	later.Wait(ctx)
	for _, st := range later.Statuses() {
		if st.State != mcp.Connected {
			t.Errorf("%s: %s (%s), want both logged in", st.Name, st.State, st.Err)
		}
	}
	if msg, err := later.Logout("team.tracker"); err != nil || !strings.Contains(msg, "Logged out") {
		t.Fatalf("logout: %q %v", msg, err)
	}
	if msg, _ := later.Logout("team_tracker"); !strings.Contains(msg, "Logged out") {
		t.Errorf("the other server's login went with the first's: %q", msg)
	}
}

// /mcp login to a server that asks for none says so, and not "Logged in
// to MCP server open; it is starting again with the new token" after it.
func TestLoginEndedToServerNeedingNone(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "open", Version: "1"}, nil)
	open := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	defer open.Close()
	m := mcp.New(mcp.Options{Servers: []mcp.ServerConfig{{Name: "open", URL: open.URL, Timeout: 10 * time.Second}},
		LogDir: t.TempDir(), Version: "test", Auth: mcp.NewAuthStore(t.TempDir())})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := m.Login(ctx, "open", mcp.LoginOptions{Open: mcptest.Browse})
	m.LoginEnded("open", err)
	notices := strings.Join(m.Wait(ctx), "\n")
	if err != nil || !strings.Contains(notices, "MCP server open asked for no login") || strings.Contains(notices, "Logged in") || m.LoggedIn("open") {
		t.Errorf("login: %v; notices:\n%s", err, notices)
	}
}

// /mcp login typed again while a login of that server waits for the
// browser (its page lost, say) replaces it: the earlier one ends at once
// without a notice, instead of saying "nobody came back from the browser
// in time" five minutes after the new one logged in.
func TestLoginAgainReplacesLoginUnderWay(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	r := newAuthRun(t, t.TempDir(), srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	shown := make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- r.m.Login(ctx, "hosted", mcp.LoginOptions{
			Open: func(string) error { close(shown); return nil }, // the user never gets there
			Say:  func(string) {},
		})
	}()
	select {
	case <-shown:
	case <-ctx.Done():
		t.Fatal("the first login never showed its page")
	}
	if err := r.m.Login(ctx, "hosted", mcp.LoginOptions{Open: mcptest.Browse, Say: func(string) {}}); err != nil {
		t.Fatalf("the second login: %v", err)
	}
	var err error
	select {
	case err = <-first:
	case <-ctx.Done():
		t.Fatal("the first login still waits for its browser")
	}
	if !errors.Is(err, mcp.ErrLoginReplaced) {
		t.Errorf("the first login ended with %v, want ErrLoginReplaced", err)
	}
	r.m.LoginEnded("hosted", err)
	r.m.LoginEnded("hosted", nil)
	notices := strings.Join(r.m.Wait(ctx), "\n")
	if strings.Contains(notices, "logging in to MCP server hosted:") || !strings.Contains(notices, "Logged in to MCP server hosted") {
		t.Errorf("notices:\n%s", notices)
	}
}

// The page the browser comes back to does not say "logged in" before co
// has exchanged the code: a user whose login then failed read "co: logged
// in" in the browser and an error in co.
func TestLoginPageClaimsNoSuccessBeforeTheExchange(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	srv.RefuseCodes = true
	r := newAuthRun(t, t.TempDir(), srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var page []byte
	err := r.m.Login(ctx, "hosted", mcp.LoginOptions{Say: func(string) {}, Open: func(u string) error {
		resp, err := http.Get(u) // follows the redirect back to co
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		page, err = io.ReadAll(resp.Body)
		return err
	}})
	if err == nil || !strings.Contains(err.Error(), "invalid_grant") {
		t.Errorf("login: %v, want the token endpoint's refusal", err)
	}
	if strings.Contains(string(page), "logged in") || !strings.Contains(string(page), "see co for whether") {
		t.Errorf("the browser read %q", page)
	}
}

// A login made in another terminal (co mcp login) while the chat shows the
// server as needing one is picked up at the next turn (Ready) or /mcp
// (Statuses): the chat kept saying "needs login — run co mcp login" after
// the user had. A server still refusing its unchanged login is not
// retried at every turn.
func TestLoginMadeElsewhereIsPickedUp(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	dir := t.TempDir()
	chat := newAuthRun(t, dir, srv)
	chat.start(t)
	if st := chat.status(t); st.State != mcp.NeedsLogin {
		t.Fatalf("before the login: %s (%s)", st.State, st.Err)
	}
	newAuthRun(t, dir, srv).login(t) // the other terminal
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	chat.m.Ready(ctx, nil) // the next turn
	if st := chat.status(t); st.State != mcp.Connected {
		t.Fatalf("after a login elsewhere: %s (%s)", st.State, st.Err)
	}
	if _, err := chat.whoami(t); err != nil {
		t.Fatal(err)
	}

	srv.Revoke()
	again := newAuthRun(t, dir, srv)
	again.start(t)
	if st := again.status(t); st.State != mcp.NeedsLogin {
		t.Fatalf("revoked: %s", st.State)
	}
	if n := again.m.Wait(ctx); len(n) != 0 { // a turn: nothing new to try
		t.Errorf("the refused login was tried again: %q", n)
	}
}

// A browser on another machine cannot come back to this one's loopback
// listener; the address it ends on, pasted while the login waits, finishes
// the login instead (a line that is not one is said, and the wait goes on).
func TestLoginTakesThePastedAddress(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	dir := t.TempDir()
	r := newAuthRun(t, dir, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pasted := make(chan string)
	said := make(chan string, 8)
	// The other machine's browser: it follows the authorization page and
	// stops at the redirect to the loopback listener it cannot reach.
	elsewhere := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if req.URL.Path == "/callback" {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	open := func(u string) error {
		go func() {
			resp, err := elsewhere.Get(u)
			if err != nil {
				said <- "browser: " + err.Error()
				return
			}
			_ = resp.Body.Close()
			pasted <- "not an address"
			pasted <- resp.Header.Get("Location")
		}()
		return errors.New("no browser available")
	}
	var told []string
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for s := range said {
			told = append(told, s)
		}
	}()
	err := r.m.Login(ctx, "hosted", mcp.LoginOptions{Open: open, Say: func(s string) { said <- s }, Pasted: pasted})
	close(said)
	<-collected
	if err != nil {
		t.Fatalf("login: %v (told %q)", err, told)
	}
	all := strings.Join(told, "\n")
	if !strings.Contains(all, "paste here the address it ends on") || !strings.Contains(all, "That is not the address the browser ended on") {
		t.Errorf("the login told %q", told)
	}
	if _, err := os.Stat(filepath.Join(dir, "mcp-auth", "hosted.json")); err != nil {
		t.Fatalf("no token stored: %v", err)
	}
	if !r.m.LoggedIn("hosted") {
		t.Error("LoggedIn is false after the pasted address")
	}
}

// co opens only a web page: an authorization server whose metadata names
// another kind of URL (a file, a scheme some desktop program handles) gets
// nothing opened, and the login fails saying why.
func TestLoginOpensOnlyWebPages(t *testing.T) {
	for _, endpoint := range []string{"file://localhost/etc/passwd", "vscode://localhost/authorize", "smb://localhost/share"} {
		srv := mcptest.NewOAuthServer(t)
		srv.AuthorizationEndpoint = endpoint
		r := newAuthRun(t, t.TempDir(), srv)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var opened []string
		err := r.m.Login(ctx, "hosted", mcp.LoginOptions{
			Open: func(u string) error { opened = append(opened, u); return nil },
			Say:  func(string) {},
		})
		cancel()
		if len(opened) > 0 {
			t.Errorf("%s: co opened %q", endpoint, opened)
		}
		if err == nil || !strings.Contains(err.Error(), "not a web page") {
			t.Errorf("%s: err %v, want it to say the authorization URL is not a web page", endpoint, err)
		}
	}
}
