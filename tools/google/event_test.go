package google_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/google"
	"github.com/co-cli/co/tools/google/googlefake"
)

// inserts are the events.insert requests the fake received.
func inserts(srv *googlefake.Server) []googlefake.Request {
	var out []googlefake.Request
	for _, r := range srv.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/events") {
			out = append(out, r)
		}
	}
	return out
}

// runInTurn runs create_calendar_event with a session journal in the
// context, as the agent calls tools, and returns the turn's entries.
func runInTurn(t *testing.T, f *fixture, j *journal.Journal, args string) (tools.Result, []journal.Entry) {
	t.Helper()
	tl := f.tools[google.NameCreateCalendarEvent]
	if err := tools.NewValidator().Validate(tl, json.RawMessage(args)); err != nil {
		t.Fatalf("%s does not fit the schema: %v", args, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := tl.Run(journal.WithTurn(ctx, j, 7, time.Now()), json.RawMessage(args))
	if err != nil {
		t.Fatalf("create_calendar_event(%s): %v", args, err)
	}
	es, err := j.List(7)
	if err != nil {
		t.Fatal(err)
	}
	return res, es
}

func openJournal(t *testing.T) *journal.Journal {
	t.Helper()
	j, err := journal.Open(t.TempDir(), "s-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

func TestCreateCalendarEventWithGuestsAndUndo(t *testing.T) {
	f := newFixture(t, nil)
	j := openJournal(t)
	args := `{"title":"Design review","start":"2026-12-08T10:00:00+01:00","end":"2026-12-08T11:30:00+01:00",` +
		`"description":"Agenda:\nthe undo design","location":"Room 4","attendees":["Bob <Bob@Example.com>","cy@example.org","bob@example.com"]}`
	res, es := runInTurn(t, f, j, args)

	ins := inserts(f.srv)
	if len(ins) != 1 || ins[0].Path != "/calendar/v3/calendars/primary/events" || ins[0].Query.Get("sendUpdates") != "all" {
		t.Fatalf("events.insert requests %+v, want one to primary with sendUpdates=all", ins)
	}
	evs := f.srv.Events()
	if len(evs) != 1 {
		t.Fatalf("%d events in the calendar", len(evs))
	}
	ev := evs[0]
	if ev.Summary != "Design review" || ev.Description != "Agenda:\nthe undo design" || ev.Location != "Room 4" ||
		!ev.Start.Equal(time.Date(2026, 12, 8, 9, 0, 0, 0, time.UTC)) || !ev.End.Equal(time.Date(2026, 12, 8, 10, 30, 0, 0, time.UTC)) {
		t.Errorf("created %+v", ev)
	}
	var guests []string
	for _, a := range ev.Attendees {
		guests = append(guests, a.Email+"/"+a.DisplayName)
	}
	if strings.Join(guests, ",") != "bob@example.com/Bob,cy@example.org/" {
		t.Errorf("attendees %v, want bob (once, named Bob) and cy", guests)
	}
	if res.Meta["id"] != ev.ID || !strings.HasPrefix(res.Meta["link"].(string), "https://www.google.com/calendar/event?eid=") ||
		!strings.Contains(res.Display, res.Meta["link"].(string)) || !strings.Contains(res.Display, "invitation to bob@example.com, cy@example.org") {
		t.Errorf("result %v\n%s", res.Meta, res.Display)
	}

	if len(es) != 1 {
		t.Fatalf("%d journal entries, want 1", len(es))
	}
	e := es[0]
	var h journal.EventHandle
	if err := json.Unmarshal(e.Handle, &h); err != nil {
		t.Fatal(err)
	}
	if e.Kind != journal.CalendarEvent || !e.Undoable || e.Turn != 7 || e.Tool != google.NameCreateCalendarEvent ||
		h.Calendar != "primary" || h.ID != ev.ID || strings.Join(h.Attendees, ",") != "bob@example.com,cy@example.org" ||
		!strings.Contains(e.Ask, "2 other people were invited") {
		t.Fatalf("entry %+v, handle %+v", e, h)
	}

	// Undo deletes it, telling the guests.
	r := journal.NewRegistry()
	r.Calendar(f.acct)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := r.Undo(ctx, j, e.Seq)
	if err != nil || out.Outcome != journal.Undone {
		t.Fatalf("undo: %+v, %v", out, err)
	}
	if f.srv.Events()[0].Status != "cancelled" {
		t.Error("the event is still there after undo")
	}
	var del []googlefake.Request
	for _, q := range f.srv.Requests() {
		if q.Method == "DELETE" {
			del = append(del, q)
		}
	}
	if len(del) != 1 || del[0].Path != "/calendar/v3/calendars/primary/events/"+ev.ID || del[0].Query.Get("sendUpdates") != "all" {
		t.Fatalf("DELETE requests %+v, want one for %s with sendUpdates=all", del, ev.ID)
	}
}

func TestCreateAllDayEventAlone(t *testing.T) {
	f := newFixture(t, nil)
	j := openJournal(t)
	res, es := runInTurn(t, f, j, `{"title":"Offsite","start":"2026-12-08","end":"2026-12-10"}`)
	ins := inserts(f.srv)
	if len(ins) != 1 || ins[0].Query.Get("sendUpdates") != "none" {
		t.Fatalf("events.insert requests %+v, want sendUpdates=none for an event without guests", ins)
	}
	ev := f.srv.Events()[0]
	if ev.StartDate != "2026-12-08" || ev.EndDate != "2026-12-10" || len(ev.Attendees) != 0 {
		t.Errorf("created %+v", ev)
	}
	if !strings.Contains(res.Display, `"Offsite", Tue 8 Dec 2026 – Wed 9 Dec 2026 (all day).`) {
		t.Errorf("display %q", res.Display)
	}
	var h journal.EventHandle
	if len(es) != 1 || json.Unmarshal(es[0].Handle, &h) != nil || h.ID != ev.ID || len(h.Attendees) != 0 || es[0].Ask != "" {
		t.Fatalf("entries %+v", es)
	}
	r := journal.NewRegistry()
	r.Calendar(f.acct)
	if out, err := r.Undo(context.Background(), j, es[0].Seq); err != nil || out.Outcome != journal.Undone {
		t.Fatalf("undo: %+v, %v", out, err)
	}
	for _, q := range f.srv.Requests() {
		if q.Method == "DELETE" && q.Query.Get("sendUpdates") != "none" {
			t.Errorf("an event without guests was deleted with sendUpdates=%s", q.Query.Get("sendUpdates"))
		}
	}
}

// A sign-in from before co created events holds calendar.readonly only:
// Google's 403 becomes a message that says to sign in again.
func TestCreateCalendarEventReadOnlySignIn(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.AddClient("client-1", "secret-1")
	old, _ := json.Marshal(map[string]any{"type": "authorized_user", "client_id": "client-1", "client_secret": "secret-1",
		"refresh_token": f.srv.IssueRefreshToken("client-1", googlefake.ScopeDrive, googlefake.ScopeGmail, googlefake.ScopeCompose, googlefake.ScopeCalendar),
		"token_uri":     f.srv.URL + "token"})
	if err := os.WriteFile(f.tokenPath, old, 0o600); err != nil {
		t.Fatal(err)
	}
	f.acct = google.NewAccount(f.cfg)
	f.tools[google.NameCreateCalendarEvent] = google.NewCreateCalendarEvent(f.acct)
	j := openJournal(t)
	ctx := journal.WithTurn(context.Background(), j, 1, time.Now())
	_, err := f.tools[google.NameCreateCalendarEvent].Run(ctx, json.RawMessage(`{"title":"x","start":"2026-12-08T10:00:00Z","end":"2026-12-08T11:00:00Z"}`))
	if err == nil || tools.IsRetry(err) || !strings.Contains(err.Error(), "not create events") ||
		!strings.Contains(err.Error(), "run `co google auth`") || !strings.Contains(err.Error(), google.ScopeCalendarEvents) ||
		!strings.Contains(err.Error(), "insufficient authentication scopes") {
		t.Fatalf("error %v, want one saying to sign in again to allow creating events", err)
	}
	if len(inserts(f.srv)) != 1 || len(f.srv.Events()) != 0 {
		t.Error("the insert did not reach Google, or an event was created anyway")
	}
	if es, _ := j.List(1); len(es) != 0 {
		t.Errorf("a refused insert was journalled: %+v", es)
	}
}

func TestCreateCalendarEventCheck(t *testing.T) {
	f := newFixture(t, nil)
	tl := f.tools[google.NameCreateCalendarEvent].(tools.Checker)
	cases := []struct {
		name, args string
		decision   tools.Decision
		outbound   string // Outbound.To, "" for none
		retry      string // in the reason of an invalid event
	}{
		{"alone", `{"title":"Focus","start":"2026-12-08T10:00:00Z","end":"2026-12-08T11:00:00Z"}`, tools.Ask, "", ""},
		{"guests", `{"title":"Sync","start":"2026-12-08T10:00:00Z","end":"2026-12-08T11:00:00Z","attendees":["cy@example.org","bob@example.com"]}`,
			tools.Ask, "calendar invitation to cy@example.org, bob@example.com", ""},
		{"other calendar", `{"title":"Sync","start":"2026-12-08","end":"2026-12-09","calendar":"team@group.calendar.google.com"}`,
			tools.Ask, "calendar event in team@group.calendar.google.com", ""},
		{"end before start", `{"title":"x","start":"2026-12-08T10:00:00Z","end":"2026-12-08T09:00:00Z"}`, tools.Allow, "", "is not after start"},
		{"one-day all-day", `{"title":"x","start":"2026-12-08","end":"2026-12-08"}`, tools.Allow, "", "end 2026-12-09 for one day"},
		{"no offset", `{"title":"x","start":"2026-12-08T10:00:00","end":"2026-12-08T11:00:00"}`, tools.Allow, "", "with an offset"},
		{"mixed", `{"title":"x","start":"2026-12-08","end":"2026-12-08T11:00:00Z"}`, tools.Allow, "", "mix a date and a time"},
		{"bad guest", `{"title":"x","start":"2026-12-08","end":"2026-12-09","attendees":["bob"]}`, tools.Allow, "", "not a list of email addresses"},
		{"no title", `{"title":" ","start":"2026-12-08","end":"2026-12-09"}`, tools.Allow, "", "title is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch := tl.Check(context.Background(), json.RawMessage(c.args))
			if ch.Decision != c.decision {
				t.Fatalf("decision %v (%s), want %v", ch.Decision, ch.Reason, c.decision)
			}
			if c.retry != "" && !strings.Contains(ch.Reason, c.retry) {
				t.Errorf("reason %q, want it to say %q", ch.Reason, c.retry)
			}
			switch {
			case c.outbound == "" && ch.Outbound != nil:
				t.Errorf("outbound %+v, want none", ch.Outbound)
			case c.outbound != "" && (ch.Outbound == nil || ch.Outbound.To != c.outbound || !strings.Contains(ch.Outbound.What, "Sync")):
				t.Errorf("outbound %+v, want To %q", ch.Outbound, c.outbound)
			}
		})
	}
	ch := tl.Check(context.Background(), json.RawMessage(`{"title":"Sync","start":"2026-12-08T10:00:00+01:00","end":"2026-12-08T11:00:00+01:00","location":"Room 4","attendees":["cy@example.org","bob@example.com"]}`))
	want := "Title: Sync\nWhen: Tue 8 Dec 2026 10:00–11:00 (UTC+01:00)\nWhere: Room 4\nGuests: cy@example.org, bob@example.com (Google emails each an invitation)"
	if ch.Preview != want || ch.Scope != "create_calendar_event:primary:bob@example.com,cy@example.org" || !strings.Contains(ch.Reason, "invitation to 2 guests") {
		t.Errorf("check %+v\npreview\n%s\nwant\n%s", ch, ch.Preview, want)
	}
}
