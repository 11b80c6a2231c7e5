package schedule

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// weekday names, full and short, to their number (0 Sunday).
var weekdayNum = map[string]int{
	"sun": 0, "sunday": 0, "mon": 1, "monday": 1, "tue": 2, "tues": 2, "tuesday": 2,
	"wed": 3, "wednesday": 3, "thu": 4, "thur": 4, "thurs": 4, "thursday": 4,
	"fri": 5, "friday": 5, "sat": 6, "saturday": 6,
}

// Compiled on first use: co's packages initialise lightly (startup_test.go).
var (
	everyRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^every ?(\d+) ?(m|min|mins|minute|minutes|h|hr|hrs|hour|hours)$`)
	})
	dateRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{4})-(\d{1,2})-(\d{1,2})$`) })
	clockRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{1,2})(?::(\d{2}))?(am|pm)?$`) })
)

// parseTime reads "8:00", "08:00", "17:30", "8am", "5:30pm", "noon" and
// "midnight".
func parseTime(w string) (h, m int, ok bool) {
	switch w {
	case "noon":
		return 12, 0, true
	case "midnight":
		return 0, 0, true
	}
	g := clockRe().FindStringSubmatch(w)
	if g == nil || (g[2] == "" && g[3] == "") {
		return 0, 0, false
	}
	h, _ = strconv.Atoi(g[1])
	if g[2] != "" {
		m, _ = strconv.Atoi(g[2])
	}
	switch g[3] {
	case "am", "pm":
		if h < 1 || h > 12 {
			return 0, 0, false
		}
		h %= 12
		if g[3] == "pm" {
			h += 12
		}
	}
	return h, m, h <= 23 && m <= 59
}

// parseDays reads "weekdays", "weekends", "daily", "every day", "mon,wed,fri",
// "mon-fri", "monday". ok is false when w is not days.
func parseDays(w string) (dow set, form string, ok bool) {
	switch w {
	case "daily", "every day", "everyday":
		return allWeekdays, "daily", true
	case "weekdays", "every weekday", "weekday":
		return span(1, 5), "weekdays", true
	case "weekends", "every weekend", "weekend":
		return 1 | 1<<6, "weekends", true
	}
	w = strings.TrimPrefix(w, "every ")
	for part := range strings.SplitSeq(w, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, okA := weekdayNum[strings.TrimSuffix(lo, "s")]
		if !okA {
			a, okA = weekdayNum[lo]
		}
		if !okA {
			return 0, "", false
		}
		if !isRange {
			dow |= 1 << uint(a)
			continue
		}
		b, okB := weekdayNum[hi]
		if !okB {
			return 0, "", false
		}
		for i := a; ; i = (i + 1) % 7 {
			dow |= 1 << uint(i)
			if i == b {
				break
			}
		}
	}
	return dow, "days", true
}

// parseWords reads the forms people write. It returns (nil, "") when text
// is none of them (it may be cron or OnCalendar), and a reason when it is
// one but wrong.
func parseWords(t string) (*Spec, string) {
	switch t {
	case "hourly", "every hour":
		return &Spec{Form: "hourly", minute: 1, hour: allHours, dom: allDays, month: allMonths, dow: allWeekdays}, ""
	case "every minute":
		return &Spec{Form: "every", minute: allMinutes, hour: allHours, dom: allDays, month: allMonths, dow: allWeekdays}, ""
	}
	if g := everyRe().FindStringSubmatch(t); g != nil {
		n, err := strconv.Atoi(g[1])
		if err != nil || n <= 0 {
			return nil, fmt.Sprintf("understood an interval, but %q is not a number of minutes or hours above 0", g[1])
		}
		unit := time.Minute
		if strings.HasPrefix(g[2], "h") {
			unit = time.Hour
		}
		return every(time.Duration(n) * unit)
	}
	if strings.HasPrefix(t, "every ") && len(strings.Fields(t)) == 2 {
		if _, _, ok := parseDays(t); !ok {
			return nil, fmt.Sprintf("understood an interval, but not %q: write a number and m or h, like every 30m or every 2h", strings.TrimPrefix(t, "every "))
		}
	}

	// [DAYS] [at] TIME, or DATE [at] TIME.
	words := strings.Fields(strings.ReplaceAll(t, ", ", ","))
	if len(words) == 0 {
		return nil, ""
	}
	last := words[len(words)-1]
	h, m, okTime := parseTime(last)
	rest := words[:len(words)-1]
	if len(rest) > 0 && rest[len(rest)-1] == "at" {
		rest = rest[:len(rest)-1]
	}
	head := strings.Join(rest, " ")
	if len(rest) == 1 {
		if g := dateRe().FindStringSubmatch(rest[0]); g != nil {
			if !okTime {
				return nil, fmt.Sprintf("understood the date %s (once), but not the time %q: write it as HH:MM, like %s 09:30", rest[0], last, rest[0])
			}
			y, _ := strconv.Atoi(g[1])
			mo, _ := strconv.Atoi(g[2])
			d, _ := strconv.Atoi(g[3])
			if mo < 1 || mo > 12 || d < 1 || d > time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
				return nil, fmt.Sprintf("understood a date and time (once), but %s is not a day of the calendar", rest[0])
			}
			return &Spec{Form: "once", minute: 1 << uint(m), hour: 1 << uint(h), dom: 1 << uint(d), month: 1 << uint(mo),
				dow: allWeekdays, year: y}, ""
		}
	}
	dow, form, okDays := allWeekdays, "daily", true
	if head != "" {
		dow, form, okDays = parseDays(head)
	}
	switch {
	case okDays && okTime:
		return &Spec{Form: form, minute: 1 << uint(m), hour: 1 << uint(h), dom: allDays, month: allMonths, dow: dow}, ""
	case head != "" && okDays && !okTime:
		if len(rest) == len(words) || clockRe().MatchString(last) || strings.Contains(last, ":") {
			return nil, fmt.Sprintf("understood the days %q, but not the time %q: write it as HH:MM (24-hour) or like 8am, e.g. %s 08:00", head, last, head)
		}
	case head == "" && !okTime:
		if _, _, isDays := parseDays(last); isDays {
			return nil, fmt.Sprintf("understood the days %q, but no time: add one, e.g. %s 08:00", last, last)
		}
		if strings.Contains(last, ":") && len(words) == 1 && !strings.ContainsAny(last, "*/.,") {
			return nil, fmt.Sprintf("understood a time of day, but %q is not one: write HH:MM (24-hour), e.g. 17:00", last)
		}
	case okTime && !okDays && len(rest) == 1 && !strings.ContainsAny(head, "*.~/") && !dateLike(head):
		return nil, fmt.Sprintf("understood the time %02d:%02d, but not the days %q: write weekdays, weekends, daily or day names like mon,wed,fri", h, m, head)
	}
	return nil, ""
}

// dateLike: a systemd date (*-*-01, 2026-*-*) rather than days.
func dateLike(w string) bool { return strings.Count(w, "-") == 2 }

// every makes the spec for an interval. One that divides an hour or a day
// evenly is a calendar ("every 30m" runs at :00 and :30, "every 2h" at
// 00:00, 02:00, …): every scheduler can express it and it does not drift.
// Any other (every 90m) is a plain interval, which cron cannot express.
func every(d time.Duration) (*Spec, string) {
	base := Spec{Form: "every", dom: allDays, month: allMonths, dow: allWeekdays}
	switch {
	case d < time.Minute:
		return nil, "understood an interval, but the shortest is every 1m"
	case d < time.Hour && time.Hour%d == 0:
		n := int(d / time.Minute)
		for i := 0; i < 60; i += n {
			base.minute |= 1 << uint(i)
		}
		base.hour = allHours
	case d >= time.Hour && d%time.Hour == 0 && (24*time.Hour)%d == 0:
		n := int(d / time.Hour)
		base.minute = 1
		for i := 0; i < 24; i += n {
			base.hour |= 1 << uint(i)
		}
	case d > 24*time.Hour:
		return nil, fmt.Sprintf("understood an interval of %s, but the longest is every 24h: for less often, name the days (mon 09:00) or a date", durationWords(d))
	default:
		base.every = d
	}
	return &base, ""
}
