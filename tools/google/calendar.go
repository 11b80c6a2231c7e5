package google

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	calendar "google.golang.org/api/calendar/v3"

	"github.com/co-cli/co/tools"
)

// Bounds of the calendar tools' arguments.
const (
	defaultEvents = 25
	maxEvents     = 100
	maxDays       = 366
	maxAttendees  = 8
)

// ListCalendarEvents is list_calendar_events.
type ListCalendarEvents struct{ a *Account }

// NewListCalendarEvents makes list_calendar_events over a.
func NewListCalendarEvents(a *Account) *ListCalendarEvents { return &ListCalendarEvents{a: a} }

func (t *ListCalendarEvents) Name() string { return NameListCalendarEvents }

func (t *ListCalendarEvents) Description() string {
	return "List the events of the user's primary Google Calendar, from the start of the day days_back days ago to the end of the day days_ahead days ahead (default: today and tomorrow). " +
		"Shows title, start and end in the user's time zone, all-day events, location, attendees, Meet link and event link."
}

func (t *ListCalendarEvents) Schema() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
		`"days_back":{"type":"integer","minimum":0,"maximum":%[1]d,"description":"Days before today to include (default 0)."},`+
		`"days_ahead":{"type":"integer","minimum":0,"maximum":%[1]d,"description":"Days after today to include (default 1: today and tomorrow)."},`+
		`"max_results":{"type":"integer","minimum":1,"maximum":%[2]d,"description":"At most this many events (default %[3]d)."}`+
		`},"additionalProperties":false}`, maxDays, maxEvents, defaultEvents))
}

func (t *ListCalendarEvents) Class() tools.Class { return tools.ReadOnly }

func (t *ListCalendarEvents) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	a := struct {
		DaysBack   int `json:"days_back"`
		DaysAhead  int `json:"days_ahead"`
		MaxResults int `json:"max_results"`
	}{DaysBack: 0, DaysAhead: 1}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	return listEvents(ctx, t.a, "", a.DaysBack, a.DaysAhead, a.MaxResults)
}

// SearchCalendarEvents is search_calendar_events.
type SearchCalendarEvents struct{ a *Account }

// NewSearchCalendarEvents makes search_calendar_events over a.
func NewSearchCalendarEvents(a *Account) *SearchCalendarEvents {
	return &SearchCalendarEvents{a: a}
}

func (t *SearchCalendarEvents) Name() string { return NameSearchCalendarEvents }

func (t *SearchCalendarEvents) Description() string {
	return "Search the user's primary Google Calendar for events whose title, description, location or attendees match the query, from days_back days ago (default 30) to days_ahead days ahead (default 30). Same details as list_calendar_events."
}

func (t *SearchCalendarEvents) Schema() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
		`"query":{"type":"string","description":"Free text to look for."},`+
		`"days_back":{"type":"integer","minimum":0,"maximum":%[1]d,"description":"Days before today to include (default 30)."},`+
		`"days_ahead":{"type":"integer","minimum":0,"maximum":%[1]d,"description":"Days after today to include (default 30)."},`+
		`"max_results":{"type":"integer","minimum":1,"maximum":%[2]d,"description":"At most this many events (default %[3]d)."}`+
		`},"required":["query"],"additionalProperties":false}`, maxDays, maxEvents, defaultEvents))
}

func (t *SearchCalendarEvents) Class() tools.Class { return tools.ReadOnly }

func (t *SearchCalendarEvents) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	a := struct {
		Query      string `json:"query"`
		DaysBack   int    `json:"days_back"`
		DaysAhead  int    `json:"days_ahead"`
		MaxResults int    `json:"max_results"`
	}{DaysBack: 30, DaysAhead: 30}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	q := strings.TrimSpace(a.Query)
	if q == "" {
		return tools.Result{}, tools.Retryf("query is empty: give words to look for in events")
	}
	return listEvents(ctx, t.a, q, a.DaysBack, a.DaysAhead, a.MaxResults)
}

// calendarZone is the time zone of the primary calendar, asked once per
// session; the user's zone when Google does not say.
func (a *Account) calendarZone(ctx context.Context, srv *calendar.Service) *time.Location {
	a.mu.Lock()
	known := a.calZone
	a.mu.Unlock()
	if known != nil {
		return known
	}
	if c, err := srv.CalendarList.Get("primary").Fields("timeZone").Context(ctx).Do(); err == nil {
		a.setCalendarZone(c.TimeZone)
	}
	return a.zone()
}

func listEvents(ctx context.Context, acct *Account, query string, back, ahead, n int) (tools.Result, error) {
	if back < 0 || ahead < 0 || back > maxDays || ahead > maxDays {
		return tools.Result{}, tools.Retryf("days_back and days_ahead must be between 0 and %d", maxDays)
	}
	n = tools.Clamp(n, defaultEvents, maxEvents)
	what := "the calendar"
	if query != "" {
		what = fmt.Sprintf("the calendar search %q", query)
	}
	srv, err := acct.Calendar(ctx)
	if err != nil {
		return tools.Result{}, acct.explain(svcCalendar, what, err)
	}
	loc := acct.calendarZone(ctx, srv)
	now := acct.cfg.now().In(loc)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	from, to := today.AddDate(0, 0, -back), today.AddDate(0, 0, ahead+1)

	call := srv.Events.List("primary").Context(ctx).
		SingleEvents(true).OrderBy("startTime").MaxResults(int64(n)).
		TimeMin(from.Format(time.RFC3339)).TimeMax(to.Format(time.RFC3339))
	if query != "" {
		call = call.Q(query)
	}
	res, err := call.Do()
	if err != nil {
		return tools.Result{}, acct.explain(svcCalendar, what, err)
	}
	span := fmt.Sprintf("%s to %s", from.Format("Mon 2 Jan 2006"), to.AddDate(0, 0, -1).Format("Mon 2 Jan 2006"))
	if back == 0 && ahead == 0 {
		span = "today, " + from.Format("Mon 2 Jan 2006")
	}
	var events []*calendar.Event
	for _, e := range res.Items {
		if e.Status != "cancelled" {
			events = append(events, e)
		}
	}
	if len(events) == 0 {
		msg := fmt.Sprintf("No events from %s.", span)
		if query != "" {
			msg = fmt.Sprintf("No events match %q from %s.", query, span)
		}
		return tools.Result{Display: msg, Meta: map[string]any{"count": 0}}, nil
	}
	var b strings.Builder
	if query != "" {
		fmt.Fprintf(&b, "Events matching %q from %s (times in %s):\n", query, span, zoneName(loc))
	} else {
		fmt.Fprintf(&b, "Events from %s (times in %s):\n", span, zoneName(loc))
	}
	for i, e := range events {
		writeEvent(&b, i+1, e, loc, now)
	}
	if res.NextPageToken != "" {
		fmt.Fprintf(&b, "There are more events in this window: narrow it or raise max_results (at most %d).\n", maxEvents)
	}
	return tools.Result{Display: strings.TrimRight(b.String(), "\n"), Meta: map[string]any{"count": len(events)},
		Origins: eventOrigins(events)}, nil
}

func zoneName(loc *time.Location) string {
	if loc == time.Local {
		name, _ := time.Now().Zone()
		return "local time, " + name
	}
	return loc.String()
}

func writeEvent(b *strings.Builder, n int, e *calendar.Event, loc *time.Location, now time.Time) {
	title := e.Summary
	if title == "" {
		title = "(no title)"
	}
	fmt.Fprintf(b, "%d. %s\n", n, title)
	fmt.Fprintf(b, "   %s\n", when(e, loc, now))
	if e.Location != "" {
		fmt.Fprintf(b, "   Location: %s\n", e.Location)
	}
	if a := attendees(e); a != "" {
		fmt.Fprintf(b, "   Attendees: %s\n", a)
	}
	if m := meetLink(e); m != "" {
		fmt.Fprintf(b, "   Meet: %s\n", m)
	}
	if e.HtmlLink != "" {
		fmt.Fprintf(b, "   %s\n", e.HtmlLink)
	}
}

// when is the event's start and end in loc. All-day events carry dates
// (the end date exclusive), which belong to no time zone.
func when(e *calendar.Event, loc *time.Location, now time.Time) string {
	if e.Start == nil {
		return "(no time)"
	}
	day := func(t time.Time) string {
		if t.Year() != now.Year() {
			return t.Format("Mon 2 Jan 2006")
		}
		return t.Format("Mon 2 Jan")
	}
	if e.Start.Date != "" {
		start, err := time.ParseInLocation("2006-01-02", e.Start.Date, loc)
		if err != nil {
			return e.Start.Date + " (all day)"
		}
		last := start
		if e.End != nil && e.End.Date != "" {
			if end, err := time.ParseInLocation("2006-01-02", e.End.Date, loc); err == nil && end.After(start) {
				last = end.AddDate(0, 0, -1)
			}
		}
		if last.Equal(start) {
			return day(start) + " (all day)"
		}
		return day(start) + " – " + day(last) + " (all day)"
	}
	start, err := time.Parse(time.RFC3339, e.Start.DateTime)
	if err != nil {
		return e.Start.DateTime
	}
	start = start.In(loc)
	if e.End == nil || e.End.DateTime == "" {
		return day(start) + " " + start.Format("15:04")
	}
	end, err := time.Parse(time.RFC3339, e.End.DateTime)
	if err != nil {
		return day(start) + " " + start.Format("15:04")
	}
	end = end.In(loc)
	if end.Year() == start.Year() && end.YearDay() == start.YearDay() {
		return day(start) + " " + start.Format("15:04") + "–" + end.Format("15:04")
	}
	return day(start) + " " + start.Format("15:04") + " – " + day(end) + " " + end.Format("15:04")
}

func attendees(e *calendar.Event) string {
	var names []string
	for _, a := range e.Attendees {
		if a.Resource {
			continue
		}
		n := a.DisplayName
		if n == "" {
			n = a.Email
		}
		switch {
		case a.Self && a.ResponseStatus == "declined":
			n += " (you, declined)"
		case a.Self:
			n += " (you)"
		case a.Organizer:
			n += " (organizer)"
		case a.ResponseStatus == "declined":
			n += " (declined)"
		}
		names = append(names, n)
	}
	if len(names) > maxAttendees {
		return strings.Join(names[:maxAttendees], ", ") + fmt.Sprintf(" (+%d more)", len(names)-maxAttendees)
	}
	return strings.Join(names, ", ")
}

func meetLink(e *calendar.Event) string {
	if e.HangoutLink != "" {
		return e.HangoutLink
	}
	if e.ConferenceData != nil {
		for _, p := range e.ConferenceData.EntryPoints {
			if p.EntryPointType == "video" && p.Uri != "" {
				return p.Uri
			}
		}
	}
	return ""
}
