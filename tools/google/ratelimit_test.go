package google

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRateLimitedEndsWhenTheServerNeverRelents(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		body, _ := io.ReadAll(r.Body)
		if string(body) != "payload" {
			t.Errorf("attempt %d sent body %q", n.Load(), body)
		}
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	c := &http.Client{Transport: &rateLimited{base: http.DefaultTransport, maxWait: 500 * time.Millisecond}}
	// A body without GetBody, as the Google client sends a draft.
	req, _ := http.NewRequest(http.MethodPost, srv.URL, io.NopCloser(strings.NewReader("payload")))
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || n.Load() != 6 {
		t.Errorf("status %d after %d attempts, want 429 after 6", resp.StatusCode, n.Load())
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2024, 5, 6, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false}, {"7", 7 * time.Second, true}, {"-1", 0, false}, {"soon", 0, false},
		{"Mon, 06 May 2024 10:00:30 GMT", 30 * time.Second, true}, {"Mon, 06 May 2024 09:00:00 GMT", 0, true},
	}
	for _, tc := range cases {
		if got, ok := retryAfter(tc.in, now); got != tc.want || ok != tc.ok {
			t.Errorf("retryAfter(%q) = %s, %v; want %s, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
