package google

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"

	"github.com/co-cli/co/lib/retryafter"
)

// rateLimited waits out HTTP 429 answers: it honours Retry-After (seconds or
// an HTTP date; 1 s, 2 s, 4 s ... without one) as long as the waits of one
// request stay within maxWait, then hands the 429 to the caller, which
// reports it.
// minRateWait is the shortest wait between two tries.
const minRateWait = 100 * time.Millisecond

type rateLimited struct {
	base    http.RoundTripper
	maxWait time.Duration
	// sleep waits d or until ctx is done; nil is a real timer (Config.Sleep).
	sleep func(ctx context.Context, d time.Duration) error
}

func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

func (t *rateLimited) RoundTrip(req *http.Request) (*http.Response, error) {
	var waited time.Duration
	backoff := time.Second
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		// Keep the body to send it again (a draft is at most a few
		// hundred KB).
		data, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(data))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	}
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 {
			r = req.Clone(req.Context())
			if req.Body != nil && req.Body != http.NoBody {
				body, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				r.Body = body
			}
		}
		resp, err := t.base.RoundTrip(r)
		if err != nil || resp.StatusCode != http.StatusTooManyRequests {
			return resp, err
		}
		wait, ok := retryafter.Parse(resp.Header.Get("Retry-After"), time.Now())
		if !ok {
			wait, backoff = backoff, backoff*2
		}
		// A floor, so that "Retry-After: 0" forever still ends.
		wait = max(wait, minRateWait)
		if waited+wait > t.maxWait {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		pause := t.sleep
		if pause == nil {
			pause = sleep
		}
		if err := pause(req.Context(), wait); err != nil {
			return nil, err
		}
		waited += wait
	}
}
