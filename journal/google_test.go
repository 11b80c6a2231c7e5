package journal_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/google"
	"github.com/co-cli/co/tools/google/googlefake"
)

// newGoogle signs an account in to a fake Google with scopes (nil: the
// scopes co asks for).
func newGoogle(t *testing.T, scopes ...string) (*googlefake.Server, *google.Account) {
	t.Helper()
	srv := googlefake.New()
	t.Cleanup(srv.Close)
	creds := srv.AuthorizedUserJSON("client-1", "secret-1")
	if scopes != nil {
		creds, _ = json.Marshal(map[string]any{"type": "authorized_user", "client_id": "client-1", "client_secret": "secret-1",
			"refresh_token": srv.IssueRefreshToken("client-1", scopes...), "token_uri": srv.URL + "token"})
	}
	path := filepath.Join(t.TempDir(), google.TokenFile)
	if err := os.WriteFile(path, creds, 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, google.NewAccount(google.Config{TokenPath: path, Endpoint: srv.URL, Location: time.UTC,
		MaxRateWait: 3 * time.Second, Getenv: func(string) string { return "" }})
}

func deletes(srv *googlefake.Server, part string) []googlefake.Request {
	var out []googlefake.Request
	for _, r := range srv.Requests() {
		if r.Method == "DELETE" && strings.Contains(r.Path, part) {
			out = append(out, r)
		}
	}
	return out
}

func TestGmailDraftIsDeleted(t *testing.T) {
	srv, acct := newGoogle(t)
	j := open(t, t.TempDir())
	r := journal.NewRegistry()
	r.Gmail(acct)
	var draft tools.Tool
	for _, tl := range google.Tools(acct) {
		if tl.Name() == google.NameCreateEmailDraft {
			draft = tl
		}
	}
	made, err := draft.Run(ctx(t), json.RawMessage(`{"to":"bob@example.com","subject":"Hello","body":"Hi Bob"}`))
	if err != nil {
		t.Fatal(err)
	}
	// The tool returns the draft id Gmail answered.
	id, _ := made.Meta["draft_id"].(string)
	ds := srv.Drafts()
	if len(ds) != 1 || id != ds[0].ID {
		t.Fatalf("draft_id %q, Gmail holds %d drafts", id, len(ds))
	}
	e := record(t, j, journal.DraftSaved(1, google.NameCreateEmailDraft, id, "bob@example.com", "Hello"))
	undo(t, r, j, e.Seq, journal.Undone)
	if ds := srv.Drafts(); len(ds) != 0 {
		t.Fatalf("after undo Gmail holds %d drafts", len(ds))
	}
	if d := deletes(srv, "/gmail/v1/users/me/drafts/"+ds[0].ID); len(d) != 1 {
		t.Fatalf("%d DELETE requests for the draft, want 1", len(d))
	}

	// The same draft again (sent or deleted in Gmail since): 404 is
	// "already gone".
	again := record(t, j, journal.DraftSaved(1, google.NameCreateEmailDraft, ds[0].ID, "bob@example.com", "Hello"))
	res := undo(t, r, j, again.Seq, journal.AlreadyGone)
	if !strings.Contains(res.Message, "already gone") || !strings.Contains(res.Message, "404") {
		t.Errorf("message %q", res.Message)
	}
}

func TestGmailDraftRefusedWithoutCompose(t *testing.T) {
	srv, acct := newGoogle(t, googlefake.ScopeGmail)
	j := open(t, t.TempDir())
	r := journal.NewRegistry()
	r.Gmail(acct)
	e := record(t, j, journal.DraftSaved(1, google.NameCreateEmailDraft, "r123", "bob@example.com", "Hello"))
	_, err := r.Undo(ctx(t), j, e.Seq)
	if !journal.IsPermission(err) || !strings.Contains(err.Error(), "Gmail compose") || !strings.Contains(err.Error(), "co google auth") {
		t.Fatalf("undo: %v, want a permission refusal naming the scope and how to sign in again", err)
	}
	if len(deletes(srv, "/drafts/")) != 1 {
		t.Fatal("the delete did not reach Google")
	}
	if entry(t, j, e.Seq).Undone != "" {
		t.Error("a refused undo was journalled")
	}
}

func TestCalendarEventIsDeleted(t *testing.T) {
	cases := []struct {
		name      string
		attendees []string
		send      string
	}{
		{"alone", nil, "none"},
		{"with guests", []string{"bob@example.com", "cy@example.com"}, "all"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, acct := newGoogle(t, googlefake.ScopeCalendar, googlefake.ScopeCalendarEvents)
			start := time.Date(2026, 12, 8, 10, 0, 0, 0, time.UTC)
			srv.AddEvents(googlefake.Event{ID: "ev1", Summary: "Review", Start: start, End: start.Add(time.Hour)})
			j := open(t, t.TempDir())
			r := journal.NewRegistry()
			r.Calendar(acct)
			e := record(t, j, journal.EventCreated(1, "create_calendar_event", "primary", "ev1", "Review", c.attendees))
			if (e.Ask != "") != (len(c.attendees) > 0) || len(c.attendees) > 0 && !strings.Contains(e.Ask, "bob@example.com") {
				t.Errorf("Ask = %q", e.Ask)
			}
			undo(t, r, j, e.Seq, journal.Undone)
			if ev := srv.Events(); ev[0].Status != "cancelled" {
				t.Errorf("after undo the event is %q", ev[0].Status)
			}
			d := deletes(srv, "/calendar/v3/calendars/primary/events/ev1")
			if len(d) != 1 || d[0].Query.Get("sendUpdates") != c.send {
				t.Fatalf("DELETE requests %+v, want one with sendUpdates=%s", d, c.send)
			}

			// Deleted already: Calendar answers 410, "already gone".
			again := record(t, j, journal.EventCreated(1, "create_calendar_event", "primary", "ev1", "Review", nil))
			res := undo(t, r, j, again.Seq, journal.AlreadyGone)
			if !strings.Contains(res.Message, "410") || !strings.Contains(res.Message, "Resource has been deleted") {
				t.Errorf("message %q", res.Message)
			}
			// Never there: 404, "already gone" too.
			unknown := record(t, j, journal.EventCreated(1, "create_calendar_event", "primary", "nope", "?", nil))
			undo(t, r, j, unknown.Seq, journal.AlreadyGone)
		})
	}
}

// A sign-in with Calendar read-only (co's before it created events):
// deleting is refused, and the message names the scope it needs.
func TestCalendarEventRefusedReadOnly(t *testing.T) {
	srv, acct := newGoogle(t, googlefake.ScopeDrive, googlefake.ScopeGmail, googlefake.ScopeCompose, googlefake.ScopeCalendar)
	start := time.Date(2026, 12, 8, 10, 0, 0, 0, time.UTC)
	srv.AddEvents(googlefake.Event{ID: "ev1", Summary: "Review", Start: start, End: start.Add(time.Hour)})
	j := open(t, t.TempDir())
	r := journal.NewRegistry()
	r.Calendar(acct)
	e := record(t, j, journal.EventCreated(1, "create_calendar_event", "primary", "ev1", "Review", nil))
	_, err := r.Undo(ctx(t), j, e.Seq)
	if !journal.IsPermission(err) || !strings.Contains(err.Error(), google.ScopeCalendarEvents) || !strings.Contains(err.Error(), "delete it yourself") {
		t.Fatalf("undo: %v, want a permission refusal naming %s", err, google.ScopeCalendarEvents)
	}
	if srv.Events()[0].Status == "cancelled" {
		t.Error("the event was deleted anyway")
	}
}
