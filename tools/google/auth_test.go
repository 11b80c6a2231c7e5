package google_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/co-cli/co/tools/google"
	"github.com/co-cli/co/tools/google/googlefake"
)

// browser plays the user's browser: it opens the consent page, which
// redirects to co's loopback address.
func browser(t *testing.T) func(string) error {
	return func(u string) error {
		go func() {
			resp, err := http.Get(u)
			if err != nil {
				t.Errorf("browser: %v", err)
				return
			}
			resp.Body.Close()
		}()
		return nil
	}
}

func authorize(t *testing.T, srv *googlefake.Server, o google.AuthOptions) (*google.AuthResult, error) {
	t.Helper()
	srv.AddClient("desktop-1", "s3cret")
	if o.ClientSecret == nil {
		o.ClientSecret = srv.ClientSecretJSON("desktop-1", "s3cret")
	}
	if o.TokenPath == "" {
		o.TokenPath = filepath.Join(t.TempDir(), "co-cli", google.TokenFile)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return google.Authorize(ctx, o)
}

func TestAuthorizeSavesATokenThatWorksAndRefreshes(t *testing.T) {
	srv := googlefake.New()
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "config", "co-cli")
	path := filepath.Join(dir, google.TokenFile)
	var out strings.Builder
	res, err := authorize(t, srv, google.AuthOptions{TokenPath: path, OpenBrowser: browser(t), Out: &out})
	if err != nil {
		t.Fatalf("Authorize: %v\n%s", err, out.String())
	}
	if len(res.Missing) != 0 {
		t.Errorf("missing scopes: %v", res.Missing)
	}
	// The code exchange used PKCE and the loopback redirect.
	var exchange map[string][]string
	for _, f := range srv.TokenRequests() {
		if f.Get("grant_type") == "authorization_code" {
			exchange = f
		}
	}
	if exchange == nil || exchange["code_verifier"] == nil || !strings.HasPrefix(exchange["redirect_uri"][0], "http://127.0.0.1:") {
		t.Errorf("code exchange = %v", exchange)
	}
	if !strings.Contains(out.String(), "/o/oauth2/auth?") || !strings.Contains(out.String(), "access_type=offline") {
		t.Errorf("instructions:\n%s", out.String())
	}

	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("token mode = %v, want 0600", st.Mode().Perm())
	}
	if dst, _ := os.Stat(dir); dst.Mode().Perm() != 0o700 {
		t.Errorf("dir mode = %v, want 0700", dst.Mode().Perm())
	}
	saved, err := google.ReadToken(path)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Type != "authorized_user" || saved.ClientID != "desktop-1" || saved.RefreshToken == "" || saved.AccessToken == "" ||
		saved.TokenURI != srv.URL+"token" || len(saved.Scopes) != 5 {
		t.Errorf("saved token = %+v", saved)
	}

	// The saved token is what a session uses.
	cfg := google.Config{TokenPath: path, Endpoint: srv.URL, Getenv: func(string) string { return "" }}
	if src := google.Detect(cfg); src.Kind != google.Saved {
		t.Fatalf("Detect = %+v", src)
	}
	acct := google.NewAccount(cfg)
	probe := acct.Probe(context.Background(), 5*time.Second)
	for _, p := range probe {
		if !p.OK {
			t.Errorf("probe %s: %s", p.Service, p.Detail)
		}
	}
	if len(probe) != 3 || probe[0].Detail != "signed in as Ada Lovelace <ada@example.com>" || probe[1].Detail != "mailbox ada@example.com" ||
		probe[2].Detail != "primary calendar ada@example.com (UTC)" {
		t.Errorf("probe = %+v", probe)
	}
	refreshes := func() int {
		n := 0
		for _, f := range srv.TokenRequests() {
			if f.Get("grant_type") == "refresh_token" {
				n++
			}
		}
		return n
	}
	if n := refreshes(); n != 0 {
		t.Errorf("%d refreshes with a fresh token", n)
	}

	// An expired token is refreshed, and the new one saved (still 0600).
	saved.Expiry = time.Now().Add(-time.Hour)
	if err := google.WriteToken(path, saved); err != nil {
		t.Fatal(err)
	}
	acct = google.NewAccount(cfg)
	for _, p := range acct.Probe(context.Background(), 5*time.Second) {
		if !p.OK {
			t.Errorf("probe after expiry %s: %s", p.Service, p.Detail)
		}
	}
	if n := refreshes(); n != 1 {
		t.Errorf("%d refreshes of an expired token, want 1", n)
	}
	again, _ := google.ReadToken(path)
	if again.AccessToken == saved.AccessToken || !again.Expiry.After(time.Now()) || again.RefreshToken != saved.RefreshToken {
		t.Errorf("after refresh the file holds %+v", again)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode after refresh = %v", st.Mode().Perm())
	}

	// A revoked sign-in says to run co google auth.
	srv.Revoke(saved.RefreshToken)
	again.Expiry = time.Now().Add(-time.Hour)
	_ = google.WriteToken(path, again)
	acct = google.NewAccount(cfg)
	p := acct.Probe(context.Background(), 5*time.Second)[0]
	if p.OK || !strings.Contains(p.Detail, "revoked") || !strings.Contains(p.Detail, "run `co google auth`") {
		t.Errorf("revoked: %+v", p)
	}
}

func TestAuthorizeWithoutBrowserTakesThePastedAddress(t *testing.T) {
	srv := googlefake.New()
	defer srv.Close()
	pr, pw := io.Pipe()
	defer pw.Close()
	var out syncWriter
	out.lines = make(chan string, 16)
	go func() {
		// The browser on another machine: it gets the redirect but
		// cannot reach co's loopback; the user pastes its address.
		u := <-out.lines
		noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := noFollow.Get(u)
		if err != nil {
			t.Errorf("consent page: %v", err)
			return
		}
		resp.Body.Close()
		for _, line := range []string{"not a url\n", resp.Header.Get("Location") + "\n"} {
			if _, err := io.WriteString(pw, line); err != nil {
				t.Errorf("pasting %q: %v", line, err)
				return
			}
		}
	}()
	res, err := authorize(t, srv, google.AuthOptions{NoBrowser: true, In: pr, Out: &out,
		OpenBrowser: func(string) error { t.Error("opened a browser with NoBrowser"); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Token.RefreshToken == "" {
		t.Errorf("token = %+v", res.Token)
	}
	if !strings.Contains(out.String(), "paste it here") || !strings.Contains(out.String(), "That is not the address") {
		t.Errorf("instructions:\n%s", out.String())
	}
}

// syncWriter sends each line that holds a URL to lines.
type syncWriter struct {
	b     strings.Builder
	lines chan string
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.b.Write(p)
	for _, f := range strings.Fields(string(p)) {
		if strings.HasPrefix(f, "http") && strings.Contains(f, "/o/oauth2/auth") {
			w.lines <- f
		}
	}
	return len(p), nil
}

func (w *syncWriter) String() string { return w.b.String() }

func TestAuthorizeFailures(t *testing.T) {
	t.Run("denied", func(t *testing.T) {
		srv := googlefake.New()
		defer srv.Close()
		srv.DenyConsent(true)
		path := filepath.Join(t.TempDir(), google.TokenFile)
		_, err := authorize(t, srv, google.AuthOptions{TokenPath: path, OpenBrowser: browser(t)})
		if err == nil || !strings.Contains(err.Error(), "access was denied") {
			t.Errorf("err = %v", err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Error("a token file was written")
		}
	})
	t.Run("timeout", func(t *testing.T) {
		srv := googlefake.New()
		defer srv.Close()
		srv.AddClient("desktop-1", "s3cret")
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := google.Authorize(ctx, google.AuthOptions{ClientSecret: srv.ClientSecretJSON("desktop-1", "s3cret"),
			TokenPath: filepath.Join(t.TempDir(), "t.json"), OpenBrowser: func(string) error { return nil }})
		if err == nil || !strings.Contains(err.Error(), "no sign-in arrived in time") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("not a client secret", func(t *testing.T) {
		srv := googlefake.New()
		defer srv.Close()
		_, err := authorize(t, srv, google.AuthOptions{ClientSecret: []byte(`{"type":"service_account"}`)})
		if err == nil || !strings.Contains(err.Error(), "Desktop app") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("unticked scopes", func(t *testing.T) {
		srv := googlefake.New()
		defer srv.Close()
		srv.GrantOnly([]string{googlefake.ScopeDrive, googlefake.ScopeGmail, googlefake.ScopeCalendar, googlefake.ScopeCalendarEvents})
		path := filepath.Join(t.TempDir(), google.TokenFile)
		res, err := authorize(t, srv, google.AuthOptions{TokenPath: path, OpenBrowser: browser(t)})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Missing) != 1 || res.Missing[0] != google.ScopeGmailCompose {
			t.Errorf("missing = %v", res.Missing)
		}
		acct := google.NewAccount(google.Config{TokenPath: path, Endpoint: srv.URL, Getenv: func(string) string { return "" }})
		_, err = google.NewCreateEmailDraft(acct).Run(context.Background(), json.RawMessage(`{"to":"a@b.co","subject":"s","body":"b"}`))
		if err == nil || !strings.Contains(err.Error(), "does not grant the Gmail read and compose scope") {
			t.Errorf("draft without compose: %v", err)
		}
	})
	t.Run("endpoint override", func(t *testing.T) {
		srv := googlefake.New()
		defer srv.Close()
		// A client file for Google's real servers, sent to the fake by
		// the override (CO_GOOGLE_OAUTH_ENDPOINT).
		srv.AddClient("desktop-1", "s3cret")
		secret := []byte(`{"installed":{"client_id":"desktop-1","client_secret":"s3cret","auth_uri":"https://accounts.google.com/o/oauth2/auth","token_uri":"https://oauth2.googleapis.com/token","redirect_uris":["http://localhost"]}}`)
		res, err := authorize(t, srv, google.AuthOptions{ClientSecret: secret, Endpoint: strings.TrimSuffix(srv.URL, "/"), OpenBrowser: browser(t)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Token.TokenURI != srv.URL+"token" {
			t.Errorf("token_uri = %s", res.Token.TokenURI)
		}
	})
}

func TestDetect(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	user := write("user.json", `{"type":"authorized_user","client_id":"c","client_secret":"s","refresh_token":"r"}`)
	sa := write("sa.json", `{"type":"service_account","client_email":"x@y.iam.gserviceaccount.com"}`)
	secret := write("secret.json", `{"installed":{"client_id":"c","client_secret":"s"}}`)
	token := write("token.json", `{"type":"authorized_user","client_id":"c","client_secret":"s","refresh_token":"r"}`)
	adc := write("adc.json", `{"type":"authorized_user"}`)
	home := filepath.Join(dir, "home")
	write("home/.config/gcloud/application_default_credentials.json", `{"type":"authorized_user"}`)
	write("sdk/application_default_credentials.json", `{"type":"external_account"}`)
	missing := filepath.Join(dir, "missing.json")

	cases := []struct {
		name      string
		cfg       google.Config
		env       map[string]string
		kind      google.SourceKind
		path      string
		wantInStr string
	}{
		{name: "nothing", cfg: google.Config{TokenPath: missing}, kind: google.None, wantInStr: "not configured"},
		{name: "explicit user", cfg: google.Config{CredentialsPath: user, TokenPath: token}, kind: google.Explicit, path: user, wantInStr: "(authorized user)"},
		{name: "explicit service account", cfg: google.Config{CredentialsPath: sa}, kind: google.Explicit, path: sa, wantInStr: "(service account)"},
		{name: "explicit missing", cfg: google.Config{CredentialsPath: missing, TokenPath: token}, kind: google.None, wantInStr: "does not exist"},
		{name: "client secret, signed in", cfg: google.Config{CredentialsPath: secret, TokenPath: token}, kind: google.Saved, path: token},
		{name: "client secret, not signed in", cfg: google.Config{CredentialsPath: secret, TokenPath: missing}, kind: google.None, wantInStr: "run `co google auth` to sign in with it"},
		{name: "saved token", cfg: google.Config{TokenPath: token}, env: map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": adc}, kind: google.Saved, path: token},
		{name: "GOOGLE_APPLICATION_CREDENTIALS", cfg: google.Config{TokenPath: missing}, env: map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": adc, "HOME": home}, kind: google.ADC, path: adc},
		{name: "GOOGLE_APPLICATION_CREDENTIALS missing", cfg: google.Config{TokenPath: missing}, env: map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": missing}, kind: google.None, wantInStr: "does not exist"},
		{name: "gcloud well-known file", cfg: google.Config{TokenPath: missing}, env: map[string]string{"HOME": home}, kind: google.ADC, path: filepath.Join(home, ".config/gcloud/application_default_credentials.json")},
		{name: "CLOUDSDK_CONFIG", cfg: google.Config{TokenPath: missing}, env: map[string]string{"HOME": home, "CLOUDSDK_CONFIG": filepath.Join(dir, "sdk")}, kind: google.ADC, path: filepath.Join(dir, "sdk/application_default_credentials.json"), wantInStr: "(external account)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Getenv = func(k string) string { return tc.env[k] }
			src := google.Detect(tc.cfg)
			if src.Kind != tc.kind || src.Path != tc.path || !strings.Contains(src.String(), tc.wantInStr) {
				t.Errorf("Detect = %+v (%s)", src, src)
			}
			if src.Configured() != (tc.kind != google.None) {
				t.Errorf("Configured = %v", src.Configured())
			}
			if !src.Configured() {
				u := google.Unconfigured(src)
				if u.Family != "Google" || len(u.Tools) != 9 || u.Hint == "" {
					t.Errorf("Unconfigured = %+v", u)
				}
			}
		})
	}
}

func TestServiceAccountCredentials(t *testing.T) {
	srv := googlefake.New()
	defer srv.Close()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	sa, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "p", "private_key_id": "k1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": "co@p.iam.gserviceaccount.com", "client_id": "1", "token_uri": srv.URL + "token",
	})
	path := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(path, sa, 0o600); err != nil {
		t.Fatal(err)
	}
	srv.AddFiles(googlefake.File{ID: "a", Name: "alpha", MimeType: "text/plain"})
	acct := google.NewAccount(google.Config{CredentialsPath: path, Endpoint: srv.URL, Getenv: func(string) string { return "" }})
	res, err := google.NewSearchDriveFiles(acct).Run(context.Background(), json.RawMessage(`{"query":"alpha"}`))
	if err != nil || res.Meta["count"] != 1 {
		t.Fatalf("service account search: %v %v", err, res)
	}
	f := srv.TokenRequests()[0]
	if f.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		t.Errorf("token request = %v", f)
	}
}

// A credentials file of a type co does not support (here workload identity
// federation's external_account, whose credential_source can name any URL
// or command) is refused before anything is fetched, naming the type and the
// types co takes, rather than handed to the oauth2 library unchecked.
func TestUnsupportedCredentialsTypeIsRefused(t *testing.T) {
	var hits atomic.Int32
	stsSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"access_token":"t","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","token_type":"Bearer","expires_in":3600}`) // the client sees a failed write
	}))
	defer stsSrv.Close()
	srv := googlefake.New()
	defer srv.Close()
	dir := t.TempDir()
	subject := filepath.Join(dir, "subject")
	if err := os.WriteFile(subject, []byte("a-jwt"), 0o600); err != nil {
		t.Fatal(err)
	}
	ext, _ := json.Marshal(map[string]any{
		"type":               "external_account",
		"audience":           "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/x",
		"subject_token_type": "urn:ietf:params:oauth:token-type:jwt",
		"token_url":          stsSrv.URL + "/token",
		"credential_source":  map[string]string{"file": subject},
	})
	path := filepath.Join(dir, "ext.json")
	if err := os.WriteFile(path, ext, 0o600); err != nil {
		t.Fatal(err)
	}
	acct := google.NewAccount(google.Config{CredentialsPath: path, Endpoint: srv.URL, Getenv: func(string) string { return "" }})
	_, err := google.NewSearchDriveFiles(acct).Run(context.Background(), json.RawMessage(`{"query":"alpha"}`))
	if err == nil || !strings.Contains(err.Error(), "external_account") || !strings.Contains(err.Error(), "service_account") {
		t.Fatalf("err = %v", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the token URL of an unsupported credentials file was called %d times", n)
	}
}
