package telemetry

import (
	"context"
	"encoding/base64"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// otlpExporter sends spans to an OTLP/HTTP collector through the upstream
// exporter, otlptracehttp, configured from co's reading of the standard
// OTEL_EXPORTER_OTLP_* variables (otlpConfigFromEnv, which takes them from
// Options.Getenv and reports bad values as warnings). co's filter, which
// redacts secrets and strips content, runs before it (Setup).
//
// What co sets on it:
//   - its own HTTP client, which does not follow redirects: net/http would
//     carry headers such as an API key (all but Authorization and cookies)
//     and the spans to whatever host the answer names;
//   - the endpoint's query and user:password (sent as Basic auth), which
//     otlptracehttp drops from the URL it is given;
//   - *_TIMEOUT for one export, retries included (otlptracehttp applies no
//     timeout of its own to a client it is handed);
//   - a User-Agent naming co, which *_HEADERS may replace.
//
// After Shutdown, ExportSpans drops the spans and returns nil.
type otlpExporter struct {
	exp       sdktrace.SpanExporter
	timeout   time.Duration
	transport *http.Transport
	stopped   atomic.Bool
}

// otlpRetry is how a 429, 502, 503 or 504 is retried: an exponential
// backoff from InitialInterval, or the Retry-After the collector asks for,
// until MaxElapsedTime (or the export's timeout, if shorter).
var otlpRetry = otlptracehttp.RetryConfig{
	Enabled:         true,
	InitialInterval: time.Second,
	MaxInterval:     8 * time.Second,
	MaxElapsedTime:  time.Minute,
}

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
	client := &http.Client{
		Transport:     &endpointTransport{next: next, rawQuery: u.RawQuery, user: u.User},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	headers := map[string]string{"User-Agent": "co/" + version + " (OTLP/HTTP trace exporter)"}
	for k, v := range cfg.headers {
		if strings.EqualFold(k, "User-Agent") {
			delete(headers, "User-Agent")
		}
		headers[k] = v
	}
	compression := otlptracehttp.NoCompression
	if cfg.gzip {
		compression = otlptracehttp.GzipCompression
	}
	retry := otlpRetry
	if cfg.timeout > 0 {
		retry.MaxElapsedTime = min(retry.MaxElapsedTime, cfg.timeout)
	}
	// Every setting is given as an option, so none comes from the
	// process's variables, which otlptracehttp reads too.
	opts := []otlptracehttp.Option{
		otlptracehttp.WithEndpointURL(cfg.url),
		otlptracehttp.WithHeaders(headers),
		otlptracehttp.WithCompression(compression),
		otlptracehttp.WithTimeout(cfg.timeout),
		otlptracehttp.WithRetry(retry),
		otlptracehttp.WithHTTPClient(client),
	}
	exp, err := otlptracehttp.New(context.Background(), opts...)
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

// endpointTransport adds to each request what otlptracehttp leaves out of
// the endpoint URL: its query, and its user:password as Basic auth (as
// net/http does for a URL with credentials) unless the headers carry an
// Authorization.
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
