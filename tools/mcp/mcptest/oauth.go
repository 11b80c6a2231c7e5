package mcptest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// OAuthServer is a remote MCP server behind the MCP authorization flow, for
// tests: its own authorization server (metadata, dynamic registration, an
// authorization endpoint that grants at once by redirecting back with a
// code, a token endpoint checking PKCE, refresh tokens) and an MCP
// endpoint (URL) that answers 401 with WWW-Authenticate until a request
// carries a token it issued. Its one tool, whoami, returns the bearer
// token the call came with; with CallScope set, tools/call needs that
// scope too and is answered 403 insufficient_scope without it.
type OAuthServer struct {
	URL string // the MCP endpoint: <base>/mcp

	// ExpiresIn is each access token's lifetime in seconds as the token
	// endpoint says it (0: not said). Under 10, golang.org/x/oauth2 takes
	// the token for expired at once and refreshes it before each use.
	ExpiresIn int
	// CallScope, when set, is the scope tools/call needs.
	CallScope string
	// Deny makes the authorization endpoint refuse: it redirects back
	// with error=access_denied, as when the user clicks Deny.
	Deny bool
	// RefuseCodes makes the token endpoint refuse every authorization
	// code (invalid_grant), after the browser came back.
	RefuseCodes bool
	// RefuseForgottenAtToken makes a client ForgetClients forgot pass the
	// authorization endpoint and be refused at the token endpoint (401
	// invalid_client) instead of at the redirect (unauthorized_client).
	RefuseForgottenAtToken bool
	// AuthorizationEndpoint, when set, is the authorization_endpoint its
	// metadata gives instead of its own /authorize.
	AuthorizationEndpoint string

	base string
	srv  *httptest.Server

	mu         sync.Mutex
	codes      map[string]grant // authorization code → its grant
	tokens     map[string][]string
	refresh    map[string][]string
	registered int
	authorized []string // the scope of each authorization request
	clients    []string // the client_id of each authorization request
	forgotten  map[string]bool
	movedTo    *OAuthServer // the authorization server now, when not this one
	others     []string     // the MCP endpoints moved to this authorization server
	refreshes  int
}

type grant struct {
	challenge, redirect string
	scopes              []string
}

// NewOAuthServer starts an OAuthServer, closed at the end of the test.
func NewOAuthServer(t testing.TB) *OAuthServer {
	t.Helper()
	o := &OAuthServer{codes: map[string]grant{}, tokens: map[string][]string{}, refresh: map[string][]string{}, forgotten: map[string]bool{}}
	server := sdk.NewServer(&sdk.Implementation{Name: "oauth-test", Version: "1"}, nil)
	server.AddTool(&sdk.Tool{Name: "whoami", Description: "The bearer token of the call.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			tok := strings.TrimPrefix(req.Extra.Header.Get("Authorization"), "Bearer ")
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "your token is " + tok}}}, nil
		})
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		as := o.base
		o.mu.Lock()
		if o.movedTo != nil {
			as = o.movedTo.base
		}
		o.mu.Unlock()
		writeJSON(w, 200, map[string]any{"resource": o.URL, "authorization_servers": []string{as}, "scopes_supported": []string{"read"}})
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		authorize := o.base + "/authorize"
		if o.AuthorizationEndpoint != "" {
			authorize = o.AuthorizationEndpoint
		}
		writeJSON(w, 200, map[string]any{
			"issuer": o.base, "authorization_endpoint": authorize, "token_endpoint": o.base + "/token",
			"registration_endpoint": o.base + "/register", "response_types_supported": []string{"code"},
			"grant_types_supported":            []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
		})
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		var meta map[string]any
		_ = json.NewDecoder(r.Body).Decode(&meta)
		o.mu.Lock()
		o.registered++
		id := fmt.Sprintf("client-%d", o.registered)
		o.mu.Unlock()
		meta["client_id"], meta["token_endpoint_auth_method"] = id, "none"
		writeJSON(w, 201, meta)
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		o.mu.Lock()
		ours := q.Get("resource") == o.URL || slices.Contains(o.others, q.Get("resource"))
		o.mu.Unlock()
		if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || !ours {
			http.Error(w, "bad authorization request: "+r.URL.RawQuery, 400)
			return
		}
		code := rand.Text()
		o.mu.Lock()
		forgotten := o.forgotten[q.Get("client_id")] && !o.RefuseForgottenAtToken
		o.clients = append(o.clients, q.Get("client_id"))
		o.authorized = append(o.authorized, q.Get("scope"))
		o.codes[code] = grant{q.Get("code_challenge"), q.Get("redirect_uri"), strings.Fields(q.Get("scope"))}
		o.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		bq := back.Query()
		bq.Set("code", code)
		if o.Deny {
			bq.Del("code")
			bq.Set("error", "access_denied")
		}
		if forgotten {
			bq.Del("code")
			bq.Set("error", "unauthorized_client")
		}
		bq.Set("state", q.Get("state"))
		back.RawQuery = bq.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		o.mu.Lock()
		defer o.mu.Unlock()
		var scopes []string
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			if o.RefuseCodes {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
			id := r.Form.Get("client_id")
			if u, _, ok := r.BasicAuth(); ok && id == "" {
				id = u
			}
			if o.forgotten[id] {
				writeJSON(w, 401, map[string]string{"error": "invalid_client"})
				return
			}
			g, ok := o.codes[r.Form.Get("code")]
			delete(o.codes, r.Form.Get("code"))
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || r.Form.Get("redirect_uri") != g.redirect {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
			scopes = g.scopes
		case "refresh_token":
			s, ok := o.refresh[r.Form.Get("refresh_token")]
			if !ok {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
			delete(o.refresh, r.Form.Get("refresh_token"))
			o.refreshes++
			scopes = s
		default:
			writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
			return
		}
		at, rt := "at-"+rand.Text(), "rt-"+rand.Text()
		o.tokens[at], o.refresh[rt] = scopes, scopes
		resp := map[string]any{"access_token": at, "token_type": "Bearer", "refresh_token": rt, "scope": strings.Join(scopes, " ")}
		if o.ExpiresIn > 0 {
			resp["expires_in"] = o.ExpiresIn
		}
		writeJSON(w, 200, resp)
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		meta := o.base + "/.well-known/oauth-protected-resource/mcp"
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		o.mu.Lock()
		scopes, ok := o.tokens[tok]
		moved := o.movedTo
		o.mu.Unlock()
		if !ok && moved != nil {
			moved.mu.Lock()
			scopes, ok = moved.tokens[tok]
			moved.mu.Unlock()
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+meta+`", scope="read"`)
			writeJSON(w, 401, map[string]string{"error": "invalid_token"})
			return
		}
		if o.CallScope != "" && r.Method == http.MethodPost && !slices.Contains(scopes, o.CallScope) {
			var msg struct{ Method string }
			body, _ := readBody(r)
			_ = json.Unmarshal(body, &msg)
			if msg.Method == "tools/call" {
				w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="read `+o.CallScope+`", resource_metadata="`+meta+`"`)
				writeJSON(w, 403, map[string]string{"error": "insufficient_scope"})
				return
			}
		}
		mcpHandler.ServeHTTP(w, r)
	})
	o.srv = httptest.NewServer(mux)
	o.base = o.srv.URL
	o.URL = o.srv.URL + "/mcp"
	t.Cleanup(o.srv.Close)
	return o
}

// Registered is how many clients registered dynamically.
func (o *OAuthServer) Registered() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.registered
}

// Clients are the client_id of each authorization request, in order.
func (o *OAuthServer) Clients() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.clients)
}

// ForgetClients forgets every client registered so far, as an
// authorization server that deleted them: the redirect of their
// authorization requests carries error=unauthorized_client (or, with
// RefuseForgottenAtToken, the token endpoint answers invalid_client).
func (o *OAuthServer) ForgetClients() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := 1; i <= o.registered; i++ {
		o.forgotten[fmt.Sprintf("client-%d", i)] = true
	}
}

// MoveAuthorizationTo makes other's authorization server this server's:
// its protected-resource metadata names other, and it takes the tokens
// other issues.
func (o *OAuthServer) MoveAuthorizationTo(other *OAuthServer) {
	other.mu.Lock()
	other.others = append(other.others, o.URL)
	other.mu.Unlock()
	o.mu.Lock()
	defer o.mu.Unlock()
	o.movedTo = other
}

// Authorized are the scopes of each authorization request, in order.
func (o *OAuthServer) Authorized() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.authorized)
}

// Refreshes is how many times a token was refreshed.
func (o *OAuthServer) Refreshes() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.refreshes
}

// Revoke makes every token issued so far invalid, refresh tokens too.
func (o *OAuthServer) Revoke() {
	o.mu.Lock()
	defer o.mu.Unlock()
	clear(o.tokens)
	clear(o.refresh)
}

// Browse is a scripted browser: it visits the authorization page and
// follows its redirects back to the client's loopback listener.
func Browse(u string) error {
	resp, err := http.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", resp.Request.URL, resp.Status)
	}
	return nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// readBody reads r's body and puts it back for the next handler.
func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, err
}
