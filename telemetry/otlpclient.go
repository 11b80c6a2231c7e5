package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/co-cli/co/internal/retryafter"
)

// otlpClient posts OTLP/HTTP protobuf exports (an otlptrace.Client): what
// otlptracehttp's client does (v1.47.0, client.go), from co's settings
// only. The protocol: https://opentelemetry.io/docs/specs/otlp/#otlphttp
//
// An answer of 2xx is success; its body may report a partial success
// (spans rejected), which is an error. 429, 502, 503 and 504 and temporary
// network errors are retried (otlpRetry); any other status is an error
// naming it and the collector's message. Stop interrupts exports under
// way.
type otlpClient struct {
	url     string // without the query and user:password (endpointTransport)
	shown   string // the endpoint for messages
	headers http.Header
	gzip    bool
	retry   struct{ initial, max, maxElapsed time.Duration }
	http    *http.Client
	stopCtx context.Context
	stop    context.CancelFunc
}

// otlpMaxResponse bounds how much of an answer is read (otlptracehttp's
// DefaultMaxResponseSize).
const otlpMaxResponse = 64 << 20

func (c *otlpClient) Start(context.Context) error { return nil }

// Stop interrupts the exports under way; it reports a ctx already done,
// as otlptracehttp's does.
func (c *otlpClient) Stop(ctx context.Context) error {
	c.stop()
	return ctx.Err()
}

func (c *otlpClient) UploadTraces(ctx context.Context, spans []*tracepb.ResourceSpans) error {
	body, err := proto.Marshal(&coltracepb.ExportTraceServiceRequest{ResourceSpans: spans})
	if err != nil {
		return err
	}
	if c.gzip {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if _, err := zw.Write(body); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		body = buf.Bytes()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(c.stopCtx, cancel)()

	start := time.Now()
	for interval := c.retry.initial; ; interval = min(interval*3/2, c.retry.max) {
		throttle, err := c.post(ctx, body)
		if err == nil {
			return nil
		}
		var retry *otlpRetryable
		if !errors.As(err, &retry) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %w", context.Cause(ctx), err)
		}
		if time.Since(start) > c.retry.maxElapsed {
			return fmt.Errorf("gave up retrying after %s: %w", c.retry.maxElapsed, err)
		}
		// The wait: the backoff randomised ±50 %, or Retry-After if
		// longer; none that would end past maxElapsed.
		wait := max(throttle, interval/2+rand.N(interval+1))
		if time.Since(start)+throttle > c.retry.maxElapsed {
			return fmt.Errorf("not retried, it would take longer than the export may: %w", err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: %w", context.Cause(ctx), err)
		case <-t.C:
		}
	}
}

// otlpRetryable is a failure worth retrying.
type otlpRetryable struct{ err error }

func (e *otlpRetryable) Error() string { return e.err.Error() }
func (e *otlpRetryable) Unwrap() error { return e.err }

// post sends one request. A retryable failure is an *otlpRetryable, with
// the Retry-After wait as throttle.
func (c *otlpClient) post(ctx context.Context, body []byte) (throttle time.Duration, _ error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header = c.headers.Clone()
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) && ue.Temporary() {
			return 0, &otlpRetryable{err}
		}
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, otlpMaxResponse))
	if err != nil {
		return 0, err
	}
	switch code := resp.StatusCode; {
	case code >= 200 && code <= 299:
		return 0, partialSuccess(resp.Header.Get("Content-Type"), data)
	case code == http.StatusTooManyRequests, code == http.StatusBadGateway,
		code == http.StatusServiceUnavailable, code == http.StatusGatewayTimeout:
		throttle, _ = retryafter.Parse(resp.Header.Get("Retry-After"), time.Now())
		return throttle, &otlpRetryable{fmt.Errorf("%s answered %s (body: %s)", c.shown, resp.Status, shownBody(data))}
	default:
		return 0, fmt.Errorf("failed to send to %s: %s (body: %s)", c.shown, resp.Status, shownBody(data))
	}
}

func shownBody(data []byte) string {
	s := strings.TrimSpace(string(data))
	if s == "" {
		return "(empty)"
	}
	return s
}

// partialSuccess reads a successful answer's body: a partial success
// (spans rejected, or a message) is an error. A body that is neither
// protobuf nor JSON is not read.
func partialSuccess(ctype string, data []byte) error {
	if len(data) == 0 {
		return nil
	}
	var resp coltracepb.ExportTraceServiceResponse
	switch ctype {
	case "application/x-protobuf":
		if err := proto.Unmarshal(data, &resp); err != nil {
			return fmt.Errorf("OTLP response: %w", err)
		}
	case "application/json":
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, &resp); err != nil {
			return fmt.Errorf("OTLP response: %w", err)
		}
	default:
		return nil
	}
	ps := resp.GetPartialSuccess()
	if n, msg := ps.GetRejectedSpans(), ps.GetErrorMessage(); n != 0 || msg != "" {
		return fmt.Errorf("OTLP partial success: %s (%d spans rejected)", msg, n)
	}
	return nil
}
