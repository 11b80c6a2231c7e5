package mcp_test

import (
	"context"
	"encoding/json"
	"net"
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
)

// storedRecord is the login file of server hosted under dir, as JSON.
func storedRecord(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "mcp-auth", "hosted.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// storedRedirect is the redirect URI of the client the last login of
// hosted registered.
func storedRedirect(t *testing.T, dir string) string {
	t.Helper()
	reg, _ := storedRecord(t, dir)["registered_client"].(map[string]any)
	u, _ := reg["redirect_uri"].(string)
	if u == "" {
		t.Fatalf("no registered client stored: %v", storedRecord(t, dir))
	}
	return u
}

func saidAny(said []string, part string) bool {
	return slices.ContainsFunc(said, func(s string) bool { return strings.Contains(s, part) })
}

// A second login reuses the client the first registered (same client_id,
// same redirect), instead of registering a new one each time.
func TestLoginReusesRegisteredClient(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	dir := t.TempDir()
	r := newAuthRun(t, dir, srv)
	if said := r.login(t); saidAny(said, "reuses the client") {
		t.Fatalf("the first login said it reuses a client: %q", said)
	}
	first := storedRedirect(t, dir)
	said := r.login(t)
	if !saidAny(said, "co reuses the client it registered at the last login: should the page say it is unknown, end this login and run co mcp logout hosted first") {
		t.Fatalf("the login did not say it reuses the last client, nor what to do if it is unknown: %q", said)
	}
	if n := srv.Registered(); n != 1 {
		t.Fatalf("two logins registered %d clients, want 1 (said %q)", n, said)
	}
	if got := srv.Clients(); !slices.Equal(got, []string{"client-1", "client-1"}) {
		t.Fatalf("authorization requests came from %q, want client-1 twice", got)
	}
	if again := storedRedirect(t, dir); again != first {
		t.Fatalf("second login's redirect %s, want the first's %s", again, first)
	}
	if saidAny(said, "registers itself again") {
		t.Fatalf("a reused client was said to be registered again: %q", said)
	}
	r2 := newAuthRun(t, dir, srv)
	r2.start(t)
	if out, err := r2.whoami(t); err != nil || !strings.Contains(out, "your token is at-") {
		t.Fatalf("after the second login: %q, %v", out, err)
	}
}

// A stored client the authorization server refuses — at the redirect or
// at the token endpoint — is forgotten: co registers again, says so in one
// line, and the login succeeds; the next login reuses the new client.
func TestLoginRefusedStoredClientRegistersAgain(t *testing.T) {
	for _, atToken := range []bool{false, true} {
		name := map[bool]string{false: "at the redirect", true: "at the token endpoint"}[atToken]
		t.Run(name, func(t *testing.T) {
			srv := mcptest.NewOAuthServer(t)
			srv.RefuseForgottenAtToken = atToken
			dir := t.TempDir()
			r := newAuthRun(t, dir, srv)
			r.login(t)
			srv.ForgetClients()
			said := r.login(t)
			if n := srv.Registered(); n != 2 {
				t.Fatalf("registered %d clients, want 2 (said %q)", n, said)
			}
			want := "refused co's registration from the last login"
			if !saidAny(said, want) || !saidAny(said, "registers itself again") {
				t.Fatalf("the fallback was not said (%q in %q)", want, said)
			}
			if c := srv.Clients(); c[len(c)-1] != "client-2" {
				t.Fatalf("the login's last authorization came from %q, want client-2", c)
			}
			r.login(t)
			if n := srv.Registered(); n != 2 {
				t.Fatalf("the login after the fallback registered again (%d clients)", n)
			}
			r2 := newAuthRun(t, dir, srv)
			r2.start(t)
			if out, err := r2.whoami(t); err != nil || !strings.Contains(out, "your token is at-") {
				t.Fatalf("after the fallback: %q, %v", out, err)
			}
		})
	}
}

// When the port of the stored redirect is taken, the login registers a
// new client on another port, and says so.
func TestLoginPortTakenRegistersAgain(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	dir := t.TempDir()
	r := newAuthRun(t, dir, srv)
	r.login(t)
	u, err := url.Parse(storedRedirect(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", u.Host)
	if err != nil {
		t.Fatalf("taking the stored redirect's port: %v", err)
	}
	defer ln.Close()
	said := r.login(t)
	if n := srv.Registered(); n != 2 {
		t.Fatalf("registered %d clients, want 2 (said %q)", n, said)
	}
	if !saidAny(said, u.Host+", is taken") {
		t.Fatalf("the taken port was not said: %q", said)
	}
	if again := storedRedirect(t, dir); again == u.String() {
		t.Fatalf("the new registration kept the taken redirect %s", again)
	}
}

// A client_id in the settings wins over the client a login registered,
// which is then no longer kept.
func TestLoginConfiguredClientWinsOverStored(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	dir := t.TempDir()
	newAuthRun(t, dir, srv).login(t)
	reg, _ := tools.NewRegistry()
	m := mcp.New(mcp.Options{
		Servers:  []mcp.ServerConfig{{Name: "hosted", URL: srv.URL, Timeout: 10 * time.Second, OAuth: mcp.OAuthClient{ClientID: "mine"}}},
		Registry: reg, LogDir: filepath.Join(dir, "mcp"), Version: "test",
		Auth: mcp.NewAuthStore(filepath.Join(dir, "mcp-auth")),
	})
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Login(ctx, "hosted", mcp.LoginOptions{Open: mcptest.Browse, Say: func(string) {}}); err != nil {
		t.Fatal(err)
	}
	if c := srv.Clients(); !slices.Equal(c, []string{"client-1", "mine"}) {
		t.Fatalf("authorization requests came from %q, want client-1 then the configured mine", c)
	}
	if n := srv.Registered(); n != 1 {
		t.Fatalf("registered %d clients, want 1", n)
	}
	if rec := storedRecord(t, dir); rec["registered_client"] != nil || rec["client_id"] != "mine" {
		t.Fatalf("after a login with the configured client the record is %v", rec)
	}
}

// A logout forgets the registered client with the tokens: no client
// secret is left behind, and the next login registers again.
func TestLogoutForgetsRegisteredClient(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	dir := t.TempDir()
	r := newAuthRun(t, dir, srv)
	r.login(t)
	if _, err := r.m.Logout("hosted"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "mcp-auth", "hosted.json")); !os.IsNotExist(err) {
		t.Fatalf("the login file is still there after logout: %v", err)
	}
	r.login(t)
	if n := srv.Registered(); n != 2 {
		t.Fatalf("the login after a logout registered %d clients in all, want 2", n)
	}
}

// A server whose authorization server is another one now does not get the
// old one's client: co registers with the new one, and says so.
func TestLoginIssuerChangedRegistersAgain(t *testing.T) {
	srv, moved := mcptest.NewOAuthServer(t), mcptest.NewOAuthServer(t)
	dir := t.TempDir()
	r := newAuthRun(t, dir, srv)
	r.login(t)
	// A second registration at the old server: the kept client is its
	// client-2, an id the new server never issued.
	if _, err := r.m.Logout("hosted"); err != nil {
		t.Fatal(err)
	}
	r.login(t)
	srv.MoveAuthorizationTo(moved)
	said := r.login(t)
	if n := moved.Registered(); n != 1 {
		t.Fatalf("the new authorization server registered %d clients, want 1 (said %q)", n, said)
	}
	if c := moved.Clients(); !slices.Equal(c, []string{"client-1"}) {
		t.Fatalf("the new authorization server saw clients %q, want only the one it registered", c)
	}
	if !saidAny(said, "the authorization server is now") {
		t.Fatalf("the changed issuer was not said: %q", said)
	}
	r2 := newAuthRun(t, dir, srv)
	r2.start(t)
	if out, err := r2.whoami(t); err != nil || !strings.Contains(out, "your token is at-") {
		t.Fatalf("after the new login: %q, %v", out, err)
	}
}

// With a client_metadata_url in the settings but an authorization server
// that takes no client ID metadata documents, the client registered
// instead is kept and reused like any other.
func TestLoginMetadataURLUnsupportedReusesRegisteredClient(t *testing.T) {
	srv := mcptest.NewOAuthServer(t)
	dir := t.TempDir()
	reg, _ := tools.NewRegistry()
	m := mcp.New(mcp.Options{
		Servers: []mcp.ServerConfig{{Name: "hosted", URL: srv.URL, Timeout: 10 * time.Second,
			OAuth: mcp.OAuthClient{ClientMetadataURL: "https://co.example/client.json"}}},
		Registry: reg, LogDir: filepath.Join(dir, "mcp"), Version: "test",
		Auth: mcp.NewAuthStore(filepath.Join(dir, "mcp-auth")),
	})
	t.Cleanup(m.Close)
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := m.Login(ctx, "hosted", mcp.LoginOptions{Open: mcptest.Browse, Say: func(string) {}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
	if c := srv.Clients(); !slices.Equal(c, []string{"client-1", "client-1"}) || srv.Registered() != 1 {
		t.Fatalf("authorization requests came from %q after %d registrations, want client-1 twice after 1", c, srv.Registered())
	}
}
