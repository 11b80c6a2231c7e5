package schedule

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// OnceLayout is how a once SPEC's date and time are written, and what a
// time said from now ("tomorrow 9am") becomes.
const OnceLayout = "2006-01-02 15:04"

var (
	inRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^in (\d+) ?(m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days)$`)
	})
	ampmRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(\d{1,2}(?::\d{2})?) (am|pm)\b`) })
	isoRe  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\d{4}-\d{1,2}-\d{1,2})t(\d{1,2}:\d{2})(?::(\d{2}))?$`)
	})
)

// ParseAt reads a SPEC as Parse does, on the clock now (in the zone the
// scheduler reads times in), and also the one-off times people say from
// now: "today 17:30", "tomorrow 9am" (or "9am tomorrow"), "tonight 21:00",
// "in 2h", "in 30m", "in 3 days", "next monday 9am" (the first Monday
// after today). Such a time becomes a once Spec whose Text is the date and time it means, in
// OnceLayout: what is saved and installed never changes meaning later. A
// once SPEC that has passed (a date, or "today 9am" at ten) is an error
// that says so.
func ParseAt(text string, now time.Time) (*Spec, error) {
	when, why, ok := relative(normalize(text), now)
	if why != "" {
		return nil, &Error{Spec: text, Understood: why}
	}
	if ok {
		if !when.After(now) {
			return nil, passed(text, when, now)
		}
		s, err := Parse(when.Format(OnceLayout))
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	s, err := Parse(text)
	if err != nil {
		return nil, err
	}
	if s.Once() {
		if _, ok := s.Next(now, time.Time{}); !ok {
			return nil, passed(text, s.onceTime(now.Location()), now)
		}
	}
	return s, nil
}

// passed is the error of a once time that is not to come.
func passed(text string, when, now time.Time) error {
	return fmt.Errorf("%q is %s, which has passed (it is %s now): give a time to come, such as \"tomorrow 9am\", \"in 2h\", \"next monday 09:00\" or a date and time (YYYY-MM-DD HH:MM), or a repeating SPEC such as \"daily 09:00\"",
		text, when.Format("Mon "+OnceLayout), now.Format("Mon "+OnceLayout))
}

// relative reads t (lower case, single spaces) as a time said from now.
// ok is false when t is none; why says what was wrong with one that is.
func relative(t string, now time.Time) (when time.Time, why string, ok bool) {
	if g := inRe().FindStringSubmatch(t); g != nil {
		n, err := strconv.Atoi(g[1])
		if err != nil || n <= 0 {
			return time.Time{}, fmt.Sprintf("understood a time from now, but %q is not a number above 0", g[1]), false
		}
		unit := time.Minute
		switch g[2][0] {
		case 'h':
			unit = time.Hour
		case 'd':
			unit = 24 * time.Hour
		}
		// The scheduler runs to the minute: the first whole minute at or
		// after the time asked, never before it.
		w := now.Add(time.Duration(n) * unit)
		if r := w.Truncate(time.Minute); !r.Equal(w) {
			w = r.Add(time.Minute)
		}
		return w, "", true
	}
	if d, err := time.ParseDuration(strings.TrimPrefix(t, "in ")); err == nil && strings.HasPrefix(t, "in ") && d >= time.Minute {
		return now.Add(d).Add(time.Minute - 1).Truncate(time.Minute), "", true // "in 1h30m"
	}
	if strings.HasPrefix(t, "in ") {
		return time.Time{}, fmt.Sprintf("understood a time from now, but not %q: write a number and m, h or d, like in 30m, in 2h or in 3 days", strings.TrimPrefix(t, "in ")), false
	}
	words := strings.Fields(strings.Replace(t, " at ", " ", 1))
	if len(words) == 0 {
		return time.Time{}, "", false
	}
	// DAY TIME or TIME DAY, where DAY is today, tonight, tomorrow or
	// next WEEKDAY.
	var day, clock string
	switch {
	case len(words) == 3 && words[0] == "next":
		day, clock = words[0]+" "+words[1], words[2]
	case len(words) == 3 && words[1] == "next":
		day, clock = words[1]+" "+words[2], words[0]
	case len(words) == 2 && isRelativeDay(words[1]):
		day, clock = words[1], words[0]
	case len(words) == 2 || len(words) == 1:
		day = words[0]
		if len(words) == 2 {
			clock = words[1]
		}
	default:
		return time.Time{}, "", false
	}
	y, m, d := now.Date()
	switch {
	case day == "today" || day == "tonight":
	case day == "tomorrow":
		d++
	case strings.HasPrefix(day, "next "):
		wd, known := weekdayNum[strings.TrimPrefix(day, "next ")]
		if !known {
			return time.Time{}, fmt.Sprintf("understood next, but %q is no day of the week: write it like next monday 9am", strings.TrimPrefix(day, "next ")), false
		}
		ahead := (wd - int(now.Weekday()) + 7) % 7
		if ahead == 0 {
			ahead = 7
		}
		d += ahead
	default:
		return time.Time{}, "", false
	}
	if clock == "" {
		return time.Time{}, fmt.Sprintf("understood the day %q, but no time: add one, e.g. %s 9am or %s 17:30", day, day, day), false
	}
	h, mi, okTime := parseTime(clock)
	if !okTime {
		return time.Time{}, fmt.Sprintf("understood the day %q, but not the time %q: write it like 9am, 5:30pm or 17:30", day, clock), false
	}
	return time.Date(y, m, d, h, mi, 0, 0, now.Location()), "", true
}

func isRelativeDay(w string) bool { return w == "today" || w == "tonight" || w == "tomorrow" }

// onceTime is when a once spec runs, in loc.
func (s *Spec) onceTime(loc *time.Location) time.Time {
	return time.Date(s.year, time.Month(s.month.list()[0]), s.dom.list()[0], s.hour.list()[0], s.minute.list()[0], 0, 0, loc)
}

// iso rewrites an ISO date and time ("2026-12-08t09:30", seconds 00
// allowed) as the once form; ok is false when t is none, why set when its
// seconds are not 00.
func iso(t string) (once, why string, ok bool) {
	g := isoRe().FindStringSubmatch(t)
	if g == nil {
		return "", "", false
	}
	if g[3] != "" && g[3] != "00" {
		return "", fmt.Sprintf("understood a date and time, but its seconds %q are not 00: co runs schedules to the minute", g[3]), true
	}
	return g[1] + " " + g[2], "", true
}

// normalize is text in lower case with single spaces, and "9 am" written
// 9am.
func normalize(text string) string {
	t := strings.ToLower(strings.Join(strings.Fields(text), " "))
	return ampmRe().ReplaceAllString(t, "$1$2")
}
