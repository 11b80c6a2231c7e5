package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// OAuthClient is a remote server's "oauth" settings: a pre-registered
// client (ClientID, ClientSecret) or the https URL of a client ID metadata
// document (ClientMetadataURL); values may reference ${VAR}. Without
// either, a login registers co dynamically where the server allows it.
type OAuthClient struct {
	ClientID          string
	ClientSecret      string
	ClientMetadataURL string
}

// AuthStore keeps the tokens of the remote servers the user logged in to:
// one file per server in a directory of the user's data directory, 0600 in
// a 0700 directory, never in the settings.
type AuthStore struct {
	dir string
	mu  sync.Mutex
}

// NewAuthStore keeps tokens under dir (created on the first login).
func NewAuthStore(dir string) *AuthStore { return &AuthStore{dir: dir} }

// Dir is where the tokens are kept.
func (a *AuthStore) Dir() string { return a.dir }

// authRecord is one server's login: the token and what refreshing it
// needs (the client and the token endpoint), the scopes granted, and the
// scopes a refused call asked for since (Wanted: the next login asks for
// them too).
type authRecord struct {
	URL          string           `json:"url"`
	Token        *oauth2.Token    `json:"token,omitempty"`
	ClientID     string           `json:"client_id,omitempty"`
	ClientSecret string           `json:"client_secret,omitempty"`
	TokenURL     string           `json:"token_url,omitempty"`
	AuthStyle    oauth2.AuthStyle `json:"auth_style,omitempty"`
	Scopes       []string         `json:"scopes,omitempty"`
	Wanted       []string         `json:"wanted_scopes,omitempty"`
	// Registered is the client a login registered dynamically, which the
	// next login reuses instead of registering again.
	Registered *registration `json:"registered_client,omitempty"`
}

// registration is a client co registered dynamically: its credentials,
// the loopback redirect it registered (its port is listened on again)
// and the authorization server that issued it.
type registration struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	RedirectURI  string `json:"redirect_uri"`
	Issuer       string `json:"issuer,omitempty"`
}

// path is server name's file: NAME.json, and for a name a file name
// cannot keep as it is, its sanitised form and a short hash of it, so
// "team.tracker" and "team_tracker" do not share one.
func (a *AuthStore) path(name string) string {
	file := sanitize(name)
	if file != name {
		sum := sha256.Sum256([]byte(name))
		file += "-" + hex.EncodeToString(sum[:4])
	}
	return filepath.Join(a.dir, file+".json")
}

// load returns server name's record for url, or nil: none, unreadable,
// readable by others, or made for another URL (a token goes only to the
// server it was issued for).
func (a *AuthStore) load(name, url string) *authRecord {
	r, _ := a.loadWhy(name, url)
	return r
}

// loadWhy is load, saying why a file that is there is not used.
func (a *AuthStore) loadWhy(name, url string) (*authRecord, string) {
	if a == nil {
		return nil, ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.loadLocked(name, url)
}

func (a *AuthStore) loadLocked(name, url string) (*authRecord, string) {
	p := a.path(name)
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ""
	}
	if err != nil {
		return nil, fmt.Sprintf("the stored login %s cannot be read (%v)", p, err)
	}
	var r authRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Sprintf("the stored login %s cannot be read (not a login co wrote: %v)", p, err)
	}
	if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Sprintf("the stored login %s is readable by other users (mode %04o), so co does not use it; revoke it at the server if others may have read it", p, fi.Mode().Perm())
	}
	if r.URL != url {
		return nil, fmt.Sprintf("the stored login was made for %s, not the server's url %s", r.URL, url)
	}
	return &r, ""
}

// update changes server name's record for url (a new one when there is
// none) with f and writes it, privately.
func (a *AuthStore) update(name, url string, f func(*authRecord)) error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	r, _ := a.loadLocked(name, url)
	if r == nil {
		r = &authRecord{URL: url}
	}
	f(r)
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(a.dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(a.dir, ".login-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), a.path(name)) // CreateTemp made it 0600
}

// stamp identifies server name's token file as it is now ("" when there
// is none): its modification time and size.
func (a *AuthStore) stamp(name string) string {
	if a == nil {
		return ""
	}
	fi, err := os.Stat(a.path(name))
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d/%d", fi.ModTime().UnixNano(), fi.Size())
}

// Remove deletes server name's tokens; false when there were none.
func (a *AuthStore) Remove(name string) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	err := os.Remove(a.path(name))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// LoggedIn reports whether server name has tokens stored for url.
func (a *AuthStore) LoggedIn(name, url string) bool {
	r := a.load(name, url)
	return r != nil && r.Token != nil
}

// Secrets are every stored token and client secret, for the span store's
// redaction.
func (a *AuthStore) Secrets() []string {
	if a == nil {
		return nil
	}
	entries, _ := os.ReadDir(a.dir)
	var out []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(a.dir, e.Name()))
		if err != nil {
			continue
		}
		var r authRecord
		if json.Unmarshal(b, &r) == nil {
			out = append(out, r.secrets()...)
		}
	}
	return out
}

func (r *authRecord) secrets() []string {
	var out []string
	if r.Token != nil {
		out = append(out, r.Token.AccessToken, r.Token.RefreshToken)
	}
	out = append(out, r.ClientSecret)
	if r.Registered != nil {
		out = append(out, r.Registered.ClientSecret)
	}
	return slices.DeleteFunc(out, func(s string) bool { return len(s) < minLiteralSecret })
}

// NeedsLoginError is a remote server's refusal that only a login can
// answer: no token, a token refused, or a call needing more scope
// (StepUp) than the token has.
type NeedsLoginError struct {
	Server string
	StepUp bool
	Scopes []string // what the server asked for, when it said
	Why    string   // why the stored login, if any, was not enough
}

func (e *NeedsLoginError) Error() string {
	if e.StepUp {
		more := ""
		if len(e.Scopes) > 0 {
			more = " (" + strings.Join(e.Scopes, " ") + ")"
		}
		return fmt.Sprintf("MCP server %s needs more access than your login gave%s: run co mcp login %s (or /mcp login %s in the chat)", e.Server, more, e.Server, e.Server)
	}
	if e.Why != "" {
		return fmt.Sprintf("MCP server %s needs you to log in again (%s): run co mcp login %s (or /mcp login %s in the chat)", e.Server, e.Why, e.Server, e.Server)
	}
	return fmt.Sprintf("MCP server %s needs you to log in: run co mcp login %s (or /mcp login %s in the chat)", e.Server, e.Server, e.Server)
}

// authClient is the HTTP client of discovery, registration and the token
// endpoint: the server's configured headers are not sent there.
var authClient = &http.Client{Timeout: 30 * time.Second}

// authHandler is the OAuthHandler of one connection to a remote server.
// Without login (every run but a login's) it never starts an authorization:
// a 401, or a 403 asking for more scope, is answered with a
// *NeedsLoginError (the scopes asked for kept for the next login), and the
// server is reported as needing a login. With login, the SDK's
// AuthorizationCodeHandler runs the whole flow.
type authHandler struct {
	name  string
	url   string
	store *AuthStore
	sdk   *auth.AuthorizationCodeHandler
	login bool

	// why the stored login is not used or not enough, for NeedsLoginError
	why string

	lg *loginParams // a login's, else nil
	// configured says whether a client id is the user's own (settings),
	// not one co registered
	configured func(clientID string) bool

	mu     sync.Mutex
	needed *NeedsLoginError // the last refusal only a login answers
	failed error            // a login's authorization that failed
	saved  func(secrets ...string)
}

// loginParams make a handler a login's: the authorization URL goes to
// fetch, which returns the code the redirect (a loopback URL) brought
// back; reuse, when set, is the stored registration used instead of
// registering again; client is the HTTP client of discovery, registration
// and the token endpoint, and issuer what it saw of the authorization
// server.
type loginParams struct {
	fetch    auth.AuthorizationCodeFetcher
	redirect string
	reuse    *registration
	client   *http.Client
	issuer   *issuerSeen
}

// newAuthHandler makes the handler for cfg at endpoint url (expanded);
// lg, when not nil, makes it a login's.
func newAuthHandler(cfg ServerConfig, url string, oc OAuthClient, store *AuthStore, lg *loginParams, saved func(...string)) (*authHandler, error) {
	h := &authHandler{name: cfg.Name, url: url, store: store, login: lg != nil, saved: saved, lg: lg}
	rec, why := store.loadWhy(cfg.Name, url)
	h.why = why
	fetch := func(context.Context, *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		return nil, &NeedsLoginError{Server: cfg.Name}
	}
	redirect := "http://127.0.0.1/callback" // never used: no authorization starts
	client := authClient
	if lg != nil {
		fetch, redirect = lg.fetch, lg.redirect
		if lg.client != nil {
			client = lg.client
		}
	}
	c := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: fetch,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:  []string{redirect},
			ClientName:    "co",
			GrantTypes:    []string{"authorization_code", "refresh_token"},
			ResponseTypes: []string{"code"},
		}},
		RequestRefreshToken: true,
		Client:              client,
		NewTokenSource:      h.tokenSource,
	}
	if oc.ClientMetadataURL != "" {
		c.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: oc.ClientMetadataURL}
	}
	if oc.ClientID != "" {
		c.PreregisteredClient = &oauthex.ClientCredentials{ClientID: oc.ClientID}
		if oc.ClientSecret != "" {
			c.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: oc.ClientSecret}
		}
	} else if lg != nil && lg.reuse != nil { // after a CIMD the server takes
		// The last login's registration, as the SDK's pre-registered
		// client (tried before registering): its issuer is checked.
		r := lg.reuse
		c.PreregisteredClient = &oauthex.ClientCredentials{ClientID: r.ClientID, Issuer: r.Issuer}
		if r.ClientSecret != "" {
			c.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: r.ClientSecret}
		}
	}
	h.configured = func(clientID string) bool {
		return oc.ClientID != "" || oc.ClientMetadataURL != "" && clientID == oc.ClientMetadataURL
	}
	if h.login {
		// A login asks again for what was granted and for what a refused
		// call wanted since (step-up across runs), with what the server
		// asks for now.
		var before []string
		if rec != nil {
			before = append(slices.Clone(rec.Scopes), rec.Wanted...)
		}
		c.ScopeFilter = func(discovered []string) []string { return union(discovered, before) }
	} else if rec != nil && rec.Token != nil {
		c.InitialTokenSource = h.saving(rec.config(), rec.Token)
		h.why = "the server refused the stored login: it expired or was revoked"
	}
	sdkh, err := auth.NewAuthorizationCodeHandler(c)
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: the oauth settings: %w", cfg.Name, err)
	}
	h.sdk = sdkh
	return h, nil
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// config is the oauth2 configuration refreshing r's token needs.
func (r *authRecord) config() *oauth2.Config {
	return &oauth2.Config{ClientID: r.ClientID, ClientSecret: r.ClientSecret, Scopes: r.Scopes,
		Endpoint: oauth2.Endpoint{TokenURL: r.TokenURL, AuthStyle: r.AuthStyle}}
}

// tokenSource is the SDK's NewTokenSource: the token a login obtained,
// stored with what refreshing it needs.
func (h *authHandler) tokenSource(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
	err := h.store.update(h.name, h.url, func(r *authRecord) {
		r.Token, r.ClientID, r.ClientSecret = tok, cfg.ClientID, cfg.ClientSecret
		r.TokenURL, r.AuthStyle = cfg.Endpoint.TokenURL, cfg.Endpoint.AuthStyle
		r.Scopes, r.Wanted = slices.Clone(cfg.Scopes), nil
		r.Registered = nil
		if h.lg != nil && !h.configured(cfg.ClientID) {
			r.Registered = &registration{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
				RedirectURI: h.lg.redirect, Issuer: h.lg.issuer.get()}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("storing the token of MCP server %s: %w", h.name, err)
	}
	if h.saved != nil {
		h.saved((&authRecord{Token: tok, ClientSecret: cfg.ClientSecret}).secrets()...)
	}
	return h.savingWith(ctx, cfg, tok), nil
}

// saving is a token source over a stored token that refreshes it (through
// authClient) and stores each new one.
func (h *authHandler) saving(cfg *oauth2.Config, tok *oauth2.Token) oauth2.TokenSource {
	return h.savingWith(context.WithValue(context.Background(), oauth2.HTTPClient, authClient), cfg, tok)
}

func (h *authHandler) savingWith(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) oauth2.TokenSource {
	return &savingSource{h: h, base: cfg.TokenSource(ctx, tok), last: tok.AccessToken}
}

type savingSource struct {
	h    *authHandler
	base oauth2.TokenSource
	mu   sync.Mutex
	last string
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	tok, err := s.base.Token()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok.AccessToken != s.last { // refreshed
		s.last = tok.AccessToken
		_ = s.h.store.update(s.h.name, s.h.url, func(r *authRecord) { r.Token = tok })
		if s.h.saved != nil {
			s.h.saved((&authRecord{Token: tok}).secrets()...)
		}
	}
	return tok, nil
}

// TokenSource is the stored token's source (nil before a login).
func (h *authHandler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	return h.sdk.TokenSource(ctx)
}

// Authorize answers a 401 or 403: a login's handler runs the SDK's flow,
// and not again once it failed (the failed connection's next request
// opened the page again after the user had refused); any other says a
// login is needed (keeping the scopes a 403 asked for).
func (h *authHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if h.login {
		h.mu.Lock()
		failed := h.failed
		h.mu.Unlock()
		if failed != nil {
			resp.Body.Close()
			return failed
		}
		err := h.sdk.Authorize(ctx, req, resp)
		if err != nil {
			h.mu.Lock()
			h.failed = err
			h.mu.Unlock()
		}
		return err
	}
	resp.Body.Close()
	chs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	var code, scope string
	for _, c := range chs {
		if c.Scheme == "bearer" {
			code, scope = c.Params["error"], c.Params["scope"]
		}
	}
	if resp.StatusCode == http.StatusForbidden && code != "insufficient_scope" {
		return nil // a refusal no login changes: the retry fails as it is
	}
	e := &NeedsLoginError{Server: h.name, StepUp: resp.StatusCode == http.StatusForbidden, Scopes: strings.Fields(scope)}
	if !e.StepUp {
		e.Why = h.why
	}
	if e.StepUp {
		_ = h.store.update(h.name, h.url, func(r *authRecord) { r.Wanted = union(r.Wanted, e.Scopes) })
	}
	h.mu.Lock()
	h.needed = e
	h.mu.Unlock()
	return e
}

// loginFailure is the error a login's authorization ended with, if any.
func (h *authHandler) loginFailure() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failed
}

// takeNeeded returns and clears the last refusal only a login answers.
func (h *authHandler) takeNeeded() *NeedsLoginError {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.needed
	h.needed = nil
	return e
}

// RedactWith makes f receive every token a login or a refresh obtains
// from now on (Options.Secrets, set after New).
func (m *Manager) RedactWith(f func(...string)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.opts.Secrets = f
}

// secrets is Options.Secrets, read under the lock RedactWith sets it
// under.
func (m *Manager) secrets() func(...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.opts.Secrets
}
