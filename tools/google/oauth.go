package google

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"golang.org/x/oauth2"
	gauth "golang.org/x/oauth2/google"
)

// AuthOptions configure Authorize.
type AuthOptions struct {
	// ClientSecret is the OAuth client JSON downloaded from the Cloud
	// console (an "installed" client: application type Desktop app).
	ClientSecret []byte
	// Endpoint, when set, replaces the authorization server of the client
	// file: Endpoint+"/o/oauth2/auth" and Endpoint+"/token"
	// (CO_GOOGLE_OAUTH_ENDPOINT, for tests).
	Endpoint string
	// TokenPath is where the token is saved (mode 0600).
	TokenPath string
	// Scopes to ask for; nil is Scopes().
	Scopes []string
	// NoBrowser prints the URL instead of opening a browser.
	NoBrowser bool
	// OpenBrowser opens a URL; nil uses xdg-open, open or rundll32.
	OpenBrowser func(url string) error
	// Out receives the instructions for the user.
	Out io.Writer
	// In, with NoBrowser, may carry the address the browser was sent to,
	// pasted by a user whose browser runs on another machine.
	In io.Reader
	// HTTPClient makes the code exchange; nil is a client with a 30 s
	// timeout.
	HTTPClient *http.Client
}

// AuthResult is a finished sign-in.
type AuthResult struct {
	Token *SavedToken
	// Missing are scopes asked for but not granted (the user unticked
	// them on the consent screen).
	Missing []string
}

// Authorize runs the OAuth flow of an installed app: it listens on
// 127.0.0.1 at a free port, sends the user to Google's consent page (PKCE,
// offline access), waits for the redirect with the code until ctx ends,
// exchanges the code, and saves the token at TokenPath with mode 0600.
func Authorize(ctx context.Context, o AuthOptions) (*AuthResult, error) {
	scopes := o.Scopes
	if scopes == nil {
		scopes = Scopes()
	}
	cfg, err := gauth.ConfigFromJSON(o.ClientSecret, scopes...)
	if err != nil {
		return nil, fmt.Errorf("not an OAuth client secret file (%v): in the Google Cloud console, create an OAuth client ID of type Desktop app under APIs & Services → Credentials and download its JSON", err)
	}
	if o.Endpoint != "" {
		base := strings.TrimSuffix(o.Endpoint, "/")
		cfg.Endpoint.AuthURL, cfg.Endpoint.TokenURL = base+"/o/oauth2/auth", base+"/token"
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cannot listen on 127.0.0.1 for Google's redirect: %w", err)
	}
	defer ln.Close()
	cfg.RedirectURL = fmt.Sprintf("http://%s/", ln.Addr())

	state, err := randomHex(16)
	if err != nil {
		return nil, err
	}
	verifier := oauth2.GenerateVerifier()
	authURL := cfg.AuthCodeURL(state, oauth2.AccessTypeOffline, oauth2.S256ChallengeOption(verifier),
		oauth2.SetAuthURLParam("prompt", "consent"))

	codes := make(chan codeResult, 1)
	srv := &http.Server{Handler: redirectHandler(state, codes), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()

	if o.NoBrowser {
		fmt.Fprintf(o.Out, "Open this address in a browser and sign in to Google:\n\n  %s\n\n", authURL)
		fmt.Fprintf(o.Out, "co waits for Google to send the browser back to %s.\n", cfg.RedirectURL)
		fmt.Fprintf(o.Out, "If the browser runs on another machine, that last page fails to load: copy its address from the address bar and paste it here.\n")
		if o.In != nil {
			go readPasted(o.In, state, codes, o.Out)
		}
	} else {
		open := o.OpenBrowser
		if open == nil {
			open = openBrowser
		}
		fmt.Fprintf(o.Out, "Opening the browser to sign in to Google. If it does not open, visit:\n\n  %s\n\n", authURL)
		if err := open(authURL); err != nil {
			fmt.Fprintf(o.Out, "(could not open a browser: %v; use the address above, or run with --no-browser)\n", err)
		}
	}

	var res codeResult
	select {
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, errors.New("no sign-in arrived in time: run `co google auth` again (--timeout sets how long it waits)")
		}
		return nil, ctx.Err()
	case res = <-codes:
	}
	if res.err != nil {
		return nil, res.err
	}

	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	tok, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, hc), res.code, oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, fmt.Errorf("Google did not accept the sign-in code: %w", err)
	}
	if tok.RefreshToken == "" {
		return nil, errors.New("Google sent no refresh token, so the sign-in would not last: remove co at https://myaccount.google.com/permissions and run `co google auth` again")
	}
	granted := scopes
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		granted = strings.Fields(s)
	}
	saved := &SavedToken{
		Type:         "authorized_user",
		ClientID:     cfg.ClientID,
		ClientSecret: cfg.ClientSecret,
		RefreshToken: tok.RefreshToken,
		TokenURI:     cfg.Endpoint.TokenURL,
		AccessToken:  tok.AccessToken,
		TokenType:    tok.TokenType,
		Expiry:       tok.Expiry,
		Scopes:       granted,
	}
	if err := WriteToken(o.TokenPath, saved); err != nil {
		return nil, fmt.Errorf("signed in, but cannot save the token: %w", err)
	}
	out := &AuthResult{Token: saved}
	for _, s := range scopes {
		if !contains(granted, s) {
			out.Missing = append(out.Missing, s)
		}
	}
	return out, nil
}

type codeResult struct {
	code string
	err  error
}

// fromQuery reads the redirect's query: a code, an error, or neither.
func fromQuery(q url.Values, state string) (codeResult, bool) {
	switch {
	case q.Get("error") != "":
		msg := q.Get("error")
		if msg == "access_denied" {
			msg = "access was denied on the consent screen"
		}
		return codeResult{err: fmt.Errorf("Google sign-in failed: %s", msg)}, true
	case q.Get("code") == "":
		return codeResult{}, false
	case q.Get("state") != state:
		return codeResult{err: errors.New("the redirect does not belong to this sign-in (state mismatch): run `co google auth` again")}, true
	}
	return codeResult{code: q.Get("code")}, true
}

func redirectHandler(state string, codes chan<- codeResult) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, ok := fromQuery(r.URL.Query(), state)
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if res.err != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "<!doctype html><title>co</title><p>%s</p>", html.EscapeString(res.err.Error()))
		} else {
			fmt.Fprint(w, "<!doctype html><title>co</title><p>co is signed in to Google. You can close this tab.</p>")
		}
		select {
		case codes <- res:
		default:
		}
	})
}

// readPasted reads lines until one is the redirect address.
func readPasted(in io.Reader, state string, codes chan<- codeResult, out io.Writer) {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		u, err := url.Parse(line)
		if err == nil {
			if res, ok := fromQuery(u.Query(), state); ok {
				select {
				case codes <- res:
				default:
				}
				return
			}
		}
		fmt.Fprintln(out, "That is not the address Google redirected to (it has no code=...); paste the whole address.")
	}
}

func openBrowser(u string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", u)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.Command("xdg-open", u)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
