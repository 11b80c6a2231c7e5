package google

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"slices"
	"strings"
	"time"
	"unicode"

	calendar "google.golang.org/api/calendar/v3"
	"google.golang.org/api/googleapi"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/tools"
)

// Limits of a new event.
const (
	maxEventTitle       = 500
	maxEventLocation    = 500
	maxEventDescription = 64 << 10
	maxEventGuests      = 100
	maxEventSpan        = 366 * 24 * time.Hour
)

// NewEvent is a calendar event to create, validated: what
// create_calendar_event sends.
type NewEvent struct {
	Calendar                     string
	Title, Description, Location string
	// An all-day event has StartDate and EndDate ("2006-01-02", the end
	// exclusive, as Calendar counts it); a timed one Start and End.
	AllDay             bool
	StartDate, EndDate string
	Start, End         time.Time
	// Guests are the attendees' addresses, lower-cased, without repeats,
	// in the order given.
	Guests []*mail.Address
}

type eventArgs struct {
	Title       string   `json:"title"`
	Start       string   `json:"start"`
	End         string   `json:"end"`
	Description string   `json:"description"`
	Location    string   `json:"location"`
	Attendees   []string `json:"attendees"`
	Calendar    string   `json:"calendar"`
}

// ParseEvent validates the arguments of create_calendar_event. Its errors
// are *tools.Retry errors that say what to fix. Check and Run both use it,
// so the event shown for approval is the one created.
func ParseEvent(raw json.RawMessage) (*NewEvent, error) {
	var a eventArgs
	if err := tools.Decode(NameCreateCalendarEvent, raw, &a); err != nil {
		return nil, err
	}
	ev := &NewEvent{
		Calendar:    strings.TrimSpace(a.Calendar),
		Title:       strings.TrimSpace(a.Title),
		Description: strings.ReplaceAll(strings.ReplaceAll(a.Description, "\r\n", "\n"), "\r", "\n"),
		Location:    strings.TrimSpace(a.Location),
	}
	if ev.Calendar == "" {
		ev.Calendar = "primary"
	}
	switch {
	case strings.ContainsFunc(ev.Calendar, unicode.IsControl) || strings.ContainsAny(ev.Calendar, "/ ") || len(ev.Calendar) > 255:
		return nil, tools.Retryf("calendar %q is not a calendar id: leave it out for the primary calendar, or give an id such as team@group.calendar.google.com", a.Calendar)
	case ev.Title == "":
		return nil, tools.Retryf("title is empty: give the event a title")
	case strings.ContainsAny(ev.Title, "\r\n"):
		return nil, tools.Retryf("title must be one line")
	case len([]rune(ev.Title)) > maxEventTitle:
		return nil, tools.Retryf("title is longer than %d characters", maxEventTitle)
	case strings.ContainsAny(ev.Location, "\r\n") || len([]rune(ev.Location)) > maxEventLocation:
		return nil, tools.Retryf("location must be one line of at most %d characters", maxEventLocation)
	case len(ev.Description) > maxEventDescription:
		return nil, tools.Retryf("description is longer than %d KB", maxEventDescription>>10)
	}
	if err := ev.parseTimes(strings.TrimSpace(a.Start), strings.TrimSpace(a.End)); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, s := range a.Attendees {
		list, err := parseAddresses("attendees", s)
		if err != nil {
			return nil, err
		}
		if len(list) != 1 {
			return nil, tools.Retryf("attendees %q: give one email address per item of the list", s)
		}
		addr := list[0]
		addr.Address = strings.ToLower(addr.Address)
		if !seen[addr.Address] {
			seen[addr.Address] = true
			ev.Guests = append(ev.Guests, addr)
		}
	}
	if len(ev.Guests) > maxEventGuests {
		return nil, tools.Retryf("%d attendees is more than %d", len(ev.Guests), maxEventGuests)
	}
	return ev, nil
}

// parseTimes reads start and end: both dates (an all-day event) or both
// RFC 3339 times with an offset.
func (ev *NewEvent) parseTimes(start, end string) error {
	const day = "2006-01-02"
	if start == "" || end == "" {
		return tools.Retryf("start and end are both needed: RFC 3339 times with an offset (2026-12-08T10:00:00+01:00) or, for an all-day event, dates (2026-12-08)")
	}
	sd, errSD := time.Parse(day, start)
	ed, errED := time.Parse(day, end)
	if errSD == nil || errED == nil {
		if errSD != nil || errED != nil {
			return tools.Retryf("start %q and end %q mix a date and a time: give two dates for an all-day event, or two RFC 3339 times", start, end)
		}
		if !ed.After(sd) {
			return tools.Retryf("end %s is not after start %s: for an all-day event end is the day after the last day (end %s for one day on %s)", end, start, sd.AddDate(0, 0, 1).Format(day), start)
		}
		if ed.Sub(sd) > maxEventSpan {
			return tools.Retryf("the event spans more than a year; check start and end")
		}
		ev.AllDay, ev.StartDate, ev.EndDate = true, start, end
		return nil
	}
	st, err := time.Parse(time.RFC3339, start)
	if err != nil {
		return tools.Retryf("start %q is neither an RFC 3339 time with an offset (2026-12-08T10:00:00+01:00, or Z for UTC) nor a date (2026-12-08)", start)
	}
	et, err := time.Parse(time.RFC3339, end)
	if err != nil {
		return tools.Retryf("end %q is neither an RFC 3339 time with an offset (2026-12-08T11:00:00+01:00, or Z for UTC) nor a date (2026-12-08)", end)
	}
	if !et.After(st) {
		return tools.Retryf("end %s is not after start %s", end, start)
	}
	if et.Sub(st) > maxEventSpan {
		return tools.Retryf("the event spans more than a year; check start and end")
	}
	ev.Start, ev.End = st, et
	return nil
}

// guests are the attendees' addresses.
func (ev *NewEvent) guests() []string {
	out := make([]string, len(ev.Guests))
	for i, g := range ev.Guests {
		out[i] = g.Address
	}
	return out
}

// body is the event as events.insert takes it.
func (ev *NewEvent) body() *calendar.Event {
	e := &calendar.Event{Summary: ev.Title, Description: ev.Description, Location: ev.Location}
	if ev.AllDay {
		e.Start, e.End = &calendar.EventDateTime{Date: ev.StartDate}, &calendar.EventDateTime{Date: ev.EndDate}
	} else {
		e.Start = &calendar.EventDateTime{DateTime: ev.Start.Format(time.RFC3339)}
		e.End = &calendar.EventDateTime{DateTime: ev.End.Format(time.RFC3339)}
	}
	for _, g := range ev.Guests {
		e.Attendees = append(e.Attendees, &calendar.EventAttendee{Email: g.Address, DisplayName: g.Name})
	}
	return e
}

// sendUpdates is events.insert's sendUpdates: "all" when there are
// guests, so Google emails them the invitation as the web UI does; "none"
// otherwise.
func (ev *NewEvent) sendUpdates() string {
	if len(ev.Guests) > 0 {
		return "all"
	}
	return "none"
}

// When is the event's time as the user reads it: the days with their
// year, the times in the offset they were given in.
func (ev *NewEvent) When() string {
	b := ev.body()
	if ev.AllDay {
		return when(b, time.UTC, time.Time{})
	}
	return when(b, ev.Start.Location(), time.Time{}) + " (" + offsetName(ev.Start) + ")"
}

// offsetName is t's offset from UTC as "UTC+01:00" ("UTC" for zero).
func offsetName(t time.Time) string {
	if _, off := t.Zone(); off == 0 {
		return "UTC"
	}
	return "UTC" + t.Format("-07:00")
}

// Preview is the event as the user reads it before it is created.
func (ev *NewEvent) Preview() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Title: %s\nWhen: %s\n", ev.Title, ev.When())
	if ev.Location != "" {
		fmt.Fprintf(&b, "Where: %s\n", ev.Location)
	}
	if len(ev.Guests) > 0 {
		var names []string
		for _, g := range ev.Guests {
			if g.Name != "" {
				names = append(names, g.Name+" <"+g.Address+">")
			} else {
				names = append(names, g.Address)
			}
		}
		fmt.Fprintf(&b, "Guests: %s (Google emails each an invitation)\n", strings.Join(names, ", "))
	}
	if ev.Calendar != "primary" {
		fmt.Fprintf(&b, "Calendar: %s\n", ev.Calendar)
	}
	if ev.Description != "" {
		fmt.Fprintf(&b, "\n%s", ev.Description)
	}
	return strings.TrimRight(b.String(), "\n")
}

// outbound is what creating ev sends to others: an invitation to its
// guests, or an event in a calendar other than the user's primary one
// (which others may see). nil for an event in the primary calendar
// without guests.
func (ev *NewEvent) outbound() *tools.Outbound {
	if len(ev.Guests) == 0 && ev.Calendar == "primary" {
		return nil
	}
	to := "calendar invitation to " + strings.Join(ev.guests(), ", ")
	if len(ev.Guests) == 0 {
		to = "calendar event in " + ev.Calendar
	}
	what := ev.Title
	if ev.Location != "" {
		what += " at " + ev.Location
	}
	var lines []string
	for _, l := range strings.Split(ev.Description, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
		if len(lines) == 3 {
			break
		}
	}
	if len(lines) > 0 {
		what += ": " + strings.Join(lines, " / ")
	}
	return &tools.Outbound{To: to, What: shorten(what, 300)}
}

// CreateCalendarEvent is create_calendar_event. It asks the user, showing
// the event; grants are per calendar and set of guests.
type CreateCalendarEvent struct{ a *Account }

// NewCreateCalendarEvent makes create_calendar_event over a.
func NewCreateCalendarEvent(a *Account) *CreateCalendarEvent { return &CreateCalendarEvent{a: a} }

func (t *CreateCalendarEvent) Name() string { return NameCreateCalendarEvent }

func (t *CreateCalendarEvent) Description() string {
	return "Create an event in the user's Google Calendar (the primary calendar unless calendar is given). The user sees the event and approves it first. " +
		"start and end are RFC 3339 times with an offset (2026-12-08T10:00:00+01:00), or dates (2026-12-08) for an all-day event, whose end is the day after its last day. " +
		"Attendees are email addresses; Google emails each an invitation. Returns the event's id and link."
}

func (t *CreateCalendarEvent) Schema() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
		`"title":{"type":"string","description":"One line."},`+
		`"start":{"type":"string","description":"RFC 3339 time with offset, or a date (YYYY-MM-DD) for an all-day event."},`+
		`"end":{"type":"string","description":"RFC 3339 time with offset, or for an all-day event the date after its last day."},`+
		`"description":{"type":"string","description":"Plain text (optional)."},`+
		`"location":{"type":"string","description":"One line (optional)."},`+
		`"attendees":{"type":"array","items":{"type":"string"},"maxItems":%d,"description":"Guests' email addresses (optional); each gets an invitation."},`+
		`"calendar":{"type":"string","description":"Calendar id (optional, default primary)."}`+
		`},"required":["title","start","end"],"additionalProperties":false}`, maxEventGuests))
}

func (t *CreateCalendarEvent) Class() tools.Class { return tools.SideEffect }

// Check asks, with the event as preview. An event that fails validation
// is not shown for approval: Run refuses it before any network call.
func (t *CreateCalendarEvent) Check(_ context.Context, raw json.RawMessage) tools.Check {
	ev, err := ParseEvent(raw)
	if err != nil {
		return tools.Check{Decision: tools.Allow, Reason: "invalid event, nothing reaches Google: " + err.Error()}
	}
	reason := "creates an event in your Google Calendar"
	label := "calendar events without guests"
	if n := len(ev.Guests); n > 0 {
		reason += fmt.Sprintf(" and emails an invitation to %d guest", n)
		if n > 1 {
			reason += "s"
		}
		label = "calendar events with " + strings.Join(ev.guests(), ", ")
	}
	if ev.Calendar != "primary" {
		label += " in " + ev.Calendar
	}
	return tools.Check{
		Decision:   tools.Ask,
		Reason:     reason,
		Scope:      NameCreateCalendarEvent + ":" + ev.Calendar + ":" + strings.Join(slices.Sorted(slices.Values(ev.guests())), ","),
		ScopeLabel: label,
		Preview:    ev.Preview(),
		// An invitation is the model's words in the guests' inboxes, sent
		// under the user's name.
		Outbound: ev.outbound(),
	}
}

func (t *CreateCalendarEvent) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	ev, err := ParseEvent(raw)
	if err != nil {
		return tools.Result{}, err
	}
	what := "the calendar " + ev.Calendar
	srv, err := t.a.Calendar(ctx)
	if err != nil {
		return tools.Result{}, t.a.explain(svcCalendar, what, err)
	}
	// events.insert: sendUpdates "all" emails the guests, as the web UI
	// asks to (docs/SOURCES.md#calendar-creating-events).
	created, err := srv.Events.Insert(ev.Calendar, ev.body()).SendUpdates(ev.sendUpdates()).Context(ctx).Do()
	if err != nil {
		return tools.Result{}, t.a.insertError(what, err)
	}
	// The guests as Google recorded them: the user's own address (self)
	// and rooms are no one to tell of a cancellation.
	var guests []string
	for _, g := range created.Attendees {
		if !g.Self && !g.Resource && g.Email != "" {
			guests = append(guests, strings.ToLower(g.Email))
		}
	}
	if created.Attendees == nil {
		guests = ev.guests()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Created the event %q, %s", ev.Title, ev.When())
	if ev.Calendar != "primary" {
		fmt.Fprintf(&b, ", in the calendar %s", ev.Calendar)
	}
	b.WriteString(".")
	if len(guests) > 0 {
		fmt.Fprintf(&b, " Google emailed an invitation to %s.", strings.Join(guests, ", "))
	}
	if created.HtmlLink != "" {
		fmt.Fprintf(&b, " Link: %s", created.HtmlLink)
	}
	if _, err := journal.RecordIn(ctx, journal.EventCreated(0, t.Name(), ev.Calendar, created.Id, ev.Title, guests)); err != nil {
		fmt.Fprintf(&b, "\n(co could not note the event in this session's journal, so undo cannot take it back: %v)", err)
	}
	return tools.Result{Display: b.String(),
		Meta: map[string]any{"id": created.Id, "link": created.HtmlLink, "calendar": ev.Calendar}}, nil
}

// insertError explains a failed events.insert. A sign-in from before co
// could create events holds calendar.readonly only, and Google answers 403
// insufficientPermissions (ACCESS_TOKEN_SCOPE_INSUFFICIENT in details).
func (a *Account) insertError(what string, err error) error {
	var ge *googleapi.Error
	if errors.As(err, &ge) && ge.Code == http.StatusForbidden &&
		hasReason(errorReasons(ge), "insufficientPermissions", "ACCESS_TOKEN_SCOPE_INSUFFICIENT", "insufficientScopes") {
		return fmt.Errorf("the Google sign-in lets co read the calendar but not create events (403: %s): %s, and allow co to create calendar events (%s) on Google's consent screen",
			ge.Message, a.signInAgain(), ScopeCalendarEvents)
	}
	return a.explain(svcCalendar, what, err)
}
