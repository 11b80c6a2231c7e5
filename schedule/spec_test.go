package schedule

import (
	"strings"
	"testing"
	"time"
)

// A fixed zone with daylight saving, so the tests never depend on the
// machine's.
func berlin(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatalf("no tz data: %v", err)
	}
	return loc
}

// Thursday 2026-11-26 10:15 in Berlin.
func now(t *testing.T) time.Time { return time.Date(2026, 11, 26, 10, 15, 0, 0, berlin(t)) }

func TestParseAndNext(t *testing.T) {
	at := func(s string) time.Time {
		x, err := time.ParseInLocation("2006-01-02 15:04", s, berlin(t))
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	for _, tc := range []struct {
		spec, form, next, cron string
		calendar               []string
	}{
		{"weekdays 08:00", "weekdays", "2026-11-27 08:00", "0 8 * * 1,2,3,4,5", []string{"Mon,Tue,Wed,Thu,Fri *-*-* 08:00:00"}},
		{"Weekdays at 8am", "weekdays", "2026-11-27 08:00", "0 8 * * 1,2,3,4,5", nil},
		{"weekends 10:00", "weekends", "2026-11-28 10:00", "0 10 * * 0,6", []string{"Sun,Sat *-*-* 10:00:00"}},
		{"daily 07:30", "daily", "2026-11-27 07:30", "30 7 * * *", []string{"*-*-* 07:30:00"}},
		{"every day 07:30", "daily", "2026-11-27 07:30", "30 7 * * *", nil},
		{"17:00", "daily", "2026-11-26 17:00", "0 17 * * *", []string{"*-*-* 17:00:00"}},
		{"5:30pm", "daily", "2026-11-26 17:30", "30 17 * * *", nil},
		{"mon,wed,fri 9:00", "days", "2026-11-27 09:00", "0 9 * * 1,3,5", []string{"Mon,Wed,Fri *-*-* 09:00:00"}},
		{"mon, wed, fri 9:00", "days", "2026-11-27 09:00", "0 9 * * 1,3,5", nil},
		{"monday 09:00", "days", "2026-11-30 09:00", "0 9 * * 1", []string{"Mon *-*-* 09:00:00"}},
		{"Mondays at 09:00", "days", "2026-11-30 09:00", "0 9 * * 1", nil},
		{"fri-mon 09:00", "days", "2026-11-27 09:00", "0 9 * * 0,1,5,6", nil},
		{"hourly", "hourly", "2026-11-26 11:00", "0 * * * *", []string{"*-*-* *:00:00"}},
		{"every 30m", "every", "2026-11-26 10:30", "0,30 * * * *", []string{"*-*-* *:00,30:00"}},
		{"every 2h", "every", "2026-11-26 12:00", "0 0,2,4,6,8,10,12,14,16,18,20,22 * * *", nil},
		{"every 1h", "every", "2026-11-26 11:00", "0 * * * *", nil},
		{"2026-12-01 09:30", "once", "2026-12-01 09:30", "30 9 1 12 *", []string{"2026-12-01 09:30:00"}},
		{"0 8 * * 1-5", "cron", "2026-11-27 08:00", "0 8 * * 1-5", nil},
		{"*/15 9-17 * * MON-FRI", "cron", "2026-11-26 10:30", "*/15 9-17 * * mon-fri", nil},
		{"0 9 1 * 1", "cron", "2026-11-30 09:00", "0 9 1 * 1", []string{"*-*-01 09:00:00", "Mon *-*-* 09:00:00"}},
		{"0 0 * * 7", "cron", "2026-11-29 00:00", "0 0 * * 7", nil},
		// A day field starting with * (*/2) leaves cron's either-day rule:
		// both must match (crontab(5)), as in systemd.
		{"0 0 */2 * 1", "cron", "2026-12-07 00:00", "0 0 */2 * 1", []string{"Mon *-*-01,03,05,07,09,11,13,15,17,19,21,23,25,27,29,31 00:00:00"}},
		{"@daily", "cron", "2026-11-27 00:00", "0 0 * * *", nil},
		{"Mon..Fri *-*-* 08:00", "oncalendar", "2026-11-27 08:00", "0 8 * * 1,2,3,4,5", nil},
		{"*-*-01 06:00:00", "oncalendar", "2026-12-01 06:00", "0 6 1 * *", nil},
		{"weekly", "oncalendar", "2026-11-30 00:00", "0 0 * * 1", nil},
		{"*:0/20", "oncalendar", "2026-11-26 10:20", "0,20,40 * * * *", nil},
	} {
		s, err := Parse(tc.spec)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.spec, err)
			continue
		}
		if s.Form != tc.form {
			t.Errorf("Parse(%q).Form = %q, want %q", tc.spec, s.Form, tc.form)
		}
		got, ok := s.Next(now(t), time.Time{})
		if !ok || !got.Equal(at(tc.next)) {
			t.Errorf("%q: next after %v = %v (%v), want %s", tc.spec, now(t), got, ok, tc.next)
		}
		cron, _, err := s.CronLine()
		if err != nil || cron != tc.cron {
			t.Errorf("%q: cron %q (%v), want %q", tc.spec, cron, err, tc.cron)
		}
		if tc.calendar != nil {
			if got := s.OnCalendar(); strings.Join(got, "|") != strings.Join(tc.calendar, "|") {
				t.Errorf("%q: OnCalendar %q, want %q", tc.spec, got, tc.calendar)
			}
		}
		if s.Describe() == "" {
			t.Errorf("%q: no description", tc.spec)
		}
	}
}

// A once spec in the past has no next run; cron's line for it is checked
// against the year.
func TestDescribe(t *testing.T) {
	for spec, want := range map[string]string{
		"weekdays 08:00":   "weekdays at 08:00",
		"weekends 10:00":   "weekends at 10:00",
		"17:00":            "every day at 17:00",
		"mon,wed,fri 9:00": "Mon,Wed,Fri at 09:00",
		"hourly":           "every hour at :00",
		"every 30m":        "every hour at :00, :30",
		"every 6h":         "every day at 00:00, 06:00, 12:00, 18:00",
		"every 90m":        "every 90m from when it is installed",
		"0 9 1 * 1":        "on day 1 of the month or Mon at 09:00",
		"Mon *-*-01 09:00": "on day 1 of the month if a Mon at 09:00",
		"0 0 1 1 *":        "on day 1 of the month in Jan at 00:00",
	} {
		if got := MustParse(spec).Describe(); got != want {
			t.Errorf("%q: Describe = %q, want %q", spec, got, want)
		}
	}
}

func TestOnceInThePast(t *testing.T) {
	s := MustParse("2025-01-02 03:04")
	if next, ok := s.Next(now(t), time.Time{}); ok {
		t.Errorf("a past date runs again at %v", next)
	}
	_, year, err := s.CronLine()
	if err != nil || year != 2025 {
		t.Errorf("year %d, %v", year, err)
	}
	if d := s.Describe(); d != "once, on 2025-01-02 at 03:04" {
		t.Errorf("Describe = %q", d)
	}
}

// An interval that divides no hour or day runs from its anchor; cron
// refuses it with what to write instead; systemd and launchd take it.
func TestIntervalCronCannotExpress(t *testing.T) {
	s := MustParse("every 90m")
	if s.Interval() != 90*time.Minute {
		t.Fatalf("interval %v", s.Interval())
	}
	anchor := now(t).Add(-100 * time.Minute)
	if next, _ := s.Next(now(t), anchor); !next.Equal(anchor.Add(180 * time.Minute)) {
		t.Errorf("next %v, want %v", next, anchor.Add(180*time.Minute))
	}
	_, _, err := s.CronLine()
	if err == nil || !strings.Contains(err.Error(), "every 30m") || !strings.Contains(err.Error(), "every 90m") {
		t.Errorf("cron error %v", err)
	}
	if got := strings.Join(s.TimerLines(), "|"); got != "OnActiveSec=5400s|OnUnitActiveSec=5400s" {
		t.Errorf("timer %q", got)
	}
	if _, iv, _, err := s.Launchd(); err != nil || iv != 5400 {
		t.Errorf("launchd interval %d %v", iv, err)
	}
}

// The clock skips 02:00–03:00 on 2027-03-28 in Berlin: a daily 02:30 runs
// the next day, not at a normalised 03:30.
func TestNextSkipsTheMissingHour(t *testing.T) {
	loc := berlin(t)
	s := MustParse("daily 02:30")
	got, _ := s.Next(time.Date(2027, 3, 27, 12, 0, 0, 0, loc), time.Time{})
	if want := time.Date(2027, 3, 29, 2, 30, 0, 0, loc); !got.Equal(want) {
		t.Errorf("next %v, want %v", got, want)
	}
}

// systemd needs both the day of month and the weekday in one expression;
// cron and launchd would run on either, so they refuse.
func TestBothDaysCronCannotExpress(t *testing.T) {
	s := MustParse("Mon *-*-01 09:00")
	if _, _, err := s.CronLine(); err == nil || !strings.Contains(err.Error(), "either") {
		t.Errorf("cron: %v", err)
	}
	if _, _, _, err := s.Launchd(); err == nil {
		t.Error("launchd took it")
	}
	// Monday the first: 2027-02-01.
	if got, _ := s.Next(now(t), time.Time{}); !got.Equal(time.Date(2027, 2, 1, 9, 0, 0, 0, berlin(t))) {
		t.Errorf("next %v", got)
	}
}

func TestParseErrorsSayWhatWasUnderstood(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"", "it is empty"},
		{"weekdays 25:00", `understood the days "weekdays", but not the time "25:00"`},
		{"weekdays", `understood the days "weekdays", but no time`},
		{"someday 08:00", `understood the time 08:00, but not the days "someday"`},
		{"every fortnight", "understood an interval"},
		{"every 0m", "above 0"},
		{"every 3d", "understood an interval"},
		{"every 48h", "the longest is every 24h"},
		{"2026-02-30 09:00", "not a day of the calendar"},
		{"2026-12-01 nine", `understood the date 2026-12-01 (once), but not the time "nine"`},
		{"61 * * * *", "minute 61 is out of range"},
		{"@reboot", "not a time"},
		{"*-*-* 08:00:30", "seconds"},
		{"*-*~01 08:00", "end of the month"},
		{"Mon *-*-* 08:00 Europe/Berlin", "time zone"},
		{"banana", "not a form co reads"},
	} {
		_, err := Parse(tc.spec)
		if err == nil {
			t.Errorf("Parse(%q) took it", tc.spec)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"weekdays 08:00"`) {
			t.Errorf("Parse(%q): %v\nwant it to say %q and give examples", tc.spec, err, tc.want)
		}
	}
}

func TestLaunchdCalendar(t *testing.T) {
	cal, iv, year, err := MustParse("mon,wed 9:30").Launchd()
	if err != nil || iv != 0 || year != 0 || len(cal) != 2 {
		t.Fatalf("%v %d %d %v", cal, iv, year, err)
	}
	if cal[0]["Weekday"] != 1 || cal[1]["Weekday"] != 3 || cal[0]["Hour"] != 9 || cal[0]["Minute"] != 30 {
		t.Errorf("%v", cal)
	}
	if _, ok := cal[0]["Month"]; ok {
		t.Errorf("an unrestricted month is a key: %v", cal)
	}
	if _, _, _, err := MustParse("0 0 */2 * 1").Launchd(); err == nil {
		t.Error("launchd took a day that must be both")
	}
	cal, _, year, _ = MustParse("2026-12-01 09:30").Launchd()
	if year != 2026 || len(cal) != 1 || cal[0]["Month"] != 12 || cal[0]["Day"] != 1 {
		t.Errorf("once: %v %d", cal, year)
	}
}
