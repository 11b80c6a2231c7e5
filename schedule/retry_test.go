package schedule

import (
	"testing"
	"time"
)

// A run that could not reach its model tries again after 30 s, 1 min,
// 2 min and 4 min, at most 5 attempts, and never closer than a minute to
// the schedule's next run (every minute: the next run is the retry).
func TestRetryWait(t *testing.T) {
	at := time.Date(2026, 12, 7, 8, 0, 5, 0, time.UTC)
	next := func(spec string) time.Time {
		t.Helper()
		n, ok := MustParse(spec).Next(at, at)
		if !ok {
			t.Fatalf("%s: no next run", spec)
		}
		return n
	}
	for _, tc := range []struct {
		name    string
		attempt int
		now     time.Time
		next    time.Time
		wait    time.Duration
		ok      bool
	}{
		{"once, first attempt", 1, at, time.Time{}, 30 * time.Second, true},
		{"once, second", 2, at, time.Time{}, time.Minute, true},
		{"once, fourth", 4, at, time.Time{}, 4 * time.Minute, true},
		{"once, fifth: the last", 5, at, time.Time{}, 0, false},
		{"no attempt yet", 0, at, time.Time{}, 0, false},
		{"daily: far from the next run", 3, at, next("daily 08:00"), 2 * time.Minute, true},
		{"every minute: the next run is the retry", 1, at, next("* * * * *"), 0, false},
		{"every 5 minutes, first", 1, at, next("*/5 * * * *"), 30 * time.Second, true},
		{"every 5 minutes, third: starts 25 s before the margin", 3, at.Add(90 * time.Second), next("*/5 * * * *"), 2 * time.Minute, true},
		{"every 5 minutes, fourth: would start after the next run", 4, at.Add(4 * time.Minute), next("*/5 * * * *"), 0, false},
		{"just inside the margin", 1, next("hourly").Add(-RetryMargin - 30*time.Second), next("hourly"), 30 * time.Second, true},
		{"just past the margin", 1, next("hourly").Add(-RetryMargin - 29*time.Second), next("hourly"), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wait, ok := RetryWait(tc.attempt, tc.now, tc.next)
			if wait != tc.wait || ok != tc.ok {
				t.Errorf("RetryWait(%d, %s, %s) = %s, %v; want %s, %v", tc.attempt, tc.now.Format(time.TimeOnly), tc.next.Format(time.TimeOnly), wait, ok, tc.wait, tc.ok)
			}
		})
	}
}
