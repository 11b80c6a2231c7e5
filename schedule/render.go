package schedule

import (
	"fmt"
	"strconv"
	"strings"
)

// listText renders a set as "*" when it is all of lo..hi, else as a
// comma list ("0,30"); width pads numbers ("08").
func listText(s set, all set, width int, sep string) string {
	if s == all {
		return "*"
	}
	var out []string
	for _, i := range s.list() {
		out = append(out, fmt.Sprintf("%0*d", width, i))
	}
	return strings.Join(out, sep)
}

// TimerLines are the [Timer] section's settings for the spec (systemd.timer(5)):
// one or two OnCalendar= lines for a calendar, OnActiveSec= and
// OnUnitActiveSec= for an interval. A calendar that restricts both the day
// of month and the weekday in cron's sense (either matches) is two
// OnCalendar= lines, since systemd needs both to match in one (the timer
// elapses when any of its lines does).
func (s *Spec) TimerLines() []string {
	if s.every > 0 {
		sec := strconv.Itoa(int(s.every.Seconds()))
		return []string{"OnActiveSec=" + sec + "s", "OnUnitActiveSec=" + sec + "s"}
	}
	var out []string
	for _, c := range s.OnCalendar() {
		out = append(out, "OnCalendar="+c)
	}
	return out
}

// OnCalendar returns the spec as systemd OnCalendar expressions
// (systemd.time(7)), or nil for an interval spec.
func (s *Spec) OnCalendar() []string {
	if s.every > 0 {
		return nil
	}
	year := "*"
	if s.year != 0 {
		year = strconv.Itoa(s.year)
	}
	tm := listText(s.hour, allHours, 2, ",") + ":" + listText(s.minute, allMinutes, 2, ",") + ":00"
	month := listText(s.month, allMonths, 2, ",")
	days := func(dom set, dow set) string {
		w := ""
		if dow != allWeekdays {
			var ds []string
			for _, d := range dow.list() {
				ds = append(ds, dayNames[d])
			}
			w = strings.Join(ds, ",") + " "
		}
		return w + year + "-" + month + "-" + listText(dom, allDays, 2, ",") + " " + tm
	}
	if s.orDays {
		return []string{days(s.dom, allWeekdays), days(allDays, s.dow)}
	}
	return []string{days(s.dom, s.dow)}
}

// CronLine returns the spec's five cron fields (crontab(5)) and, for a
// spec bound to one year (a once spec), that year: cron has no year field,
// so the entry checks it before it runs. An interval that does not divide
// an hour or a day (every 90m), or a day that must be both a day of the
// month and a weekday, cannot be written for cron: the error says what to
// write instead.
func (s *Spec) CronLine() (fields string, year int, err error) {
	if s.every > 0 {
		return "", 0, fmt.Errorf("cron cannot run %q: it runs at times of the clock, not every %s from a start. "+
			"Write an interval that divides an hour or a day (every 15m, every 30m, every 2h, every 3h) "+
			"or times of day (\"daily 09:00\"); a systemd timer or launchd can run it as written",
			s.Text, durationWords(s.every))
	}
	if s.Form == "cron" {
		return s.cronText, 0, nil // as written: cron reads it the same
	}
	if s.dom != allDays && s.dow != allWeekdays {
		return "", 0, fmt.Errorf("cron cannot run %q: when a cron line names both days of the month and weekdays "+
			"it runs on a day that matches either (crontab(5)), and this schedule wants both. "+
			"Name only the days of the month or only the weekdays", s.Text)
	}
	dom, dow := listText(s.dom, allDays, 0, ","), listText(s.dow, allWeekdays, 0, ",")
	return strings.Join([]string{listText(s.minute, allMinutes, 0, ","), listText(s.hour, allHours, 0, ","),
		dom, listText(s.month, allMonths, 0, ","), dow}, " "), s.year, nil
}

// Launchd is the spec as launchd.plist(5) keys: StartCalendarInterval's
// dictionaries (each key an integer; a missing key matches any value), or
// StartInterval in seconds, and the one year the run is bound to (launchd
// has no year key: the job checks it). launchd.plist(5): "if both Day and
// Weekday are specified, the job will be started if either one matches",
// so a day that must be both cannot be written.
func (s *Spec) Launchd() (calendar []map[string]int, interval int, year int, err error) {
	if s.every > 0 {
		return nil, int(s.every.Seconds()), 0, nil
	}
	domR, dowR := s.dom != allDays, s.dow != allWeekdays
	if domR && dowR && !s.orDays {
		return nil, 0, 0, fmt.Errorf("launchd cannot run %q: a day that must be both a day of the month and a "+
			"weekday cannot be written for it (launchd.plist(5)). Name only the days of the month or only the weekdays", s.Text)
	}
	type key struct {
		name string
		vals set
		all  set
	}
	var dayKeys [][]key
	base := []key{{"Month", s.month, allMonths}, {"Hour", s.hour, allHours}, {"Minute", s.minute, allMinutes}}
	switch {
	case s.orDays: // either: two sets of dictionaries
		dayKeys = [][]key{{{"Day", s.dom, allDays}}, {{"Weekday", s.dow, allWeekdays}}}
	case domR:
		dayKeys = [][]key{{{"Day", s.dom, allDays}}}
	default:
		dayKeys = [][]key{{{"Weekday", s.dow, allWeekdays}}}
	}
	for _, dk := range dayKeys {
		keys := append(append([]key{}, base...), dk...)
		dicts := []map[string]int{{}}
		for _, k := range keys {
			if k.vals == k.all {
				continue
			}
			var next []map[string]int
			for _, d := range dicts {
				for _, v := range k.vals.list() {
					n := make(map[string]int, len(d)+1)
					for a, b := range d {
						n[a] = b
					}
					n[k.name] = v
					next = append(next, n)
				}
			}
			dicts = next
		}
		calendar = append(calendar, dicts...)
	}
	if len(calendar) > 1000 {
		return nil, 0, 0, fmt.Errorf("launchd would need %d calendar entries for %q: write fewer times (an interval such as every 30m is one key)", len(calendar), s.Text)
	}
	return calendar, 0, s.year, nil
}
