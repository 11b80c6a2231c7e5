// Package googlefake is a local server that speaks the parts of the Drive
// v3, Gmail v1 and Calendar v3 REST APIs co uses, and Google's OAuth 2.0
// authorization server, for tests (as net/http/httptest is for HTTP).
//
// Point the Google tools at Server.URL (their Endpoint option, or
// CO_GOOGLE_API_ENDPOINT for the binary) and the OAuth flow at the same URL
// (a client secret file from ClientSecretJSON, or CO_GOOGLE_OAUTH_ENDPOINT).
// API calls need a bearer token the server issued, with the scope the call
// needs, as on Google. The responses are the API's own Go types marshalled
// to JSON, so the client decodes the same shapes as from Google; Drive's
// are cut to the fields the request names (a default set when it names
// none), and the fields that say whose a thing is (a file's ownedByMe,
// owners[].me and lastModifyingUser, an event's organizer.self and
// creator.self) are set from the account's address as Google sets them.
//
// Faults are injected with Fail: the next n requests whose path contains a
// string answer with a status, an error reason and, for 429, Retry-After.
//
// Concurrency: the methods may be called from any goroutine while the
// server serves.
package googlefake

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	calendar "google.golang.org/api/calendar/v3"
	drive "google.golang.org/api/drive/v3"
	gmail "google.golang.org/api/gmail/v1"
)

// The scopes, as co asks for them.
const (
	ScopeDrive    = "https://www.googleapis.com/auth/drive.readonly"
	ScopeGmail    = "https://www.googleapis.com/auth/gmail.readonly"
	ScopeCompose  = "https://www.googleapis.com/auth/gmail.compose"
	ScopeCalendar = "https://www.googleapis.com/auth/calendar.readonly"
	// ScopeCalendarEvents and ScopeCalendarFull are the scopes that let
	// events.insert and events.delete through
	// (https://developers.google.com/workspace/calendar/api/v3/reference/events/insert,
	// https://developers.google.com/workspace/calendar/api/v3/reference/events/delete).
	ScopeCalendarEvents = "https://www.googleapis.com/auth/calendar.events"
	ScopeCalendarFull   = "https://www.googleapis.com/auth/calendar"
)

// File is a Drive file. The account owns it (ownedByMe) when OwnerEmail is
// the account's address; a file in a shared drive (DriveID) has no owner,
// as on Drive.
type File struct {
	ID, Name, MimeType string
	Content            string // the text; for Google Docs/Sheets/Slides, what an export gives
	Modified           time.Time
	Owner, OwnerEmail  string
	Trashed            bool
	TargetID           string // for shortcuts
	DriveID            string // the shared drive it is in
	// Modifier and ModifierEmail are the last user to modify the file
	// (lastModifyingUser); empty means its owner, or nobody Drive names
	// for a file without one.
	Modifier, ModifierEmail string
	// Shared are the permissions the owner gave others (permissions.create
	// on the file): each a Permission with Type (user, group, domain,
	// anyone), Role (writer, commenter, reader, …) and EmailAddress or
	// Domain. The owner's own permission is added as Drive lists it.
	Shared []*drive.Permission
}

// Message is a Gmail message.
type Message struct {
	ID, ThreadID               string
	From, To, Subject, Snippet string
	Date                       time.Time
	Labels                     []string // default INBOX
	Attachments                []Attachment
}

// Attachment is a file attached to a message: a part with a filename,
// whose body Gmail gives by attachmentId (messages.attachments.get).
type Attachment struct {
	Name, MimeType, Data string
}

// Event is a calendar event. A timed event has Start and End; an all-day
// event has StartDate and EndDate ("2006-01-02", the end exclusive).
//
// Organizer is the organizer's address: empty is the attendee marked
// Organizer, else the account itself (an event the user made). Creator is
// who created it: empty is the organizer. As on Calendar, the event says
// organizer.self and creator.self when they are the calendar's own
// address.
type Event struct {
	ID, Summary, Description, Location string
	Start, End                         time.Time
	StartDate, EndDate                 string
	Attendees                          []*calendar.EventAttendee
	HangoutLink                        string
	Status                             string
	Organizer, OrganizerName           string
	Creator, CreatorName               string
}

// Draft is a draft saved through the API.
type Draft struct {
	ID, MessageID string
	// Raw is the RFC 5322 message, decoded from the request's base64url.
	Raw []byte
}

// Request is one request the server received.
type Request struct {
	Method, Path string
	Query        url.Values
	Auth         string
}

type fault struct {
	match      string
	status     int
	reason     string
	retryAfter string
	left       int
}

type token struct {
	client string
	scopes []string
	expiry time.Time
}

type code struct {
	client, redirect, challenge string
	scopes                      []string
}

// Server is the fake. Make it with New; Close it.
type Server struct {
	// URL is the base URL with a trailing slash: the APIs are under it as
	// on www.googleapis.com, the OAuth server at URL+"o/oauth2/auth" and
	// URL+"token".
	URL string
	hs  *httptest.Server

	mu            sync.Mutex
	email         string
	zone          string
	files         []File
	messages      []Message
	events        []Event
	drafts        []Draft
	faults        []*fault
	requests      []Request
	tokenRequests []url.Values
	pageTokens    map[string]int
	clients       map[string]string
	codes         map[string]code
	access        map[string]token
	refresh       map[string]token
	accessTTL     time.Duration
	deny          bool
	grant         []string
	n             int
}

// New starts a server for the account ada@example.com, whose calendar is in
// UTC until SetCalendarZone.
func New() *Server {
	s := &Server{
		email: "ada@example.com", zone: "UTC",
		pageTokens: map[string]int{}, clients: map[string]string{}, codes: map[string]code{},
		access: map[string]token{}, refresh: map[string]token{}, accessTTL: time.Hour,
	}
	s.hs = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.hs.URL + "/"
	return s
}

// Close stops the server.
func (s *Server) Close() { s.hs.Close() }

func (s *Server) id(prefix string) string {
	s.n++
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s%d%s", prefix, s.n, hex.EncodeToString(b))
}

// SetCalendarZone sets the primary calendar's time zone (an IANA name).
func (s *Server) SetCalendarZone(z string) { s.mu.Lock(); s.zone = z; s.mu.Unlock() }

// AddFiles adds Drive files.
func (s *Server) AddFiles(fs ...File) { s.mu.Lock(); s.files = append(s.files, fs...); s.mu.Unlock() }

// AddMessages adds Gmail messages.
func (s *Server) AddMessages(ms ...Message) {
	s.mu.Lock()
	s.messages = append(s.messages, ms...)
	s.mu.Unlock()
}

// AddEvents adds calendar events.
func (s *Server) AddEvents(es ...Event) {
	s.mu.Lock()
	s.events = append(s.events, es...)
	s.mu.Unlock()
}

// Drafts returns the drafts saved so far.
func (s *Server) Drafts() []Draft { s.mu.Lock(); defer s.mu.Unlock(); return slices.Clone(s.drafts) }

// Requests returns the API requests received so far (not the OAuth ones).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// TokenRequests returns the forms posted to the token endpoint.
func (s *Server) TokenRequests() []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tokenRequests)
}

// Fail makes the next n requests whose path contains match answer with
// status and a Google error of the given reason (e.g. insufficientPermissions,
// accessNotConfigured, rateLimitExceeded, notFound). For 429, retryAfter is
// the Retry-After header ("" for none).
func (s *Server) Fail(match string, status int, reason, retryAfter string, n int) {
	s.mu.Lock()
	s.faults = append(s.faults, &fault{match: match, status: status, reason: reason, retryAfter: retryAfter, left: n})
	s.mu.Unlock()
}

// AddClient registers an OAuth client.
func (s *Server) AddClient(id, secret string) { s.mu.Lock(); s.clients[id] = secret; s.mu.Unlock() }

// ClientSecretJSON is a client secret file ("installed" app) of a
// registered client whose authorization server is this one.
func (s *Server) ClientSecretJSON(id, secret string) []byte {
	b, _ := json.Marshal(map[string]any{"installed": map[string]any{
		"client_id": id, "client_secret": secret, "project_id": "co-test",
		"auth_uri": s.URL + "o/oauth2/auth", "token_uri": s.URL + "token",
		"redirect_uris": []string{"http://localhost"},
	}})
	return b
}

// SetAccessTTL sets how long issued access tokens live.
func (s *Server) SetAccessTTL(d time.Duration) { s.mu.Lock(); s.accessTTL = d; s.mu.Unlock() }

// DenyConsent makes the consent page refuse (error=access_denied).
func (s *Server) DenyConsent(on bool) { s.mu.Lock(); s.deny = on; s.mu.Unlock() }

// GrantOnly makes the consent page grant only these scopes (as a user who
// unticks boxes); nil grants what was asked.
func (s *Server) GrantOnly(scopes []string) { s.mu.Lock(); s.grant = scopes; s.mu.Unlock() }

// IssueRefreshToken makes a refresh token of a registered client for
// scopes, as if the user had signed in.
func (s *Server) IssueRefreshToken(client string, scopes ...string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rt := s.id("rt-")
	s.refresh[rt] = token{client: client, scopes: scopes}
	return rt
}

// AuthorizedUserJSON is an authorized-user credentials file (as gcloud and
// co google auth write) with a fresh refresh token for all co's scopes.
func (s *Server) AuthorizedUserJSON(client, secret string) []byte {
	s.AddClient(client, secret)
	rt := s.IssueRefreshToken(client, ScopeDrive, ScopeGmail, ScopeCompose, ScopeCalendar, ScopeCalendarEvents)
	b, _ := json.Marshal(map[string]any{"type": "authorized_user", "client_id": client, "client_secret": secret,
		"refresh_token": rt, "token_uri": s.URL + "token"})
	return b
}

// Revoke revokes a refresh token and the access tokens issued from it.
func (s *Server) Revoke(refreshToken string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.refresh, refreshToken)
	for k := range s.access {
		delete(s.access, k)
	}
}

// ValidAccessTokens is how many unexpired access tokens exist.
func (s *Server) ValidAccessTokens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, t := range s.access {
		if time.Now().Before(t.expiry) {
			n++
		}
	}
	return n
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/o/oauth2/auth":
		s.authorize(w, r)
		return
	case "/token":
		s.token(w, r)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Auth: r.Header.Get("Authorization")})
	for _, f := range s.faults {
		if f.left > 0 && strings.Contains(r.URL.Path, f.match) {
			f.left--
			s.mu.Unlock()
			if f.retryAfter != "" {
				w.Header().Set("Retry-After", f.retryAfter)
			}
			apiError(w, f.status, f.reason, "injected "+f.reason)
			return
		}
	}
	s.mu.Unlock()

	p := r.URL.Path
	var need []string
	switch {
	case r.Method == http.MethodDelete && strings.HasPrefix(p, "/gmail/v1/users/me/drafts/"):
		// users.drafts.delete: mail.google.com, gmail.modify or
		// gmail.compose; co has compose.
		need = []string{ScopeCompose}
	case r.Method == http.MethodDelete && strings.HasPrefix(p, "/calendar/v3/calendars/"),
		r.Method == http.MethodPost && strings.HasPrefix(p, "/calendar/v3/calendars/"):
		need = []string{ScopeCalendarEvents, ScopeCalendarFull}
	case strings.HasPrefix(p, "/drive/v3/"):
		need = []string{ScopeDrive}
	case p == "/gmail/v1/users/me/drafts":
		need = []string{ScopeCompose}
	case strings.HasPrefix(p, "/gmail/v1/"):
		need = []string{ScopeGmail}
	case strings.HasPrefix(p, "/calendar/v3/"):
		need = []string{ScopeCalendar}
	default:
		http.NotFound(w, r)
		return
	}
	if !s.authorized(w, r, need...) {
		return
	}
	switch {
	case r.Method == http.MethodDelete && strings.HasPrefix(p, "/gmail/v1/users/me/drafts/"):
		s.deleteDraft(w, strings.TrimPrefix(p, "/gmail/v1/users/me/drafts/"))
	case r.Method == http.MethodDelete && strings.HasPrefix(p, "/calendar/v3/calendars/"):
		cal, id, _ := strings.Cut(strings.TrimPrefix(p, "/calendar/v3/calendars/"), "/events/")
		s.deleteEvent(w, cal, id)
	case r.Method == http.MethodPost && strings.HasPrefix(p, "/calendar/v3/calendars/") && strings.HasSuffix(p, "/events"):
		s.insertEvent(w, r, strings.TrimSuffix(strings.TrimPrefix(p, "/calendar/v3/calendars/"), "/events"))
	case p == "/drive/v3/about":
		// about.get has no default fields: the request must name them.
		if r.URL.Query().Get("fields") == "" {
			apiError(w, http.StatusBadRequest, "required", "The 'fields' parameter is required for this operation.")
			return
		}
		writeMasked(w, r, "", &drive.About{Kind: "drive#about",
			User: &drive.User{Kind: "drive#user", DisplayName: "Ada Lovelace", EmailAddress: s.email, Me: true}})
	case p == "/drive/v3/files":
		s.listFiles(w, r)
	case strings.HasPrefix(p, "/drive/v3/files/"):
		s.file(w, r, strings.TrimPrefix(p, "/drive/v3/files/"))
	case p == "/gmail/v1/users/me/profile":
		s.mu.Lock()
		total := len(s.messages)
		s.mu.Unlock()
		writeJSON(w, &gmail.Profile{EmailAddress: s.email, MessagesTotal: int64(total)})
	case p == "/gmail/v1/users/me/messages":
		s.listMessages(w, r)
	case strings.HasPrefix(p, "/gmail/v1/users/me/messages/") && strings.Contains(p, "/attachments/"):
		id, att, _ := strings.Cut(strings.TrimPrefix(p, "/gmail/v1/users/me/messages/"), "/attachments/")
		s.attachment(w, id, att)
	case strings.HasPrefix(p, "/gmail/v1/users/me/messages/"):
		s.message(w, r, strings.TrimPrefix(p, "/gmail/v1/users/me/messages/"))
	case p == "/gmail/v1/users/me/drafts" && r.Method == http.MethodPost:
		s.createDraft(w, r)
	case p == "/calendar/v3/users/me/calendarList/primary":
		s.mu.Lock()
		writeJSON(w, &calendar.CalendarListEntry{Id: s.email, TimeZone: s.zone, Primary: true})
		s.mu.Unlock()
	case p == "/calendar/v3/calendars/primary/events":
		s.listEvents(w, r)
	default:
		apiError(w, http.StatusNotFound, "notFound", "Not Found")
	}
}

// authorized checks the bearer token and its scope, as Google does.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request, need ...string) bool {
	bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	t, known := s.access[bearer]
	s.mu.Unlock()
	switch {
	case !ok || !known || time.Now().After(t.expiry):
		apiError(w, http.StatusUnauthorized, "authError", "Request had invalid authentication credentials.")
		return false
	case !slices.ContainsFunc(need, func(n string) bool { return slices.Contains(t.scopes, n) }):
		apiError(w, http.StatusForbidden, "insufficientPermissions", "Request had insufficient authentication scopes.")
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(v)
}

// apiError writes a Google API error with both the legacy errors[] reason
// and a google.rpc.ErrorInfo detail.
func apiError(w http.ResponseWriter, status int, reason, msg string) {
	detail := reason
	switch reason {
	case "insufficientPermissions":
		detail = "ACCESS_TOKEN_SCOPE_INSUFFICIENT"
	case "accessNotConfigured":
		detail = "SERVICE_DISABLED"
	case "rateLimitExceeded":
		detail = "RATE_LIMIT_EXCEEDED"
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": status, "message": msg, "status": http.StatusText(status),
		"errors":  []map[string]any{{"message": msg, "domain": "global", "reason": reason}},
		"details": []map[string]any{{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": detail, "domain": "googleapis.com"}},
	}})
}

// searchTerm is the quoted term of a Drive query such as
// "(name contains 'x' or fullText contains 'x') and trashed = false".
func searchTerm(q string) string {
	i := strings.Index(q, "contains '")
	if i < 0 {
		return ""
	}
	var b strings.Builder
	rest := q[i+len("contains '"):]
	for j := 0; j < len(rest); j++ {
		switch c := rest[j]; {
		case c == '\\' && j+1 < len(rest):
			j++
			b.WriteByte(rest[j])
		case c == '\'':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// driveFile is f as Drive gives it to the account: ownedByMe, owners and
// lastModifyingUser with "me" on the account's own user; no owners, and no
// ownedByMe, in a shared drive (driveId). Source: the Files resource,
// https://developers.google.com/workspace/drive/api/reference/rest/v3/files
// (ownedByMe: "Not populated for items in shared drives"; owners: "This
// field isn't populated for items in shared drives"; lastModifyingUser:
// "only populated when the last modification was performed by a signed-in
// user"), and the User resource's "me": "Whether this user is the
// requesting user".
func (s *Server) driveFile(f File) *drive.File {
	df := &drive.File{Kind: "drive#file", Id: f.ID, Name: f.Name, MimeType: f.MimeType, ModifiedTime: f.Modified.UTC().Format(time.RFC3339),
		WebViewLink: "https://docs.example/" + f.ID, Size: int64(len(f.Content))}
	user := func(name, email string) *drive.User {
		return &drive.User{Kind: "drive#user", DisplayName: name, EmailAddress: email, Me: email != "" && strings.EqualFold(email, s.email)}
	}
	if f.DriveID != "" {
		df.DriveId = f.DriveID
	} else if f.Owner != "" || f.OwnerEmail != "" {
		df.Owners = []*drive.User{user(f.Owner, f.OwnerEmail)}
		df.OwnedByMe = df.Owners[0].Me
	}
	switch {
	case f.Modifier != "" || f.ModifierEmail != "":
		df.LastModifyingUser = user(f.Modifier, f.ModifierEmail)
	case len(df.Owners) > 0:
		df.LastModifyingUser = user(f.Owner, f.OwnerEmail)
	}
	// permissions: "The full list of permissions for the file. This is only
	// available if the requesting user can share the file. Not populated
	// for items in shared drives" (the Files resource). Who can share: the
	// owner, or a writer unless writersCanShare is false ("Share files,
	// folders, and drives", https://developers.google.com/workspace/drive/api/guides/manage-sharing);
	// the fake lets the owner alone. The owner has a permission of role
	// owner, type user, like any other grantee (the Permissions resource,
	// https://developers.google.com/workspace/drive/api/reference/rest/v3/permissions).
	if df.OwnedByMe {
		df.Permissions = []*drive.Permission{{Kind: "drive#permission", Id: "owner-" + f.ID, Type: "user", Role: "owner",
			EmailAddress: f.OwnerEmail, DisplayName: f.Owner}}
		for i, p := range f.Shared {
			c := *p
			c.Kind, c.Id = "drive#permission", fmt.Sprintf("perm-%s-%d", f.ID, i)
			df.Permissions = append(df.Permissions, &c)
		}
	}
	if f.TargetID != "" {
		df.ShortcutDetails = &drive.FileShortcutDetails{TargetId: f.TargetID}
	}
	return df
}

// Drive's default fields when a request names none ("Return specific
// fields", above).
const (
	defaultFileFields = "kind,id,name,mimeType"
	defaultListFields = "kind,nextPageToken,incompleteSearch,files(kind,id,name,mimeType)"
)

func (s *Server) listFiles(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	term := strings.ToLower(searchTerm(q.Get("q")))
	size, _ := strconv.Atoi(q.Get("pageSize"))
	if size <= 0 {
		size = 100
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	start := 0
	if tok := q.Get("pageToken"); tok != "" {
		off, ok := s.pageTokens[tok]
		if !ok {
			apiError(w, http.StatusBadRequest, "invalid", "Invalid Value: pageToken")
			return
		}
		start = off
	}
	var match []File
	for _, f := range s.files {
		if !f.Trashed && (strings.Contains(strings.ToLower(f.Name), term) || strings.Contains(strings.ToLower(f.Content), term)) {
			match = append(match, f)
		}
	}
	out := &drive.FileList{Kind: "drive#fileList", Files: []*drive.File{}}
	for i := start; i < len(match) && i < start+size; i++ {
		out.Files = append(out.Files, s.driveFile(match[i]))
	}
	if start+size < len(match) {
		tok := s.id("pt-")
		s.pageTokens[tok] = start + size
		out.NextPageToken = tok
	}
	writeMasked(w, r, defaultListFields, out)
}

func (s *Server) file(w http.ResponseWriter, r *http.Request, rest string) {
	id, export := strings.CutSuffix(rest, "/export")
	s.mu.Lock()
	var f *File
	for i := range s.files {
		if s.files[i].ID == id {
			f = &s.files[i]
		}
	}
	s.mu.Unlock()
	if f == nil {
		apiError(w, http.StatusNotFound, "notFound", "File not found: "+id+".")
		return
	}
	q := r.URL.Query()
	google := strings.HasPrefix(f.MimeType, "application/vnd.google-apps.")
	switch {
	case export:
		want := map[string]string{
			"application/vnd.google-apps.document":     "text/plain",
			"application/vnd.google-apps.spreadsheet":  "text/csv",
			"application/vnd.google-apps.presentation": "text/plain",
		}[f.MimeType]
		if want == "" || q.Get("mimeType") != want {
			apiError(w, http.StatusBadRequest, "badRequest", "The requested conversion is not supported.")
			return
		}
		w.Header().Set("Content-Type", want)
		_, _ = w.Write([]byte(f.Content))
	case q.Get("alt") == "media":
		if google {
			apiError(w, http.StatusForbidden, "fileNotDownloadable", "Only files with binary content can be downloaded. Use Export with Docs Editors files.")
			return
		}
		w.Header().Set("Content-Type", f.MimeType)
		_, _ = w.Write([]byte(f.Content))
	default:
		s.mu.Lock()
		df := s.driveFile(*f)
		s.mu.Unlock()
		writeMasked(w, r, defaultFileFields, df)
	}
}

func (s *Server) listMessages(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	n, _ := strconv.Atoi(q.Get("maxResults"))
	if n <= 0 {
		n = 100
	}
	term := strings.ToLower(q.Get("q"))
	label := q.Get("labelIds")
	s.mu.Lock()
	ms := slices.Clone(s.messages)
	s.mu.Unlock()
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Date.After(ms[j].Date) })
	out := &gmail.ListMessagesResponse{}
	total := 0
	for _, m := range ms {
		labels := m.Labels
		if labels == nil {
			labels = []string{"INBOX"}
		}
		if label != "" && !slices.Contains(labels, label) {
			continue
		}
		if term != "" && !matchesMail(m, term) {
			continue
		}
		total++
		if len(out.Messages) < n {
			out.Messages = append(out.Messages, &gmail.Message{Id: m.ID, ThreadId: m.ThreadID})
		}
	}
	out.ResultSizeEstimate = int64(total)
	if total > n {
		out.NextPageToken = "more"
	}
	writeJSON(w, out)
}

// matchesMail is a small part of Gmail's search: from:x, subject:x, and
// words found in sender, subject or snippet.
func matchesMail(m Message, q string) bool {
	for _, w := range strings.Fields(q) {
		field, val, ok := strings.Cut(w, ":")
		var hay string
		switch {
		case ok && field == "from":
			hay = m.From
		case ok && field == "subject":
			hay = m.Subject
		default:
			hay, val = m.From+" "+m.Subject+" "+m.Snippet, w
		}
		if !strings.Contains(strings.ToLower(hay), val) {
			return false
		}
	}
	return true
}

// message is messages.get. With format=metadata, Gmail gives only the
// headers metadataHeaders names (all of them when it names none). Source:
// https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages/get
func (s *Server) message(w http.ResponseWriter, r *http.Request, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := r.URL.Query()
	for _, m := range s.messages {
		if m.ID != id {
			continue
		}
		thread := m.ThreadID
		if thread == "" {
			thread = m.ID
		}
		var headers []*gmail.MessagePartHeader
		for _, h := range []*gmail.MessagePartHeader{
			{Name: "From", Value: m.From}, {Name: "To", Value: m.To}, {Name: "Subject", Value: m.Subject},
			{Name: "Date", Value: m.Date.Format(time.RFC1123Z)},
		} {
			want := q["metadataHeaders"]
			if q.Get("format") != "metadata" || len(want) == 0 || slices.ContainsFunc(want, func(n string) bool { return strings.EqualFold(n, h.Name) }) {
				headers = append(headers, h)
			}
		}
		payload := &gmail.MessagePart{Headers: headers}
		if q.Get("format") != "metadata" {
			// format=full: the parts; a text part's body inline, an
			// attachment's by its id.
			payload.MimeType = "text/plain"
			payload.Body = &gmail.MessagePartBody{Size: int64(len(m.Snippet)), Data: base64.URLEncoding.EncodeToString([]byte(m.Snippet))}
			if len(m.Attachments) > 0 {
				payload.MimeType, payload.Body = "multipart/mixed", &gmail.MessagePartBody{}
				payload.Parts = []*gmail.MessagePart{{PartId: "0", MimeType: "text/plain",
					Body: &gmail.MessagePartBody{Size: int64(len(m.Snippet)), Data: base64.URLEncoding.EncodeToString([]byte(m.Snippet))}}}
				for i, a := range m.Attachments {
					payload.Parts = append(payload.Parts, &gmail.MessagePart{PartId: strconv.Itoa(i + 1), MimeType: a.MimeType, Filename: a.Name,
						Body: &gmail.MessagePartBody{Size: int64(len(a.Data)), AttachmentId: "att" + strconv.Itoa(i+1)}})
				}
			}
		}
		writeJSON(w, &gmail.Message{Id: m.ID, ThreadId: thread, Snippet: m.Snippet, InternalDate: m.Date.UnixMilli(),
			LabelIds: m.Labels, Payload: payload})
		return
	}
	apiError(w, http.StatusNotFound, "notFound", "Requested entity was not found.")
}

// attachment is messages.attachments.get: the body, base64url.
// https://developers.google.com/gmail/api/reference/rest/v1/users.messages.attachments/get
func (s *Server) attachment(w http.ResponseWriter, id, att string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.messages {
		for i, a := range m.Attachments {
			if m.ID == id && att == "att"+strconv.Itoa(i+1) {
				writeJSON(w, &gmail.MessagePartBody{Size: int64(len(a.Data)), Data: base64.URLEncoding.EncodeToString([]byte(a.Data))})
				return
			}
		}
	}
	apiError(w, http.StatusNotFound, "notFound", "Requested entity was not found.")
}

func (s *Server) createDraft(w http.ResponseWriter, r *http.Request) {
	var in gmail.Draft
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Message == nil || in.Message.Raw == "" {
		apiError(w, http.StatusBadRequest, "invalidArgument", "Missing draft message")
		return
	}
	raw, err := base64.URLEncoding.DecodeString(in.Message.Raw)
	if err != nil {
		raw, err = base64.RawURLEncoding.DecodeString(in.Message.Raw)
	}
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalidArgument", "Invalid value for ByteString")
		return
	}
	s.mu.Lock()
	d := Draft{ID: s.id("r"), MessageID: s.id("m"), Raw: raw}
	s.drafts = append(s.drafts, d)
	s.mu.Unlock()
	writeJSON(w, &gmail.Draft{Id: d.ID, Message: &gmail.Message{Id: d.MessageID, ThreadId: d.MessageID, LabelIds: []string{"DRAFT"}}})
}

// deleteDraft is users.drafts.delete
// (https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.drafts/delete):
// the draft goes for good, the answer is an empty body; a draft id Gmail
// does not have (never saved, deleted or sent already) is 404 notFound.
func (s *Server) deleteDraft(w http.ResponseWriter, id string) {
	s.mu.Lock()
	i := slices.IndexFunc(s.drafts, func(d Draft) bool { return d.ID == id })
	if i >= 0 {
		s.drafts = slices.Delete(s.drafts, i, i+1)
	}
	s.mu.Unlock()
	if i < 0 {
		apiError(w, http.StatusNotFound, "notFound", "Requested entity was not found.")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// deleteEvent is events.delete
// (https://developers.google.com/workspace/calendar/api/v3/reference/events/delete):
// 204 with an empty body. A deleted event stays as status "cancelled"
// (googleapis/google-api-java-client#1535), and deleting it again answers
// 410 "Resource has been deleted" (googleapis/google-api-python-client#210,
// derekantrican/GAS-ICS-Sync#472); an id the calendar never had is 404.
// The calendar is "primary" or the account's address. sendUpdates is kept
// in Requests for tests to check (docs/SOURCES.md#undo-deleting-what-co-sent).
func (s *Server) deleteEvent(w http.ResponseWriter, cal, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cal != "primary" && !strings.EqualFold(cal, s.email) {
		apiError(w, http.StatusNotFound, "notFound", "Not Found")
		return
	}
	i := slices.IndexFunc(s.events, func(e Event) bool { return e.ID == id })
	switch {
	case i < 0:
		apiError(w, http.StatusNotFound, "notFound", "Not Found")
	case s.events[i].Status == "cancelled":
		apiError(w, http.StatusGone, "deleted", "Resource has been deleted")
	default:
		s.events[i].Status = "cancelled"
		w.WriteHeader(http.StatusNoContent)
	}
}

// insertEvent is events.insert
// (https://developers.google.com/workspace/calendar/api/v3/reference/events/insert),
// answering the Events resource
// (https://developers.google.com/workspace/calendar/api/v3/reference/events):
// a new id of base32hex characters (lowercase a-v and 0-9), status
// "confirmed", an htmlLink whose eid is the base64url of the id and the
// calendar's address, the account as creator and organizer (self), and
// each attendee with responseStatus "needsAction" (self on the account's
// own address). start and end are each a date or a dateTime with an offset
// (this fake takes no timeZone; other bad times are a 400 of its own
// wording); an end not after the start is 400 timeRangeEmpty "The
// specified time range is empty." (kewisch/gdata-provider#12). The
// calendar is "primary" or the account's address. sendUpdates is kept in
// Requests for tests to check (docs/SOURCES.md#calendar-creating-events).
func (s *Server) insertEvent(w http.ResponseWriter, r *http.Request, cal string) {
	s.mu.Lock()
	me := s.email
	s.mu.Unlock()
	if cal != "primary" && !strings.EqualFold(cal, me) {
		apiError(w, http.StatusNotFound, "notFound", "Not Found")
		return
	}
	var in calendar.Event
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		apiError(w, http.StatusBadRequest, "parseError", "Parse Error")
		return
	}
	switch send := r.URL.Query().Get("sendUpdates"); send {
	case "", "all", "externalOnly", "none":
	default:
		apiError(w, http.StatusBadRequest, "invalidParameter", fmt.Sprintf("Invalid value for: %s is not a valid value", send))
		return
	}
	if in.Start == nil || in.End == nil {
		apiError(w, http.StatusBadRequest, "required", "Required")
		return
	}
	e := Event{Summary: in.Summary, Description: in.Description, Location: in.Location, Status: "confirmed"}
	if in.Start.Date != "" || in.End.Date != "" {
		a, err1 := time.Parse("2006-01-02", in.Start.Date)
		b, err2 := time.Parse("2006-01-02", in.End.Date)
		switch {
		case err1 != nil || err2 != nil:
			apiError(w, http.StatusBadRequest, "invalid", "Invalid start or end date.")
			return
		case !b.After(a):
			apiError(w, http.StatusBadRequest, "timeRangeEmpty", "The specified time range is empty.")
			return
		}
		e.StartDate, e.EndDate = in.Start.Date, in.End.Date
	} else {
		a, err1 := time.Parse(time.RFC3339, in.Start.DateTime)
		b, err2 := time.Parse(time.RFC3339, in.End.DateTime)
		switch {
		case err1 != nil || err2 != nil:
			apiError(w, http.StatusBadRequest, "invalid", "Invalid start or end time.")
			return
		case !b.After(a):
			apiError(w, http.StatusBadRequest, "timeRangeEmpty", "The specified time range is empty.")
			return
		}
		e.Start, e.End = a, b
	}
	for _, a := range in.Attendees {
		if !strings.Contains(a.Email, "@") {
			apiError(w, http.StatusBadRequest, "invalid", "Invalid attendee email.")
			return
		}
		att := &calendar.EventAttendee{Email: a.Email, DisplayName: a.DisplayName, ResponseStatus: "needsAction",
			Self: strings.EqualFold(a.Email, me)}
		e.Attendees = append(e.Attendees, att)
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	e.ID = strings.ToLower(strings.TrimRight(base32.HexEncoding.EncodeToString(b), "="))
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()

	out := &calendar.Event{Kind: "calendar#event", Id: e.ID, Status: "confirmed",
		HtmlLink: "https://www.google.com/calendar/event?eid=" + base64.RawURLEncoding.EncodeToString([]byte(e.ID+" "+me)),
		Summary:  e.Summary, Description: e.Description, Location: e.Location, Start: in.Start, End: in.End,
		Attendees: e.Attendees, ICalUID: e.ID + "@google.com", EventType: "default"}
	out.Organizer, out.Creator = s.organizer(e)
	writeJSON(w, out)
}

// Events returns the calendar's events, deleted ones with status
// "cancelled".
func (s *Server) Events() []Event { s.mu.Lock(); defer s.mu.Unlock(); return slices.Clone(s.events) }

func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	tmin, err1 := time.Parse(time.RFC3339, q.Get("timeMin"))
	tmax, err2 := time.Parse(time.RFC3339, q.Get("timeMax"))
	if err1 != nil || err2 != nil {
		apiError(w, http.StatusBadRequest, "badRequest", "timeMin and timeMax are required in this fake")
		return
	}
	n, _ := strconv.Atoi(q.Get("maxResults"))
	if n <= 0 {
		n = 250
	}
	term := strings.ToLower(q.Get("q"))
	s.mu.Lock()
	zone := s.zone
	evs := slices.Clone(s.events)
	s.mu.Unlock()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		loc = time.UTC
	}
	span := func(e Event) (time.Time, time.Time) {
		if e.StartDate != "" {
			a, _ := time.ParseInLocation("2006-01-02", e.StartDate, loc)
			b, _ := time.ParseInLocation("2006-01-02", e.EndDate, loc)
			return a, b
		}
		return e.Start, e.End
	}
	sort.SliceStable(evs, func(i, j int) bool { a, _ := span(evs[i]); b, _ := span(evs[j]); return a.Before(b) })
	out := &calendar.Events{TimeZone: zone, Summary: s.email, Items: []*calendar.Event{}}
	for _, e := range evs {
		a, b := span(e)
		if !b.After(tmin) || !a.Before(tmax) {
			continue
		}
		if term != "" && !strings.Contains(strings.ToLower(e.Summary+" "+e.Description+" "+e.Location), term) {
			continue
		}
		if len(out.Items) == n {
			out.NextPageToken = "more"
			break
		}
		ce := &calendar.Event{Id: e.ID, Summary: e.Summary, Description: e.Description, Location: e.Location,
			Attendees: e.Attendees, HangoutLink: e.HangoutLink, Status: e.Status,
			HtmlLink: "https://calendar.example/event?eid=" + e.ID}
		ce.Organizer, ce.Creator = s.organizer(e)
		if ce.Status == "" {
			ce.Status = "confirmed"
		}
		if e.StartDate != "" {
			ce.Start, ce.End = &calendar.EventDateTime{Date: e.StartDate}, &calendar.EventDateTime{Date: e.EndDate}
		} else {
			ce.Start = &calendar.EventDateTime{DateTime: e.Start.Format(time.RFC3339), TimeZone: e.Start.Location().String()}
			ce.End = &calendar.EventDateTime{DateTime: e.End.Format(time.RFC3339), TimeZone: e.End.Location().String()}
		}
		out.Items = append(out.Items, ce)
	}
	writeJSON(w, out)
}

// organizer and creator of e as Calendar gives them on the account's
// primary calendar: self is true when the address is the calendar's own.
// Source: the Events resource,
// https://developers.google.com/workspace/calendar/api/v3/reference/events
// (organizer.self: "Whether the organizer corresponds to the calendar on
// which this copy of the event appears"; creator.self: "Whether the
// creator corresponds to the calendar on which this copy of the event
// appears").
func (s *Server) organizer(e Event) (*calendar.EventOrganizer, *calendar.EventCreator) {
	s.mu.Lock()
	me := s.email
	s.mu.Unlock()
	org, orgName := e.Organizer, e.OrganizerName
	if org == "" {
		for _, a := range e.Attendees {
			if a.Organizer {
				org, orgName = a.Email, a.DisplayName
			}
		}
	}
	if org == "" {
		org = me
	}
	cr, crName := e.Creator, e.CreatorName
	if cr == "" {
		cr, crName = org, orgName
	}
	return &calendar.EventOrganizer{Email: org, DisplayName: orgName, Self: strings.EqualFold(org, me)},
		&calendar.EventCreator{Email: cr, DisplayName: crName, Self: strings.EqualFold(cr, me)}
}

// authorize is the consent page: it sends the browser straight back to the
// redirect URI with a code (or access_denied), as a user who clicks Allow.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	_, known := s.clients[q.Get("client_id")]
	deny, grant := s.deny, s.grant
	s.mu.Unlock()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	switch {
	case !known:
		http.Error(w, "Error 401: invalid_client", http.StatusUnauthorized)
		return
	case err != nil || redirect.Scheme != "http" || redirect.Hostname() != "127.0.0.1":
		http.Error(w, "Error 400: redirect_uri_mismatch", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "Error 400: invalid_request (code, PKCE S256 expected)", http.StatusBadRequest)
		return
	}
	back := redirect.Query()
	back.Set("state", q.Get("state"))
	if deny {
		back.Set("error", "access_denied")
	} else {
		scopes := strings.Fields(q.Get("scope"))
		if grant != nil {
			scopes = grant
		}
		s.mu.Lock()
		c := s.id("code-")
		s.codes[c] = code{client: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"), scopes: scopes}
		s.mu.Unlock()
		back.Set("code", c)
	}
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}

// token is the token endpoint: authorization_code (with PKCE),
// refresh_token and the JWT bearer grant of service accounts.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	f := r.PostForm
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokenRequests = append(s.tokenRequests, f)
	id, secret := f.Get("client_id"), f.Get("client_secret")
	if u, p, ok := r.BasicAuth(); ok {
		id, secret = u, p
	}
	clientOK := s.clients[id] == secret && id != ""
	issue := func(client string, scopes []string, withRefresh bool) {
		at := s.id("at-")
		s.access[at] = token{client: client, scopes: scopes, expiry: time.Now().Add(s.accessTTL)}
		resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": int(s.accessTTL / time.Second), "scope": strings.Join(scopes, " ")}
		if withRefresh {
			rt := s.id("rt-")
			s.refresh[rt] = token{client: client, scopes: scopes}
			resp["refresh_token"] = rt
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}
	switch f.Get("grant_type") {
	case "authorization_code":
		c, ok := s.codes[f.Get("code")]
		delete(s.codes, f.Get("code"))
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case !clientOK:
			oauthError(w, http.StatusUnauthorized, "invalid_client", "The OAuth client was not found.")
		case !ok || c.client != id:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "Malformed auth code.")
		case c.redirect != f.Get("redirect_uri"):
			oauthError(w, http.StatusBadRequest, "redirect_uri_mismatch", "Bad Request")
		case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "Invalid code verifier.")
		default:
			issue(id, c.scopes, true)
		}
	case "refresh_token":
		t, ok := s.refresh[f.Get("refresh_token")]
		switch {
		case !clientOK:
			oauthError(w, http.StatusUnauthorized, "invalid_client", "The OAuth client was not found.")
		case !ok || t.client != id:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "Token has been expired or revoked.")
		default:
			issue(id, t.scopes, false)
		}
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		claims, err := jwtClaims(f.Get("assertion"))
		if err != nil {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "Invalid JWT: "+err.Error())
			return
		}
		issue(claims.Iss, strings.Fields(claims.Scope), false)
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "Invalid grant_type: "+f.Get("grant_type"))
	}
}

type claimSet struct {
	Iss   string `json:"iss"`
	Scope string `json:"scope"`
}

// jwtClaims reads a JWT's claims without checking its signature.
func jwtClaims(assertion string) (claimSet, error) {
	var c claimSet
	parts := strings.Split(assertion, ".")
	if len(parts) != 3 {
		return c, fmt.Errorf("not a JWT")
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return c, err
	}
	return c, json.Unmarshal(b, &c)
}
