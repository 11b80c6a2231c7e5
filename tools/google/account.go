package google

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	gauth "golang.org/x/oauth2/google"
	calendar "google.golang.org/api/calendar/v3"
	drive "google.golang.org/api/drive/v3"
	gmail "google.golang.org/api/gmail/v1"
	"google.golang.org/api/option"
)

// Account is the Google side of one chat session: the credentials,
// resolved on the first call and cached until Google rejects them, and
// what the tools learn along the way (the Gmail address for links, the
// calendar's time zone).
type Account struct {
	cfg Config

	mu       sync.Mutex
	client   *http.Client
	source   Source
	drive    *drive.Service
	gmail    *gmail.Service
	calendar *calendar.Service
	email    string
	calZone  *time.Location
	// rejected is set when Google refused the access token: the next
	// resolution refreshes it instead of reusing the saved one.
	rejected bool
}

// NewAccount makes the Account of a session. It does no I/O.
func NewAccount(cfg Config) *Account {
	if cfg.Endpoint != "" && !strings.HasSuffix(cfg.Endpoint, "/") {
		cfg.Endpoint += "/"
	}
	return &Account{cfg: cfg}
}

// Source is where the credentials come from (or would, before the first
// call).
func (a *Account) Source() Source {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.client != nil {
		return a.source
	}
	return Detect(a.cfg)
}

// forget drops the cached credentials and services: the next call
// resolves them again (after co google auth, say). With rejected, the
// access token saved beside the refresh token is not reused.
func (a *Account) forget(rejected bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.client, a.drive, a.gmail, a.calendar = nil, nil, nil, nil
	a.rejected = a.rejected || rejected
}

// baseClient is the client under the authorization.
func (a *Account) baseClient() *http.Client {
	if a.cfg.HTTPClient != nil {
		return a.cfg.HTTPClient
	}
	return &http.Client{Timeout: 60 * time.Second}
}

// httpClientLocked resolves the credentials once. a.mu is held.
func (a *Account) httpClientLocked() (*http.Client, error) {
	if a.client != nil {
		return a.client, nil
	}
	src := Detect(a.cfg)
	if !src.Configured() {
		return nil, fmt.Errorf("%w: %s", errNotConfigured, Unconfigured(src).Hint)
	}
	base := a.baseClient()
	// The token source keeps this context for its refreshes: it carries
	// the HTTP client only, never a request's deadline.
	refreshCtx := context.WithValue(context.Background(), oauth2.HTTPClient, base)
	ts, err := tokenSource(refreshCtx, src, a.rejected)
	if err != nil {
		return nil, credentialsError{err}
	}
	a.rejected = false
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	timeout := base.Timeout
	if timeout > 0 {
		timeout += a.cfg.maxRateWait()
	}
	a.client = &http.Client{
		Transport: &oauth2.Transport{Source: ts, Base: &rateLimited{base: rt, maxWait: a.cfg.maxRateWait(), sleep: a.cfg.Sleep}},
		Timeout:   timeout,
	}
	a.source = src
	return a.client, nil
}

// takenCredentials are the credentials file types tokenSource hands to the
// oauth2 library (authorized_user is read by co itself).
var takenCredentials = []gauth.CredentialsType{gauth.ServiceAccount, gauth.ImpersonatedServiceAccount}

// tokenSource builds the token source of src.
func tokenSource(ctx context.Context, src Source, refresh bool) (oauth2.TokenSource, error) {
	if src.Kind == Saved || src.FileType == "authorized_user" {
		t, err := ReadToken(src.Path)
		if err != nil {
			return nil, fmt.Errorf("cannot use the Google token (%v): run `co google auth` to sign in again", err)
		}
		if refresh {
			t.AccessToken, t.Expiry = "", time.Time{}
		}
		ts := t.oauthConfig().TokenSource(ctx, t.token())
		if src.Kind == Saved {
			ts = &persistingSource{src: ts, path: src.Path, file: *t, last: t.AccessToken}
		}
		return ts, nil
	}
	_, data, err := readCredentialsFile(src.Path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the Google credentials (%v): fix google_credentials_path or GOOGLE_APPLICATION_CREDENTIALS", err)
	}
	// Only the types co takes are handed to the oauth2 library, checked
	// against the file's "type" by CredentialsFromJSONWithType: the library
	// would otherwise accept any, and an external_account file's
	// credential_source can name any URL or command to get a token from
	// (the deprecation note of google.CredentialsFromJSON; Google's
	// https://cloud.google.com/docs/authentication/client-libraries#external-credentials).
	// authorized_user files were read above.
	typ := gauth.CredentialsType(src.FileType)
	if !slices.Contains(takenCredentials, typ) {
		return nil, fmt.Errorf("%s holds %q credentials, which co does not use: give a service_account or impersonated_service_account key file, or an authorized_user token (`co google auth`)", src.Path, src.FileType)
	}
	creds, err := gauth.CredentialsFromJSONWithType(ctx, data, typ, Scopes()...)
	if err != nil {
		return nil, fmt.Errorf("cannot use the Google credentials in %s (%v): replace the file, or run `co google auth`", src.Path, err)
	}
	return creds.TokenSource, nil
}

func (a *Account) options(hc *http.Client, path string) []option.ClientOption {
	opts := []option.ClientOption{option.WithHTTPClient(hc)}
	if a.cfg.Endpoint != "" {
		opts = append(opts, option.WithEndpoint(a.cfg.Endpoint+path))
	}
	return opts
}

// Drive is the session's Drive client.
func (a *Account) Drive(ctx context.Context) (*drive.Service, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.drive != nil {
		return a.drive, nil
	}
	hc, err := a.httpClientLocked()
	if err != nil {
		return nil, err
	}
	a.drive, err = drive.NewService(ctx, a.options(hc, "drive/v3/")...)
	return a.drive, err
}

// Gmail is the session's Gmail client.
func (a *Account) Gmail(ctx context.Context) (*gmail.Service, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.gmail != nil {
		return a.gmail, nil
	}
	hc, err := a.httpClientLocked()
	if err != nil {
		return nil, err
	}
	a.gmail, err = gmail.NewService(ctx, a.options(hc, "")...)
	return a.gmail, err
}

// Calendar is the session's Calendar client.
func (a *Account) Calendar(ctx context.Context) (*calendar.Service, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.calendar != nil {
		return a.calendar, nil
	}
	hc, err := a.httpClientLocked()
	if err != nil {
		return nil, err
	}
	a.calendar, err = calendar.NewService(ctx, a.options(hc, "calendar/v3/")...)
	return a.calendar, err
}

// zone is the time zone dates are shown in: the calendar's, once known,
// otherwise the user's.
func (a *Account) zone() *time.Location {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.calZone != nil {
		return a.calZone
	}
	return a.cfg.location()
}

// setCalendarZone records the time zone Google reports for the calendar.
func (a *Account) setCalendarZone(name string) {
	if name == "" {
		return
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return
	}
	a.mu.Lock()
	a.calZone = loc
	a.mu.Unlock()
}

// mailLink is a link to a Gmail message (or draft view), for the account
// when its address is known.
func (a *Account) mailLink(fragment string) string {
	a.mu.Lock()
	email := a.email
	a.mu.Unlock()
	if email != "" {
		return "https://mail.google.com/mail/?authuser=" + url.QueryEscape(email) + "#" + fragment
	}
	return "https://mail.google.com/mail/u/0/#" + fragment
}

// learnEmail asks Gmail for the account's address once, for links. A
// failure is not an error: links then point at the first signed-in account.
func (a *Account) learnEmail(ctx context.Context, srv *gmail.Service) {
	a.mu.Lock()
	known := a.email != ""
	a.mu.Unlock()
	if known {
		return
	}
	p, err := srv.Users.GetProfile("me").Context(ctx).Do()
	if err != nil || p.EmailAddress == "" {
		return
	}
	a.mu.Lock()
	a.email = p.EmailAddress
	a.mu.Unlock()
}
