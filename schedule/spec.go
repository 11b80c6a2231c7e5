// Package schedule is when a scheduled run of co happens and who starts it:
// a SPEC as people write it ("weekdays 08:00", "every 2h", "2026-12-01
// 09:30", a systemd OnCalendar expression or a cron line) parsed into one
// calendar, its next run computed, and the entry written for the system's
// own scheduler — a systemd user timer, a crontab line, a launchd agent.
// co runs no daemon of its own. The package imports nothing of ours.
// Where each scheduler's behaviour was read: docs/SOURCES.md#system-schedulers-systemd-cron-launchd.
package schedule

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// set is a set of small integers (minutes 0–59, hours 0–23, days 1–31,
// months 1–12, weekdays 0–6 with 0 Sunday).
type set uint64

func (s set) has(i int) bool { return s&(1<<uint(i)) != 0 }

func (s set) list() []int {
	var out []int
	for x := uint64(s); x != 0; x &= x - 1 {
		out = append(out, bits.TrailingZeros64(x))
	}
	return out
}

// span returns the set of lo..hi.
func span(lo, hi int) set {
	var s set
	for i := lo; i <= hi; i++ {
		s |= 1 << uint(i)
	}
	return s
}

var (
	allMinutes  = span(0, 59)
	allHours    = span(0, 23)
	allDays     = span(1, 31)
	allMonths   = span(1, 12)
	allWeekdays = span(0, 6)
)

// Spec is a parsed SPEC. A calendar spec runs at every minute its fields
// match; an interval spec runs every Every from when it was installed (or
// last ran).
type Spec struct {
	// Text is the SPEC as the user wrote it.
	Text string
	// Form says how Text was read: "weekdays", "weekends", "daily", "days"
	// (a list of weekdays), "hourly", "every" (an interval), "once",
	// "oncalendar" (systemd) or "cron".
	Form string

	minute, hour, dom, month, dow set
	// orDays is cron's rule for a line whose day-of-month and weekday
	// fields are both restricted (neither starts with *): a day matching
	// either runs (crontab(5)). Otherwise a day must match both, as in
	// systemd (docs/SOURCES.md#system-schedulers-systemd-cron-launchd).
	orDays bool
	// cronText is a cron line's five fields as written (lower case), which
	// is what co writes back for cron.
	cronText string
	// year restricts to one year (a once spec, or an OnCalendar date with
	// a year); 0: any.
	year int
	// every is an interval that no calendar can express (every 90m); 0 for
	// calendar specs.
	every time.Duration
}

// Interval returns the interval of an "every 90m"-style spec, or 0 for a
// calendar spec.
func (s *Spec) Interval() time.Duration { return s.every }

// Once reports whether the spec runs once (a date and a time).
func (s *Spec) Once() bool { return s.Form == "once" }

// Examples are the SPEC forms, for messages and help.
const Examples = `"weekdays 08:00", "weekends 10:00", "daily 07:30" (or "every day 07:30"), ` +
	`"mon,wed,fri 9:00", "monday 09:00" (every Monday), "17:00" (every day), "hourly", "every 30m", "every 2h", ` +
	`once: "tomorrow 9am", "today 17:30", "in 2h", "in 30m", "next monday 9am" or a date and time (YYYY-MM-DD HH:MM); ` +
	`a systemd OnCalendar expression ("Mon..Fri *-*-* 08:00") or a cron line ("0 8 * * 1-5")`

// Error is a SPEC that could not be read: what was understood of it, and
// the forms that can be written.
type Error struct {
	Spec       string
	Understood string // what was read, or why it does not work
}

func (e *Error) Error() string {
	return fmt.Sprintf("cannot read the schedule %q: %s. Write one of %s", e.Spec, e.Understood, Examples)
}

// Parse reads a SPEC. The forms, tried in this order: the words people
// write (weekdays, weekends, daily, every day, day names, a time alone,
// hourly, every N m/h, a date and a time), a cron line (five fields, or
// @hourly/@daily/@weekly/@monthly/@yearly), a systemd OnCalendar
// expression. A time alone ("17:00") is every day at that time, as
// OnCalendar reads it (systemd.time(7): "the time alone … means every
// day"). Times are the local time of the machine that runs the scheduler.
func Parse(text string) (*Spec, error) {
	t := strings.Join(strings.Fields(text), " ")
	if t == "" {
		return nil, &Error{Spec: text, Understood: "it is empty"}
	}
	low := normalize(t)
	if once, why, ok := iso(low); ok {
		if why != "" {
			return nil, &Error{Spec: text, Understood: why}
		}
		low = once
	}
	if _, why, ok := relative(low, time.Time{}); ok || why != "" {
		return nil, &Error{Spec: text, Understood: "that is a time said from now, which co schedule add turns into the date and time it means; here write that date and time (YYYY-MM-DD HH:MM) or a repeating time"}
	}
	if s, why := parseWords(low); s != nil {
		s.Text = text
		return s, nil
	} else if why != "" {
		return nil, &Error{Spec: text, Understood: why}
	}
	if s, why, isCron := parseCron(low); isCron {
		if why != "" {
			return nil, &Error{Spec: text, Understood: "read as a cron line (minute hour day-of-month month weekday), " + why}
		}
		s.Text = text
		return s, nil
	}
	s, why := parseOnCalendar(t)
	if why != "" {
		return nil, &Error{Spec: text, Understood: why}
	}
	s.Text = text
	return s, nil
}

// MustParse is Parse for specs known to be good (tests, examples).
func MustParse(text string) *Spec {
	s, err := Parse(text)
	if err != nil {
		panic(err)
	}
	return s
}

// Describe says in words when the spec runs.
func (s *Spec) Describe() string {
	if s.every > 0 {
		return "every " + durationWords(s.every) + " from when it is installed"
	}
	var b strings.Builder
	switch {
	case s.year != 0 && s.minute.list() != nil && len(s.minute.list()) == 1 && len(s.hour.list()) == 1 &&
		len(s.dom.list()) == 1 && len(s.month.list()) == 1:
		return fmt.Sprintf("once, on %04d-%02d-%02d at %02d:%02d", s.year, s.month.list()[0], s.dom.list()[0], s.hour.list()[0], s.minute.list()[0])
	}
	days := s.daysWords()
	times := s.timesWords()
	if days == "every day" && strings.HasPrefix(times, "every ") {
		b.WriteString(times) // "every hour at :00", not "every day every hour"
	} else {
		b.WriteString(days + " " + times)
	}
	if s.year != 0 {
		fmt.Fprintf(&b, " in %d", s.year)
	}
	return b.String()
}

var dayNames = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}

func (s *Spec) daysWords() string {
	var parts []string
	if s.month != allMonths {
		var ms []string
		for _, m := range s.month.list() {
			ms = append(ms, time.Month(m).String()[:3])
		}
		parts = append(parts, "in "+strings.Join(ms, ","))
	}
	dow := ""
	switch s.dow {
	case allWeekdays:
	case span(1, 5):
		dow = "weekdays"
	case 1 | 1<<6:
		dow = "weekends"
	default:
		var ds []string
		for _, d := range s.dow.list() {
			ds = append(ds, dayNames[d])
		}
		dow = strings.Join(ds, ",")
	}
	dom := ""
	if s.dom != allDays {
		var ds []string
		for _, d := range s.dom.list() {
			ds = append(ds, strconv.Itoa(d))
		}
		dom = "on day " + strings.Join(ds, ",") + " of the month"
	}
	switch {
	case dow != "" && dom != "" && s.orDays:
		parts = append([]string{dom + " or " + dow}, parts...)
	case dow != "" && dom != "":
		parts = append([]string{dom + " if a " + dow}, parts...)
	case dow != "":
		parts = append([]string{dow}, parts...)
	case dom != "":
		parts = append([]string{dom}, parts...)
	default:
		parts = append([]string{"every day"}, parts...)
	}
	return strings.Join(parts, " ")
}

func (s *Spec) timesWords() string {
	hs, ms := s.hour.list(), s.minute.list()
	switch {
	case s.hour == allHours && s.minute == allMinutes:
		return "every minute"
	case s.hour == allHours && len(ms) == 1:
		return fmt.Sprintf("every hour at :%02d", ms[0])
	case s.hour == allHours:
		var mw []string
		for _, m := range ms {
			mw = append(mw, fmt.Sprintf(":%02d", m))
		}
		return "every hour at " + strings.Join(mw, ", ")
	case len(hs)*len(ms) <= 24:
		var ts []string
		for _, h := range hs {
			for _, m := range ms {
				ts = append(ts, fmt.Sprintf("%02d:%02d", h, m))
			}
		}
		return "at " + strings.Join(ts, ", ")
	}
	var hw, mw []string
	for _, h := range hs {
		hw = append(hw, strconv.Itoa(h))
	}
	for _, m := range ms {
		mw = append(mw, fmt.Sprintf("%02d", m))
	}
	return "at minutes " + strings.Join(mw, ",") + " of hours " + strings.Join(hw, ",")
}

func durationWords(d time.Duration) string {
	if d%time.Hour == 0 {
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return strconv.Itoa(int(d/time.Minute)) + "m"
}

// dayMatches reports whether the calendar runs on the day of t.
func (s *Spec) dayMatches(t time.Time) bool {
	if s.year != 0 && t.Year() != s.year {
		return false
	}
	if !s.month.has(int(t.Month())) {
		return false
	}
	domOK, dowOK := s.dom.has(t.Day()), s.dow.has(int(t.Weekday()))
	if s.orDays {
		return domOK || dowOK
	}
	return domOK && dowOK
}

// Next returns the first run strictly after now, in now's location (the
// machine's local time: the scheduler's), and false when there is none
// (a once spec in the past). An interval spec's runs are counted from
// anchor (when it was installed, or last ran); a zero anchor means now.
func (s *Spec) Next(now, anchor time.Time) (time.Time, bool) {
	if s.every > 0 {
		if anchor.IsZero() || anchor.After(now) {
			return now.Add(s.every).Truncate(time.Second), true
		}
		n := now.Sub(anchor)/s.every + 1
		return anchor.Add(n * s.every), true
	}
	loc := now.Location()
	start := now.Truncate(time.Minute)
	y, m, d := start.Date()
	// Long enough for Feb 29 on a given weekday (28 years) and a once date.
	limit := 366 * 30
	if s.year != 0 {
		if s.year < y {
			return time.Time{}, false
		}
		limit = 366 * (s.year - y + 1)
	}
	hours, minutes := s.hour.list(), s.minute.list()
	for i := 0; i <= limit; i++ {
		day := time.Date(y, m, d+i, 12, 0, 0, 0, loc)
		if !s.dayMatches(day) {
			continue
		}
		for _, h := range hours {
			for _, mi := range minutes {
				t := time.Date(day.Year(), day.Month(), day.Day(), h, mi, 0, 0, loc)
				if t.Hour() != h || t.Minute() != mi || t.Day() != day.Day() {
					continue // a time the clock skips (daylight saving)
				}
				if t.After(now) {
					return t, true
				}
			}
		}
	}
	return time.Time{}, false
}
