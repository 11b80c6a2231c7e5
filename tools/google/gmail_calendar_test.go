package google_test

import (
	"strings"
	"testing"
	"time"

	calendar "google.golang.org/api/calendar/v3"

	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/google"
	"github.com/co-cli/co/tools/google/googlefake"
)

func TestListAndSearchEmails(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.AddMessages(
		googlefake.Message{ID: "m1", From: "Bob <bob@example.com>", Subject: "Budget", Snippet: "It&#39;s ready &amp; signed",
			Date: time.Date(2024, 5, 6, 7, 30, 0, 0, time.UTC)},
		googlefake.Message{ID: "m2", From: "ada@example.com", Subject: "", Snippet: "no subject here",
			Date: time.Date(2024, 5, 5, 7, 30, 0, 0, time.UTC)},
		googlefake.Message{ID: "m3", From: "Carol <carol@example.com>", Subject: "Old news", Snippet: "x",
			Date: time.Date(2024, 5, 1, 7, 30, 0, 0, time.UTC)},
		googlefake.Message{ID: "m4", From: "Bob <bob@example.com>", Subject: "Archived", Snippet: "from the archive",
			Date: time.Date(2024, 4, 1, 7, 30, 0, 0, time.UTC), Labels: []string{"CATEGORY_UPDATES"}},
	)
	res := f.mustRun(t, google.NameListEmails, `{"max_results":2}`)
	want := "The 2 newest emails in the inbox:\n" +
		"1. Budget\n   From: Bob <bob@example.com> · Mon 6 May 2024 09:30\n   It's ready & signed\n   https://mail.google.com/mail/?authuser=ada%40example.com#all/m1\n" +
		"2. (no subject)\n   From: ada@example.com · Sun 5 May 2024 09:30\n   no subject here\n   https://mail.google.com/mail/?authuser=ada%40example.com#all/m2"
	if res.Display != want || res.Meta["count"] != 2 {
		t.Errorf("list_emails = %v\n%s\nwant\n%s", res.Meta, res.Display, want)
	}
	res = f.mustRun(t, google.NameSearchEmails, `{"query":"from:bob"}`)
	if res.Meta["count"] != 2 || !strings.Contains(res.Display, `2 emails matching "from:bob":`) || !strings.Contains(res.Display, "Archived") {
		t.Errorf("search_emails = %v\n%s", res.Meta, res.Display)
	}
	var q string
	for _, r := range f.srv.Requests() {
		if r.Path == "/gmail/v1/users/me/messages" {
			q = r.Query.Get("q")
		}
	}
	if q != "from:bob" {
		t.Errorf("Gmail got q=%q", q)
	}
	res = f.mustRun(t, google.NameSearchEmails, `{"query":"zebra"}`)
	if res.Meta["count"] != 0 || res.Display != `No emails match "zebra".` {
		t.Errorf("no match = %v %q", res.Meta, res.Display)
	}
	if _, err := f.run(t, google.NameSearchEmails, `{"query":""}`); !tools.IsRetry(err) {
		t.Errorf("empty query: %v", err)
	}
}

func calendarFixture(t *testing.T) *fixture {
	now := time.Date(2024, 5, 6, 10, 0, 0, 0, time.UTC) // 06:00 in New York, 19:00 in Tokyo
	f := newFixture(t, func(c *google.Config) {
		c.Location = mustZone(t, "Asia/Tokyo")
		c.Now = func() time.Time { return now }
	})
	f.srv.SetCalendarZone("America/New_York")
	utc := func(d, h, m int) time.Time { return time.Date(2024, 5, d, h, m, 0, 0, time.UTC) }
	f.srv.AddEvents(
		googlefake.Event{ID: "early", Summary: "Yesterday late (NY)", Start: utc(6, 3, 0), End: utc(6, 3, 30)},
		googlefake.Event{ID: "standup", Summary: "Standup", Start: utc(6, 13, 0), End: utc(6, 13, 15),
			Location: "Room 1", HangoutLink: "https://meet.google.com/abc-defg-hij",
			Attendees: []*calendar.EventAttendee{
				{Email: "ada@example.com", Self: true, ResponseStatus: "accepted"},
				{Email: "bob@example.com", DisplayName: "Bob", Organizer: true},
				{Email: "carol@example.com", ResponseStatus: "declined"},
				{Email: "room@resource.example", Resource: true},
			}},
		googlefake.Event{ID: "conf", Summary: "Conference", StartDate: "2024-05-06", EndDate: "2024-05-09"},
		googlefake.Event{ID: "offsite", Summary: "Offsite", StartDate: "2024-05-07", EndDate: "2024-05-08", Description: "team offsite"},
		googlefake.Event{ID: "midnight", Summary: "Across midnight", Start: utc(7, 3, 30), End: utc(7, 5, 0)},
		googlefake.Event{ID: "late", Summary: "Late call", Start: utc(8, 2, 0), End: utc(8, 3, 30)},
		googlefake.Event{ID: "after", Summary: "Day after tomorrow", Start: utc(8, 14, 0), End: utc(8, 15, 0)},
		googlefake.Event{ID: "gone", Summary: "Cancelled", Start: utc(6, 15, 0), End: utc(6, 16, 0), Status: "cancelled"},
	)
	return f
}

func TestCalendarEventsInTheCalendarsZone(t *testing.T) {
	f := calendarFixture(t)
	res := f.mustRun(t, google.NameListCalendarEvents, `{}`)
	want := "Events from Mon 6 May 2024 to Tue 7 May 2024 (times in America/New_York):\n" +
		"1. Conference\n   Mon 6 May – Wed 8 May (all day)\n   https://calendar.example/event?eid=conf\n" +
		"2. Standup\n   Mon 6 May 09:00–09:15\n   Location: Room 1\n   Attendees: ada@example.com (you), Bob (organizer), carol@example.com (declined)\n" +
		"   Meet: https://meet.google.com/abc-defg-hij\n   https://calendar.example/event?eid=standup\n" +
		"3. Across midnight\n   Mon 6 May 23:30 – Tue 7 May 01:00\n   https://calendar.example/event?eid=midnight\n" +
		"4. Offsite\n   Tue 7 May (all day)\n   https://calendar.example/event?eid=offsite\n" +
		"5. Late call\n   Tue 7 May 22:00–23:30\n   https://calendar.example/event?eid=late"
	if res.Display != want || res.Meta["count"] != 5 {
		t.Errorf("list_calendar_events = %v\n%s\nwant\n%s", res.Meta, res.Display, want)
	}
	var min, max string
	for _, r := range f.srv.Requests() {
		if r.Path == "/calendar/v3/calendars/primary/events" {
			min, max = r.Query.Get("timeMin"), r.Query.Get("timeMax")
			if r.Query.Get("singleEvents") != "true" || r.Query.Get("orderBy") != "startTime" {
				t.Errorf("query = %v", r.Query)
			}
		}
	}
	if min != "2024-05-06T00:00:00-04:00" || max != "2024-05-08T00:00:00-04:00" {
		t.Errorf("window = %s .. %s", min, max)
	}

	res = f.mustRun(t, google.NameListCalendarEvents, `{"days_back":1,"days_ahead":0,"max_results":50}`)
	if !strings.HasPrefix(res.Display, "Events from Sun 5 May 2024 to Mon 6 May 2024") || !strings.Contains(res.Display, "Yesterday late (NY)\n   Sun 5 May 23:00–23:30") {
		t.Errorf("days_back=1:\n%s", res.Display)
	}
	res = f.mustRun(t, google.NameSearchCalendarEvents, `{"query":"offsite"}`)
	if res.Meta["count"] != 1 || !strings.HasPrefix(res.Display, `Events matching "offsite" from Sat 6 Apr 2024 to Wed 5 Jun 2024 (times in America/New_York):`) {
		t.Errorf("search = %v\n%s", res.Meta, res.Display)
	}
	res = f.mustRun(t, google.NameSearchCalendarEvents, `{"query":"nothing","days_back":0,"days_ahead":0}`)
	if res.Meta["count"] != 0 || res.Display != `No events match "nothing" from today, Mon 6 May 2024.` {
		t.Errorf("no match = %v %q", res.Meta, res.Display)
	}
}

func TestCalendarFallsBackToTheUsersZone(t *testing.T) {
	f := calendarFixture(t)
	f.srv.Fail("calendarList", 500, "backendError", "", 1)
	res := f.mustRun(t, google.NameListCalendarEvents, `{"days_ahead":0}`)
	// Today in Tokyo is 6 May; "early" is 12:00 there.
	if !strings.HasPrefix(res.Display, "Events from today, Mon 6 May 2024 (times in Asia/Tokyo):") ||
		!strings.Contains(res.Display, "Yesterday late (NY)\n   Mon 6 May 12:00–12:30") ||
		!strings.Contains(res.Display, "Conference\n   Mon 6 May – Wed 8 May (all day)") {
		t.Errorf("fallback:\n%s", res.Display)
	}
}
