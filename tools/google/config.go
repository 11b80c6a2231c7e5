package google

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/co-cli/co/tools"
)

// The scopes co asks for: only what the tools need.
const (
	ScopeDriveReadOnly    = "https://www.googleapis.com/auth/drive.readonly"
	ScopeGmailReadOnly    = "https://www.googleapis.com/auth/gmail.readonly"
	ScopeGmailCompose     = "https://www.googleapis.com/auth/gmail.compose"
	ScopeCalendarReadOnly = "https://www.googleapis.com/auth/calendar.readonly"
	// ScopeCalendarEvents lets co create events (create_calendar_event)
	// and delete the ones it created (undo). It covers events only:
	// calendarList.get, which tells the calendar's time zone, still needs
	// calendar.readonly.
	ScopeCalendarEvents = "https://www.googleapis.com/auth/calendar.events"
)

// Scopes are the OAuth scopes of the Google tools: Drive read-only, Gmail
// read and compose (drafts), Calendar read-only and events (creating them).
func Scopes() []string {
	return []string{ScopeDriveReadOnly, ScopeGmailReadOnly, ScopeGmailCompose, ScopeCalendarReadOnly, ScopeCalendarEvents}
}

// TokenFile is the name of the token co google auth saves in co's config
// directory.
const TokenFile = "google-token.json"

// ClientSecretFile is where co google auth looks for the OAuth client secret
// when --client-secret is not given.
const ClientSecretFile = "google-client-secret.json"

// DefaultMaxRateWait bounds how long one call waits out Google's rate limits
// (HTTP 429 with Retry-After) before it reports them.
const DefaultMaxRateWait = 30 * time.Second

// Config is what the Google tools of a session are built from.
type Config struct {
	// CredentialsPath is google_credentials_path ("" when unset).
	CredentialsPath string
	// TokenPath is the token saved by co google auth, normally
	// <config dir>/google-token.json.
	TokenPath string
	// Endpoint, when set, is the base URL the three APIs are reached at
	// instead of Google's (CO_GOOGLE_API_ENDPOINT: a local test server).
	// Drive is at Endpoint+"drive/v3/", Gmail at Endpoint+"gmail/v1/...",
	// Calendar at Endpoint+"calendar/v3/", as on www.googleapis.com.
	Endpoint string
	// HTTPClient is the client under the authorization (tests); nil is a
	// client with a 60 s timeout.
	HTTPClient *http.Client
	// Location is the user's time zone for dates and calendar windows; nil
	// is time.Local. A calendar's own time zone, once Google reports it,
	// takes its place for that calendar.
	Location *time.Location
	// MaxRateWait bounds how long one call waits out rate limits; zero is
	// DefaultMaxRateWait.
	MaxRateWait time.Duration
	// Sleep waits out one rate limit of d, returning early with ctx's
	// error; nil is a real timer. Tests inject one that records d.
	Sleep func(ctx context.Context, d time.Duration) error
	// Getenv reads the environment (GOOGLE_APPLICATION_CREDENTIALS, HOME,
	// CLOUDSDK_CONFIG); nil is os.Getenv.
	Getenv func(string) string
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

func (c Config) getenv(k string) string {
	if c.Getenv != nil {
		return c.Getenv(k)
	}
	return os.Getenv(k)
}

func (c Config) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c Config) location() *time.Location {
	if c.Location != nil {
		return c.Location
	}
	return time.Local
}

func (c Config) maxRateWait() time.Duration {
	if c.MaxRateWait > 0 {
		return c.MaxRateWait
	}
	return DefaultMaxRateWait
}

// SourceKind says where the credentials come from.
type SourceKind int

const (
	// None: Google is not configured.
	None SourceKind = iota
	// Explicit: the file named by google_credentials_path.
	Explicit
	// Saved: the token saved by co google auth.
	Saved
	// ADC: Application Default Credentials from a file.
	ADC
)

// Source is where the credentials of a session come from, decided without
// the network.
type Source struct {
	Kind SourceKind
	// Path is the credentials file.
	Path string
	// FileType is the "type" of the file: authorized_user,
	// service_account, ... ("" when unknown).
	FileType string
	// Problem says why Google is not configured, with what to do (Kind is
	// None); "" means nothing is set up at all.
	Problem string
}

// Configured reports whether the Google tools can be offered.
func (s Source) Configured() bool { return s.Kind != None }

// String describes the source for co google check.
func (s Source) String() string {
	kind := ""
	if s.FileType != "" {
		kind = " (" + strings.ReplaceAll(s.FileType, "_", " ") + ")"
	}
	switch s.Kind {
	case Explicit:
		return "google_credentials_path " + s.Path + kind
	case Saved:
		return "the token saved by co google auth, " + s.Path
	case ADC:
		return "Application Default Credentials, " + s.Path + kind
	}
	if s.Problem != "" {
		return "not configured: " + s.Problem
	}
	return "not configured"
}

// credentialsFile is the part of a Google credentials JSON file co reads.
type credentialsFile struct {
	Type         string          `json:"type"`
	Installed    json.RawMessage `json:"installed"`
	Web          json.RawMessage `json:"web"`
	ClientID     string          `json:"client_id"`
	ClientSecret string          `json:"client_secret"`
	RefreshToken string          `json:"refresh_token"`
	TokenURI     string          `json:"token_uri"`
}

func (f credentialsFile) isClientSecret() bool { return f.Installed != nil || f.Web != nil }

func readCredentialsFile(path string) (credentialsFile, []byte, error) {
	var f credentialsFile
	data, err := os.ReadFile(path)
	if err != nil {
		return f, nil, err
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, nil, fmt.Errorf("%s is not a JSON credentials file: %v", path, err)
	}
	return f, data, nil
}

// Detect decides where the credentials come from without the network and
// quickly: it looks at the settings, the environment and a few files.
func Detect(c Config) Source {
	if c.CredentialsPath != "" {
		f, _, err := readCredentialsFile(c.CredentialsPath)
		switch {
		case os.IsNotExist(err):
			return Source{Problem: fmt.Sprintf("google_credentials_path is %s, which does not exist: fix the path, or unset it and run `co google auth`", c.CredentialsPath)}
		case err != nil:
			return Source{Problem: fmt.Sprintf("google_credentials_path: %v", err)}
		case f.isClientSecret():
			if fileExists(c.TokenPath) {
				return Source{Kind: Saved, Path: c.TokenPath, FileType: "authorized_user"}
			}
			return Source{Problem: fmt.Sprintf("%s is an OAuth client secret: run `co google auth` to sign in with it", c.CredentialsPath)}
		}
		return Source{Kind: Explicit, Path: c.CredentialsPath, FileType: f.Type}
	}
	if fileExists(c.TokenPath) {
		return Source{Kind: Saved, Path: c.TokenPath, FileType: "authorized_user"}
	}
	if p := c.getenv("GOOGLE_APPLICATION_CREDENTIALS"); p != "" {
		if !fileExists(p) {
			return Source{Problem: fmt.Sprintf("GOOGLE_APPLICATION_CREDENTIALS is %s, which does not exist", p)}
		}
		f, _, _ := readCredentialsFile(p)
		return Source{Kind: ADC, Path: p, FileType: f.Type}
	}
	if p := wellKnownADC(c); p != "" && fileExists(p) {
		f, _, _ := readCredentialsFile(p)
		return Source{Kind: ADC, Path: p, FileType: f.Type}
	}
	return Source{}
}

// wellKnownADC is where gcloud auth application-default login writes.
func wellKnownADC(c Config) string {
	if d := c.getenv("CLOUDSDK_CONFIG"); d != "" {
		return filepath.Join(d, "application_default_credentials.json")
	}
	if runtime.GOOS == "windows" {
		if d := c.getenv("APPDATA"); d != "" {
			return filepath.Join(d, "gcloud", "application_default_credentials.json")
		}
		return ""
	}
	if h := c.getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "gcloud", "application_default_credentials.json")
	}
	return ""
}

func fileExists(p string) bool {
	if p == "" {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// Tool names.
const (
	NameSearchDriveFiles     = "search_drive_files"
	NameReadDriveFile        = "read_drive_file"
	NameListEmails           = "list_emails"
	NameSearchEmails         = "search_emails"
	NameReadEmailAttachment  = "read_email_attachment"
	NameCreateEmailDraft     = "create_email_draft"
	NameListCalendarEvents   = "list_calendar_events"
	NameSearchCalendarEvents = "search_calendar_events"
	NameCreateCalendarEvent  = "create_calendar_event"
)

// ToolNames are the names of the Google tools, in the order Tools returns
// them.
func ToolNames() []string {
	return []string{NameSearchDriveFiles, NameReadDriveFile, NameListEmails, NameSearchEmails, NameReadEmailAttachment,
		NameCreateEmailDraft, NameListCalendarEvents, NameSearchCalendarEvents, NameCreateCalendarEvent}
}

// Unconfigured is the /tools and co status line for Google when src is not
// configured.
func Unconfigured(src Source) tools.Unconfigured {
	hint := "run `co google auth --client-secret FILE` (an OAuth client of type Desktop app), or set GOOGLE_CREDENTIALS_PATH to a token or service-account file"
	if src.Problem != "" {
		hint = src.Problem
	}
	return tools.Unconfigured{Family: "Google", Tools: ToolNames(), Hint: hint}
}

// Tools makes the Google tools of one session over a.
func Tools(a *Account) []tools.Tool {
	return []tools.Tool{
		NewSearchDriveFiles(a), NewReadDriveFile(a),
		NewListEmails(a), NewSearchEmails(a), NewReadEmailAttachment(a), NewCreateEmailDraft(a),
		NewListCalendarEvents(a), NewSearchCalendarEvents(a), NewCreateCalendarEvent(a),
	}
}
