package schedule

import (
	"strings"
	"testing"
	"time"
)

// The times people type, read on a clock of the test's own: a time said
// from now becomes the date and time it means (what is saved), a
// repeating one stays as written, and one that has passed or cannot be
// read says what was wrong and which forms are read.
func TestParseAt(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	now := time.Date(2026, 12, 7, 10, 15, 20, 0, loc) // a Monday
	for _, c := range []struct{ in, text, describe string }{
		{"tomorrow 9am", "2026-12-08 09:00", "once, on 2026-12-08 at 09:00"},
		{"Tomorrow at 9:30", "2026-12-08 09:30", ""},
		{"9am tomorrow", "2026-12-08 09:00", ""},
		{"today 17:30", "2026-12-07 17:30", ""},
		{"tonight 9pm", "2026-12-07 21:00", ""},
		{"in 2h", "2026-12-07 12:16", ""}, // 12:15:20 rounds up to the whole minute
		{"in 30m", "2026-12-07 10:46", ""},
		{"in 45 minutes", "2026-12-07 11:01", ""},
		{"in 3 days", "2026-12-10 10:16", ""},
		{"next monday 9am", "2026-12-14 09:00", ""}, // today is a Monday: the next one
		{"next fri 09:00", "2026-12-11 09:00", ""},
		{"tomorrow 9 am", "2026-12-08 09:00", ""},
		{"tomorrow noon", "2026-12-08 12:00", ""},
		{"in 1h30m", "2026-12-07 11:46", ""},
		{"2026-12-08T09:30", "2026-12-08T09:30", "once, on 2026-12-08 at 09:30"},
		{"2026-12-08T09:30:00", "2026-12-08T09:30:00", "once, on 2026-12-08 at 09:30"},
		{"2026-12-08 09:30", "2026-12-08 09:30", ""},
		{"2027-01-04 9am", "2027-01-04 9am", "once, on 2027-01-04 at 09:00"},
		// Repeating: as written.
		{"monday 9am", "monday 9am", "Mon at 09:00"},
		{"mon 09:00", "mon 09:00", "Mon at 09:00"},
		{"9am", "9am", "every day at 09:00"},
		{"21:00", "21:00", "every day at 21:00"},
		{"noon", "noon", "every day at 12:00"},
		{"weekdays 9 am", "weekdays 9 am", "weekdays at 09:00"},
		{"weekdays 08:00", "weekdays 08:00", "weekdays at 08:00"},
		{"0 8 * * 1-5", "0 8 * * 1-5", "weekdays at 08:00"},
	} {
		s, err := ParseAt(c.in, now)
		if err != nil {
			t.Errorf("ParseAt(%q): %v", c.in, err)
			continue
		}
		if s.Text != c.text {
			t.Errorf("ParseAt(%q).Text = %q, want %q", c.in, s.Text, c.text)
		}
		if c.describe != "" && s.Describe() != c.describe {
			t.Errorf("ParseAt(%q) reads as %q, want %q", c.in, s.Describe(), c.describe)
		}
		// What is saved reads the same without the clock.
		if again, err := Parse(s.Text); err != nil || again.Describe() != s.Describe() {
			t.Errorf("Parse(%q) = %v, %v; want %q", s.Text, again, err, s.Describe())
		}
	}

	for _, c := range []struct{ in, want string }{
		{"today 9am", `"today 9am" is Mon 2026-12-07 09:00, which has passed (it is Mon 2026-12-07 10:15 now): give a time to come, such as "tomorrow 9am"`},
		{"2026-12-01 09:30", `"2026-12-01 09:30" is Tue 2026-12-01 09:30, which has passed`},
		{"2026-12-07T10:15", "which has passed"},
		{"tomorrow", `understood the day "tomorrow", but no time: add one, e.g. tomorrow 9am`},
		{"tomorrow 9", `understood the day "tomorrow", but not the time "9": write it like 9am, 5:30pm or 17:30`},
		{"next moonday 9am", `"moonday" is no day of the week`},
		{"in a while", `understood a time from now, but not "a while"`},
		{"in 0m", `"0" is not a number above 0`},
		{"2026-12-08T09:30:15", `seconds "15" are not 00`},
		{"2026-02-30T09:30", "not a day of the calendar"},
	} {
		_, err := ParseAt(c.in, now)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseAt(%q) = %v, want an error with %q", c.in, err, c.want)
			continue
		}
		// Every refusal shows the forms that are read.
		if !strings.Contains(err.Error(), `"tomorrow 9am"`) || !strings.Contains(err.Error(), `"daily`) {
			t.Errorf("ParseAt(%q)'s error shows no accepted forms: %v", c.in, err)
		}
	}
}

// A time said from now has no meaning in a settings file, read later:
// Parse (which config uses) refuses it and says what to write.
func TestParseRefusesATimeFromNow(t *testing.T) {
	for _, in := range []string{"tomorrow 9am", "in 2h", "next monday 9am", "today"} {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), "a time said from now") {
			t.Errorf("Parse(%q) = %v", in, err)
		}
	}
}
