package schedule

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

var monthNum = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}

// parseField reads one field of a cron line or one component of an
// OnCalendar expression: "*", "5", "1,3", ranges ("1-5" in cron, "1..5"
// in OnCalendar) and steps ("*/15", "0/2", "1-10/3"). names maps words
// (mon, jan) to numbers; a value of 7 for a weekday is Sunday.
func parseField(f string, lo, hi int, rangeSep string, names map[string]int, what string) (set, error) {
	var out set
	num := func(w string) (int, error) {
		if n, ok := names[w]; ok {
			return n, nil
		}
		n, err := strconv.Atoi(w)
		if err != nil {
			return 0, fmt.Errorf("%q is not a %s", w, what)
		}
		if n < lo || n > hi {
			return 0, fmt.Errorf("%s %d is out of range (%d to %d)", what, n, lo, hi)
		}
		return n, nil
	}
	for part := range strings.SplitSeq(f, ",") {
		if part == "" {
			return 0, fmt.Errorf("an empty item in %q", f)
		}
		base, stepText, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || n < 1 {
				return 0, fmt.Errorf("%q: the step after / must be a number above 0", part)
			}
			step = n
		}
		a, b := lo, hi
		switch {
		case base == "*":
		case strings.Contains(base, rangeSep):
			x, y, _ := strings.Cut(base, rangeSep)
			var err error
			if a, err = num(x); err != nil {
				return 0, err
			}
			if b, err = num(y); err != nil {
				return 0, err
			}
			if b < a {
				if what != "weekday" {
					return 0, fmt.Errorf("%q: a range must go upward", part)
				}
				b += 7 // fri-mon
			}
		default:
			n, err := num(base)
			if err != nil {
				return 0, err
			}
			a = n
			if !hasStep {
				b = n
			}
		}
		for i := a; i <= b; i += step {
			if what == "weekday" {
				out |= 1 << uint(i%7) // 7 is Sunday too
			} else {
				out |= 1 << uint(i)
			}
		}
	}
	return out, nil
}

var cronFieldRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-z*,/\-]+$`) })

// parseCron reads a 5-field cron line (crontab(5): minute hour
// day-of-month month day-of-week) or an @daily-style shortcut. isCron is
// false when text does not look like one.
func parseCron(t string) (s *Spec, why string, isCron bool) {
	switch t {
	case "@hourly":
		t = "0 * * * *"
	case "@daily", "@midnight":
		t = "0 0 * * *"
	case "@weekly":
		t = "0 0 * * 0"
	case "@monthly":
		t = "0 0 1 * *"
	case "@yearly", "@annually":
		t = "0 0 1 1 *"
	case "@reboot":
		return nil, "@reboot is not a time: co schedules runs at times of day or intervals", true
	}
	f := strings.Fields(t)
	if len(f) != 5 {
		return nil, "", false
	}
	for _, x := range f {
		if !cronFieldRe().MatchString(x) {
			return nil, "", false
		}
	}
	s = &Spec{Form: "cron", cronText: strings.Join(f, " ")}
	var err error
	fields := []struct {
		dst    *set
		lo, hi int
		names  map[string]int
		what   string
	}{
		{&s.minute, 0, 59, nil, "minute"},
		{&s.hour, 0, 23, nil, "hour"},
		{&s.dom, 1, 31, nil, "day of month"},
		{&s.month, 1, 12, monthNum, "month"},
		{&s.dow, 0, 6, weekdayNum, "weekday"},
	}
	for i, fl := range fields {
		hi := fl.hi
		if fl.what == "weekday" {
			hi = 7
		}
		v, e := parseField(f[i], fl.lo, hi, "-", fl.names, fl.what)
		if e != nil {
			err = e
			break
		}
		*fl.dst = v
	}
	if err != nil {
		return nil, err.Error(), true
	}
	// crontab(5): a day field starting with * is unrestricted.
	s.orDays = !strings.HasPrefix(f[2], "*") && !strings.HasPrefix(f[4], "*")
	return s, "", true
}

var calendarShorthand = map[string]string{
	// systemd.time(7), "Calendar Events": the shorthands and what they mean.
	"minutely":     "*-*-* *:*:00",
	"hourly":       "*-*-* *:00:00",
	"daily":        "*-*-* 00:00:00",
	"monthly":      "*-*-01 00:00:00",
	"weekly":       "Mon *-*-* 00:00:00",
	"yearly":       "*-01-01 00:00:00",
	"annually":     "*-01-01 00:00:00",
	"quarterly":    "*-01,04,07,10-01 00:00:00",
	"semiannually": "*-01,07-01 00:00:00",
}

// parseOnCalendar reads a systemd OnCalendar expression (systemd.time(7)):
// [WEEKDAYS] [YEAR-MONTH-DAY | MONTH-DAY] [HOUR:MINUTE[:SECOND]]. co runs to
// the minute: seconds must be 0. Not supported (refused with a reason): a
// time zone at the end, "~" (days from the end of the month), several years.
func parseOnCalendar(t string) (*Spec, string) {
	low := strings.ToLower(t)
	if exp, ok := calendarShorthand[low]; ok {
		t = exp
	}
	words := strings.Fields(t)
	s := &Spec{Form: "oncalendar", minute: 1, hour: 1, dom: allDays, month: allMonths, dow: allWeekdays}
	understood := "not a form co reads"
	fail := func(why string) (*Spec, string) {
		return nil, why
	}
	i := 0
	if i < len(words) && !strings.ContainsAny(words[i], "0123456789*") {
		v, err := parseField(strings.ToLower(words[i]), 0, 6, "..", weekdayNum, "weekday")
		if err != nil {
			return fail(fmt.Sprintf("%s (read %q as weekdays of an OnCalendar expression: %v)", understood, words[i], err))
		}
		s.dow = v
		i++
	}
	timeSeen := false
	for ; i < len(words); i++ {
		w := words[i]
		switch {
		case strings.Contains(w, "~"):
			return fail(fmt.Sprintf("read an OnCalendar expression, but %q counts days from the end of the month (~), which co cannot turn into cron or launchd: name the days", w))
		case strings.Contains(w, ":") && !timeSeen:
			parts := strings.Split(w, ":")
			if len(parts) < 2 || len(parts) > 3 {
				return fail(fmt.Sprintf("read an OnCalendar expression, but %q is not a time (HH:MM or HH:MM:SS)", w))
			}
			h, err := parseField(parts[0], 0, 23, "..", nil, "hour")
			if err != nil {
				return fail("read an OnCalendar expression, but its time: " + err.Error())
			}
			m, err := parseField(parts[1], 0, 59, "..", nil, "minute")
			if err != nil {
				return fail("read an OnCalendar expression, but its time: " + err.Error())
			}
			if len(parts) == 3 {
				if sec, err := strconv.ParseFloat(parts[2], 64); err != nil || sec != 0 {
					return fail(fmt.Sprintf("read an OnCalendar expression, but its seconds %q are not 0: co runs schedules to the minute", parts[2]))
				}
			}
			s.hour, s.minute = h, m
			timeSeen = true
		case strings.Count(w, "-") >= 1 && !timeSeen && i <= 1:
			parts := strings.Split(w, "-")
			if len(parts) == 2 {
				parts = append([]string{"*"}, parts...)
			}
			if len(parts) != 3 {
				return fail(fmt.Sprintf("read an OnCalendar expression, but %q is not a date (YEAR-MONTH-DAY, * for any)", w))
			}
			if parts[0] != "*" {
				y, err := strconv.Atoi(parts[0])
				if err != nil || y < 1970 || y > 2199 {
					return fail(fmt.Sprintf("read an OnCalendar expression, but its year %q is not one year: co reads * or a single year", parts[0]))
				}
				s.year = y
			}
			mo, err := parseField(parts[1], 1, 12, "..", nil, "month")
			if err != nil {
				return fail("read an OnCalendar expression, but its date: " + err.Error())
			}
			d, err := parseField(parts[2], 1, 31, "..", nil, "day of month")
			if err != nil {
				return fail("read an OnCalendar expression, but its date: " + err.Error())
			}
			s.month, s.dom = mo, d
		default:
			if i == len(words)-1 && i > 0 {
				return fail(fmt.Sprintf("read an OnCalendar expression, but not %q at its end (a time zone? co's schedules are in the machine's local time; leave it out)", w))
			}
			return fail(fmt.Sprintf("%s: %q", understood, w))
		}
	}
	if i == 0 {
		return fail(understood)
	}
	return s, ""
}
