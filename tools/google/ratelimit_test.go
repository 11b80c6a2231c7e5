package google

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
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
	var slept []time.Duration // an injected clock: the waits are counted, not timed
	rec := func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	c := &http.Client{Transport: &rateLimited{base: http.DefaultTransport, maxWait: 500 * time.Millisecond, sleep: rec}}
	// A body without GetBody, as the Google client sends a draft.
	req, _ := http.NewRequest(http.MethodPost, srv.URL, io.NopCloser(strings.NewReader("payload")))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || n.Load() != 6 {
		t.Errorf("status %d after %d attempts, want 429 after 6", resp.StatusCode, n.Load())
	}
	// "Retry-After: 0" is waited as the 100 ms floor, five times: the
	// sixth wait would pass maxWait, so the 429 is reported instead.
	if want := slices.Repeat([]time.Duration{minRateWait}, 5); !slices.Equal(slept, want) {
		t.Errorf("waited %v, want %v", slept, want)
	}
}
