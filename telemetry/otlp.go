package telemetry

import (
	"context"
	"encoding/base64"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// otlpExporter sends spans to an OTLP/HTTP collector: the upstream
// exporter (otlptrace, which turns the SDK's spans into OTLP protobuf)
// over co's client (otlpClient), configured from co's reading of the
// standard OTEL_EXPORTER_OTLP_* variables (otlpConfigFromEnv, which takes
// them from Options.Getenv and reports bad values as warnings, in co's
// words). The variables are read once, there: the client is co's because
// otlptracehttp reads them again from the process on its own, whatever
// options it is given, and logs a bad value to stderr, over the chat.
// co's filter, which redacts secrets and strips content, runs before it
// (Setup).
//
// After Shutdown, ExportSpans drops the spans and returns nil.
type otlpExporter struct {
	exp       sdktrace.SpanExporter
	timeout   time.Duration
	transport *http.Transport
	stopped   atomic.Bool
}

// otlpRetry is how a 429, 502, 503 or 504 (or a temporary network error)
// is retried: an exponential backoff from initial, ×1.5 a retry up to max,
// each wait randomised ±50 %, or the Retry-After the collector asks for if
// longer, until maxElapsed (or the export's timeout, if shorter). These are
// otlptracehttp's rules (its internal/retry over cenkalti/backoff, v1.47.0)
// and the OTLP specification's: https://opentelemetry.io/docs/specs/otlp/#failures-1
var otlpRetry = struct{ initial, max, maxElapsed time.Duration }{time.Second, 8 * time.Second, time.Minute}

// newOTLPExporter configures an exporter from the OTEL_EXPORTER_OTLP_*
// variables read with getenv. The warnings are values it ignored; an error
// means it cannot export.
func newOTLPExporter(getenv func(string) string, version string) (*otlpExporter, []string, error) {
	return newOTLPExporterOver(getenv, version, nil)
}

// newOTLPExporterOver is newOTLPExporter sending its requests through base
// instead of a network transport of its own when base is not nil: tests
// run the exporter and an http.Handler in one testing/synctest bubble,
// where retries and timeouts take no real time.
func newOTLPExporterOver(getenv func(string) string, version string, base http.RoundTripper) (*otlpExporter, []string, error) {
	cfg, warnings, err := otlpConfigFromEnv(getenv, os.ReadFile)
	if err != nil {
		return nil, warnings, err
	}
	if version == "" {
		version = "dev"
	}
	u, err := url.Parse(cfg.url)
	if err != nil { // otlpConfigFromEnv made it
		return nil, warnings, err
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
	var next http.RoundTripper = tr
	if base != nil {
		next = base
	}
	headers := http.Header{}
	headers.Set("User-Agent", "co/"+version+" (OTLP/HTTP trace exporter)")
	for k, v := range cfg.headers {
		headers.Set(k, v)
	}
	headers.Set("Content-Type", "application/x-protobuf")
	if cfg.gzip {
		headers.Set("Content-Encoding", "gzip")
	}
	// The request's URL has neither the query nor the user:password: an
	// error of net/http names the URL, and these may hold a credential.
	// endpointTransport puts them back on the request.
	bare := *u
	bare.User, bare.RawQuery, bare.ForceQuery = nil, "", false
	c := &otlpClient{
		url:     bare.String(),
		shown:   cfg.shown,
		headers: headers,
		gzip:    cfg.gzip,
		retry:   otlpRetry,
		// No redirect is followed: net/http would carry headers such as
		// an API key (all but Authorization and cookies) and the spans to
		// whatever host the answer names.
		http: &http.Client{
			Transport:     &endpointTransport{next: next, rawQuery: u.RawQuery, user: u.User},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	if cfg.timeout > 0 {
		c.retry.maxElapsed = min(c.retry.maxElapsed, cfg.timeout)
	}
	c.stopCtx, c.stop = context.WithCancel(context.Background())
	exp, err := otlptrace.New(context.Background(), c)
	if err != nil {
		return nil, warnings, err
	}
	return &otlpExporter{exp: exp, timeout: cfg.timeout, transport: tr}, warnings, nil
}

// ExportSpans implements sdktrace.SpanExporter.
func (e *otlpExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if e.stopped.Load() || len(spans) == 0 {
		return nil
	}
	if e.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.timeout)
		defer cancel()
	}
	return e.exp.ExportSpans(ctx, spans)
}

// Shutdown implements sdktrace.SpanExporter: exports under way are
// interrupted and later ones dropped.
func (e *otlpExporter) Shutdown(ctx context.Context) error {
	e.stopped.Store(true)
	err := e.exp.Shutdown(ctx)
	e.transport.CloseIdleConnections()
	return err
}

// endpointTransport adds to each request what otlpClient leaves out of
// the URL it requests, so that net/http's errors, which name that URL,
// never show them: the endpoint's query, and its user:password as Basic
// auth (as net/http does for a URL with credentials) unless the headers
// carry an Authorization.
type endpointTransport struct {
	next     http.RoundTripper
	rawQuery string
	user     *url.Userinfo
}

func (t *endpointTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.rawQuery == "" && t.user == nil {
		return t.next.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	if t.rawQuery != "" {
		r.URL.RawQuery = t.rawQuery
	}
	if t.user != nil && r.Header.Get("Authorization") == "" {
		pw, _ := t.user.Password()
		r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(t.user.Username()+":"+pw)))
	}
	return t.next.RoundTrip(r)
}

var _ sdktrace.SpanExporter = (*otlpExporter)(nil)
