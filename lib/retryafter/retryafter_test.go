package retryafter

import (
	"math"
	"net/http"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false}, {"soon", 0, false}, {"-1", 0, false}, {"-3", 0, false}, {"-0.5", 0, false},
		{"0", 0, true}, {"7", 7 * time.Second, true}, {" 2 ", 2 * time.Second, true}, {"1.5", 1500 * time.Millisecond, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		// Too many digits for an int64: not a number at all.
		{"99999999999999999999", 0, false},
		// A number of seconds beyond time.Duration: the longest wait.
		{"9999999999999", math.MaxInt64, true}, {"9999999999999.5", math.MaxInt64, true},
	} {
		if got, ok := Parse(tc.in, now); got != tc.want || ok != tc.ok {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
