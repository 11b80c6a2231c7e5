package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/co-cli/co/internal/retryafter"
)

// otlpExporter sends spans to an OTLP/HTTP collector as binary protobuf.
// It is co's own rather than otlptracehttp, whose configuration package
// imports gRPC (and gRPC golang.org/x/net/trace, whose html/template turns
// off the linker's dead-code elimination for the whole binary) and whose
// generated types link the protobuf reflection runtime. It reads the same
// standard variables (otlpConfigFromEnv) and sends the same request.
//
// A batch that gets 429, 502, 503 or 504 is sent again after an exponential
// backoff, or after Retry-After when that is longer, until the export's
// timeout; any other failure is an error naming the status and what the
// collector said. A partial success is an error with the rejected count.
//
// Concurrency: ExportSpans may be called from several goroutines (the
// batcher calls it from one); Shutdown interrupts an export under way.
type otlpExporter struct {
	cfg       otlpConfig
	userAgent string
	client    *http.Client
	transport *http.Transport

	// retryBase is the first backoff, doubled each retry up to retryMax.
	retryBase, retryMax time.Duration

	sizeHint atomic.Int64 // the last request's size, to size the next
	gzips    sync.Pool    // *gzip.Writer
	stopped  atomic.Bool
	stop     chan struct{}
	stopOnce sync.Once
}

const (
	otlpMaxAttempts     = 8
	otlpMaxRetryTime    = time.Minute // when there is no deadline
	otlpMaxResponseSize = 4 << 20     // as otlptracehttp
	otlpBodySnippet     = 256         // bytes of an error body in a message
)

// newOTLPExporter configures an exporter from the OTEL_EXPORTER_OTLP_*
// variables read with getenv. The warnings are values it ignored; an error
// means it cannot export.
func newOTLPExporter(getenv func(string) string, version string) (*otlpExporter, []string, error) {
	cfg, warnings, err := otlpConfigFromEnv(getenv, os.ReadFile)
	if err != nil {
		return nil, warnings, err
	}
	if version == "" {
		version = "dev"
	}
	// http.DefaultTransport's settings, on a transport of our own so the
	// TLS configuration and idle connections are the exporter's.
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          10,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 1 * time.Second,
		TLSClientConfig:       cfg.tls,
	}
	return &otlpExporter{
		cfg:       cfg,
		userAgent: "co/" + version + " (OTLP/HTTP trace exporter)",
		// A redirect is an error, not followed: net/http would carry
		// headers such as an API key (all but Authorization and cookies)
		// and the spans to whatever host the answer names.
		client:    &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		transport: tr,
		retryBase: time.Second,
		retryMax:  8 * time.Second,
		stop:      make(chan struct{}),
	}, warnings, nil
}

// ExportSpans implements sdktrace.SpanExporter. After Shutdown it drops
// the spans and returns nil (otlptracehttp drops them too, with a "context
// canceled" error).
func (e *otlpExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if e.stopped.Load() {
		return nil
	}
	body := appendTraceRequest(make([]byte, 0, e.sizeHint.Load()), spans)
	if len(body) == 0 {
		return nil
	}
	e.sizeHint.Store(int64(len(body)))
	encoding := ""
	if e.cfg.gzip {
		var err error
		if body, err = e.compress(body); err != nil {
			return err
		}
		encoding = "gzip"
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := ctx.Done()
	go func() { // Shutdown interrupts the export
		select {
		case <-e.stop:
			cancel()
		case <-done:
		}
	}()
	if e.cfg.timeout > 0 {
		var cancelT context.CancelFunc
		ctx, cancelT = context.WithTimeout(ctx, e.cfg.timeout)
		defer cancelT()
	}
	return e.send(ctx, body, encoding)
}

// compress gzips body. The writers are pooled: each holds about a
// megabyte of compressor state.
func (e *otlpExporter) compress(body []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(body) / 4)
	zw, _ := e.gzips.Get().(*gzip.Writer)
	if zw == nil {
		zw = gzip.NewWriter(&buf)
	} else {
		zw.Reset(&buf)
	}
	defer e.gzips.Put(zw)
	if _, err := zw.Write(body); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// send posts body, again while the collector asks for a retry and the
// deadline allows.
func (e *otlpExporter) send(ctx context.Context, body []byte, encoding string) error {
	// Without a deadline (OTEL_EXPORTER_OTLP_TIMEOUT=0 and none from the
	// caller), retries stop after a minute, as otlptracehttp's.
	limit := time.Now().Add(otlpMaxRetryTime)
	if dl, ok := ctx.Deadline(); ok {
		limit = dl
	}
	for attempt := 0; ; attempt++ {
		retryAfter, err := e.post(ctx, body, encoding)
		if err == nil || retryAfter < 0 {
			return err
		}
		if attempt+1 == otlpMaxAttempts {
			return fmt.Errorf("%w (gave up after %d attempts)", err, otlpMaxAttempts)
		}
		delay := max(e.backoff(attempt), retryAfter)
		if time.Until(limit) < delay {
			return fmt.Errorf("%w (not retried: the next attempt, in %s, would be past the export's timeout)", err, delay.Round(time.Millisecond))
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (retry abandoned: %w)", err, context.Cause(ctx))
		case <-t.C:
		}
	}
}

// backoff is the wait before retry n+1: retryBase doubled n times, at most
// retryMax, with ±50 % jitter.
func (e *otlpExporter) backoff(n int) time.Duration {
	d := e.retryMax
	if n < 30 {
		d = min(e.retryBase<<n, e.retryMax)
	}
	return d/2 + rand.N(d+1)
}

// post sends one request. retryAfter is how long to wait before trying
// again when the failure is retryable (0: the backoff decides), -1 when it
// is not (or there was none).
func (e *otlpExporter) post(ctx context.Context, body []byte, encoding string) (retryAfter time.Duration, _ error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.cfg.url, bytes.NewReader(body))
	if err != nil {
		return -1, fmt.Errorf("OTLP export: %w", err)
	}
	// As otlptracehttp: the configured headers may replace the User-Agent,
	// never the Content-Type.
	req.Header.Set("User-Agent", e.userAgent)
	for k, v := range e.cfg.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return -1, fmt.Errorf("OTLP export: %w", err)
	}
	defer resp.Body.Close()
	data, readErr := io.ReadAll(io.LimitReader(resp.Body, otlpMaxResponseSize+1))
	if readErr == nil && len(data) > otlpMaxResponseSize {
		readErr = fmt.Errorf("response body over %d bytes", otlpMaxResponseSize)
	}
	ctype, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))

	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		if readErr != nil {
			return -1, fmt.Errorf("OTLP export to %s: reading the response: %w", e.cfg.shown, readErr)
		}
		return -1, partialSuccess(ctype, data)
	}
	err = fmt.Errorf("OTLP export to %s: %s: %s", e.cfg.shown, resp.Status, errorBody(ctype, data))
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		wait, _ := retryafter.Parse(resp.Header.Get("Retry-After"), time.Now())
		return wait, err
	}
	return -1, err
}

// partialSuccess reads an ExportTraceServiceResponse; a partial_success
// with rejected spans or a message is an error.
func partialSuccess(ctype string, data []byte) error {
	rejected, msg := parsePartialSuccess(ctype, data)
	if rejected == 0 && msg == "" {
		return nil
	}
	if msg == "" {
		msg = "no message"
	}
	return fmt.Errorf("OTLP partial success: %d spans rejected: %s", rejected, msg)
}

// parsePartialSuccess returns the partial_success of a response in
// protobuf or JSON; zero values for another type or a malformed body.
func parsePartialSuccess(ctype string, data []byte) (rejected int64, msg string) {
	switch ctype {
	case "application/x-protobuf":
		ps := protoMessage(data, 1)          // partial_success
		if v, ok := protoVarint(ps, 1); ok { // rejected_spans
			rejected = int64(v)
		}
		if v, ok := protoBytes(ps, 2); ok { // error_message
			msg = string(v)
		}
	case "application/json":
		var r struct {
			PartialSuccess struct {
				RejectedSpans jsonInt64 `json:"rejectedSpans"`
				ErrorMessage  string    `json:"errorMessage"`
			} `json:"partialSuccess"`
		}
		if json.Unmarshal(data, &r) == nil {
			rejected, msg = int64(r.PartialSuccess.RejectedSpans), r.PartialSuccess.ErrorMessage
		}
	}
	return rejected, msg
}

// jsonInt64 is an int64 of OTLP JSON: a string, or a number.
type jsonInt64 int64

func (n *jsonInt64) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseInt(strings.Trim(string(b), `"`), 10, 64)
	*n = jsonInt64(v)
	return err
}

// errorBody is what a failed response says: a google.rpc.Status's message
// for protobuf, else the start of the text.
func errorBody(ctype string, data []byte) string {
	if ctype == "application/x-protobuf" {
		if m, ok := protoBytes(data, 2); ok && utf8.Valid(m) { // google.rpc.Status.message
			data = m
		}
	}
	s := strings.TrimSpace(string(data))
	if s == "" {
		return "(empty body)"
	}
	if len(s) > otlpBodySnippet {
		cut := otlpBodySnippet
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
}

// protoField returns the value of the last field num of type typ in a
// message (the last wins, as for any singular field): for BytesType with
// its length prefix, for VarintType the varint. ok is false when there is
// none or the message is malformed.
func protoField(b []byte, num protowire.Number, typ protowire.Type) (v []byte, ok bool) {
	for len(b) > 0 {
		n, t, l := protowire.ConsumeTag(b)
		if l < 0 {
			return nil, false
		}
		b = b[l:]
		if l = protowire.ConsumeFieldValue(n, t, b); l < 0 {
			return nil, false
		}
		if n == num && t == typ {
			v, ok = b[:l], true
		}
		b = b[l:]
	}
	return v, ok
}

// protoMessage returns the embedded message field num: its occurrences
// concatenated, which is how protobuf merges them.
func protoMessage(b []byte, num protowire.Number) []byte {
	var out []byte
	for len(b) > 0 {
		n, t, l := protowire.ConsumeTag(b)
		if l < 0 {
			return nil
		}
		b = b[l:]
		if l = protowire.ConsumeFieldValue(n, t, b); l < 0 {
			return nil
		}
		if n == num && t == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b[:l])
			out = append(out, v...)
		}
		b = b[l:]
	}
	return out
}

// protoBytes and protoVarint read a field of those types (see protoField).
func protoBytes(b []byte, num protowire.Number) ([]byte, bool) {
	v, ok := protoField(b, num, protowire.BytesType)
	if !ok {
		return nil, false
	}
	v, _ = protowire.ConsumeBytes(v)
	return v, true
}

func protoVarint(b []byte, num protowire.Number) (uint64, bool) {
	v, ok := protoField(b, num, protowire.VarintType)
	if !ok {
		return 0, false
	}
	x, _ := protowire.ConsumeVarint(v)
	return x, true
}

// Shutdown implements sdktrace.SpanExporter: exports under way are
// interrupted and later ones dropped.
func (e *otlpExporter) Shutdown(ctx context.Context) error {
	e.stopOnce.Do(func() {
		e.stopped.Store(true)
		close(e.stop)
		e.transport.CloseIdleConnections()
	})
	return ctx.Err()
}

var _ sdktrace.SpanExporter = (*otlpExporter)(nil)
