// Package retryafter reads an HTTP Retry-After header, for the clients
// that retry (the LLM provider, the Google tools, the OTLP exporter).
package retryafter

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Parse reads v as delay-seconds (RFC 9110; a decimal fraction is
// accepted too) or an HTTP date, which is turned into a wait from now (0
// once it has passed). ok is false when v is empty, negative or neither.
// A wait too long for a time.Duration is the longest one.
func Parse(v string, now time.Time) (wait time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	const maxSeconds = math.MaxInt64 / int64(time.Second)
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		switch {
		case n < 0:
			return 0, false
		case n > maxSeconds:
			return math.MaxInt64, true
		}
		return time.Duration(n) * time.Second, true
	}
	if strings.Contains(v, ".") {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
			if f >= float64(maxSeconds) {
				return math.MaxInt64, true
			}
			return time.Duration(f * float64(time.Second)), true
		}
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
