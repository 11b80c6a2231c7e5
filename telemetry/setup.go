package telemetry

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// ServiceName is the service.name of co's spans.
const ServiceName = "co-cli"

// ExportContentEnv, set to true, lets prompt and response text, tool
// arguments and results go to a remote (OTLP) collector. Without it they
// are stripped from what is sent there (they stay in the local store when
// telemetry_capture_content is on).
const ExportContentEnv = "CO_CLI_TELEMETRY_EXPORT_CONTENT"

// DefaultBatchTimeout is how long a span may wait in the batch before it is
// written: what a killed co loses at most, and most of the delay before co
// tail sees a span.
const DefaultBatchTimeout = 500 * time.Millisecond

// The batch queue holds this many spans before it drops (a turn makes a
// handful; only a store that cannot be written fills it); a batch is at
// most maxBatch spans, one transaction.
const (
	maxQueue = 16384
	maxBatch = 2048
)

// Options configure Setup.
type Options struct {
	// DBPath is the SQLite store (see DBPath). Required.
	DBPath         string
	ServiceVersion string
	SessionID      string
	// Secrets are redacted by value wherever they appear (config
	// Settings.Secrets()).
	Secrets []string
	// CaptureContent keeps prompt/response text, tool arguments and results
	// in the local store (telemetry_capture_content).
	CaptureContent bool
	Retention      Retention
	// Getenv reads the OTEL_* and CO_CLI_TELEMETRY_EXPORT_CONTENT variables,
	// the OTLP exporter's included; nil means os.Getenv.
	Getenv func(string) string
	// BatchTimeout defaults to DefaultBatchTimeout.
	BatchTimeout time.Duration
	// NoPrune skips the background pruning (tests, benchmarks).
	NoPrune bool
	// OpenAfter delays the background opening of the database (created
	// and migrated at a first start), so that it does not compete with
	// the full-screen chat's first frame (issue 44); the first batch
	// exported, or Shutdown, opens it sooner.
	OpenAfter time.Duration
}

// Tracing is a session's telemetry: the TracerProvider with the SQLite
// exporter (and OTLP when configured) behind batch processors, and the Feed
// for the side panel.
type Tracing struct {
	red      *Redactor // the store's and the OTLP export's
	tp       *sdktrace.TracerProvider
	feed     *Feed
	exporter *Exporter
	local    *processor
	otlp     bool
	warnings []string

	cancelBg context.CancelFunc
	bgDone   chan struct{}

	errMu   sync.Mutex
	lastErr error
	errs    int
}

// Setup builds the session's tracing. It does no I/O on the caller's path:
// the database is opened, migrated and pruned in the background, and the
// exporter waits for that on its first batch.
func Setup(opts Options) (*Tracing, error) {
	if opts.DBPath == "" {
		return nil, errors.New("telemetry: no database path")
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if opts.BatchTimeout <= 0 {
		opts.BatchTimeout = DefaultBatchTimeout
	}
	t := &Tracing{feed: NewFeed(), exporter: NewExporter(opts.DBPath), bgDone: make(chan struct{})}
	red := NewRedactor(opts.Secrets)
	t.red = red

	res := resource.NewWithAttributes("",
		attribute.String("service.name", ServiceName),
		attribute.String("service.version", opts.ServiceVersion),
		attribute.String("session.id", opts.SessionID),
	)
	local := &filterExporter{next: t.exporter, f: spanFilter{redactor: red, keepContent: opts.CaptureContent, maxValueLen: DefaultMaxValueLen}}
	t.local = newProcessor(local, t.Handle, opts.BatchTimeout, maxQueue, maxBatch)
	popts := []sdktrace.TracerProviderOption{
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithSpanProcessor(t.feed),
		sdktrace.WithSpanProcessor(t.local),
	}
	if otlpWanted(getenv) {
		exp, warnings, err := newOTLPExporter(getenv, opts.ServiceVersion)
		t.warnings = append(t.warnings, warnings...)
		if err != nil {
			t.warnings = append(t.warnings, "OTLP export is off: "+err.Error())
		} else {
			t.warnings = append(t.warnings, protocolWarnings(getenv)...)
			keep := strings.EqualFold(getenv(ExportContentEnv), "true") || getenv(ExportContentEnv) == "1"
			remote := &filterExporter{next: exp, f: spanFilter{redactor: red, keepContent: keep && opts.CaptureContent, maxValueLen: DefaultMaxValueLen}}
			popts = append(popts, sdktrace.WithSpanProcessor(newProcessor(remote, t.Handle, opts.BatchTimeout, maxQueue, 512)))
			t.otlp = true
		}
	}
	t.tp = sdktrace.NewTracerProvider(popts...)

	ctx, cancel := context.WithCancel(context.Background())
	t.cancelBg = cancel
	go func() {
		defer close(t.bgDone)
		if opts.OpenAfter > 0 {
			wait := time.NewTimer(opts.OpenAfter)
			select {
			case <-wait.C:
			case <-ctx.Done(): // Shutdown: open now, for its flush
				wait.Stop()
			}
		}
		// Not cancelled by Shutdown: the flush needs the database open.
		db, err := t.exporter.Open(context.Background())
		if err != nil {
			t.Handle(err)
			return
		}
		if opts.NoPrune {
			return
		}
		if _, err := Prune(ctx, db, opts.Retention, time.Now()); err != nil && ctx.Err() == nil {
			t.Handle(err)
		}
	}()
	return t, nil
}

// otlpWanted: the standard variables name an endpoint and do not turn
// traces off.
// OTLPWarnings are the warnings Setup gives about the OTEL_EXPORTER_OTLP_*
// settings (an unsupported protocol, an unreadable certificate, …),
// without setting anything up: for co status, which exports nothing.
// getenv is os.Getenv when nil.
func OTLPWarnings(getenv func(string) string) []string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if !otlpWanted(getenv) {
		return nil
	}
	_, warnings, err := otlpConfigFromEnv(getenv, os.ReadFile)
	if err != nil {
		return append(warnings, "OTLP export is off: "+err.Error())
	}
	return append(warnings, protocolWarnings(getenv)...)
}

// protocolWarnings: co sends HTTP/protobuf whatever the protocol setting.
func protocolWarnings(getenv func(string) string) []string {
	switch p := strings.ToLower(strings.TrimSpace(firstNonEmpty(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), getenv("OTEL_EXPORTER_OTLP_PROTOCOL")))); p {
	case "", "http/protobuf":
		return nil
	case "grpc":
		return []string{"OTLP over gRPC is not supported; spans are sent as HTTP/protobuf"}
	case "http/json":
		return []string{"OTLP http/json is not supported; spans are sent as HTTP/protobuf"}
	default:
		return []string{"OTLP protocol " + strconv.Quote(p) + " is unknown; spans are sent as HTTP/protobuf"}
	}
}

func otlpWanted(getenv func(string) string) bool {
	if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return false
	}
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return false
	}
	for _, e := range strings.Split(getenv("OTEL_TRACES_EXPORTER"), ",") {
		if strings.TrimSpace(e) == "none" {
			return false
		}
	}
	return true
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// Tracer is the tracer the agent uses.
func (t *Tracing) Tracer() trace.Tracer {
	return t.tp.Tracer("github.com/co-cli/co")
}

// Provider is the TracerProvider (for other packages' instrumentation).
func (t *Tracing) Provider() trace.TracerProvider { return t.tp }

// Feed is the live span feed for the side panel.
func (t *Tracing) Feed() *Feed { return t.feed }

// DBPath is the store's file.
func (t *Tracing) DBPath() string { return t.exporter.Path() }

// OTLP reports whether spans also go to an OTLP collector.
func (t *Tracing) OTLP() bool { return t.otlp }

// Warnings are set-up problems worth telling the user (once).
func (t *Tracing) Warnings() []string { return t.warnings }

// Handle records an error of the telemetry pipeline (export failures and
// the like); set it as OpenTelemetry's error handler so nothing is printed
// over the chat.
func (t *Tracing) Handle(err error) {
	if err == nil {
		return
	}
	t.errMu.Lock()
	t.lastErr = err
	t.errs++
	t.errMu.Unlock()
}

// Errs returns how many pipeline errors there were and the last one.
func (t *Tracing) Errs() (int, error) {
	t.errMu.Lock()
	defer t.errMu.Unlock()
	return t.errs, t.lastErr
}

// Dropped is the number of spans the local store lost because its queue
// was full.
func (t *Tracing) Dropped() int64 { return t.local.Dropped() }

// Shutdown flushes the spans still in the batch to the store (and the
// collector) and closes it. Background pruning is cancelled.
func (t *Tracing) Shutdown(ctx context.Context) error {
	t.cancelBg()
	select {
	case <-t.bgDone: // pruning stops after its current chunk
	case <-ctx.Done():
	}
	return t.tp.Shutdown(ctx)
}

// ForceFlush writes the spans in the batch now.
func (t *Tracing) ForceFlush(ctx context.Context) error { return t.tp.ForceFlush(ctx) }

// AddSecrets redacts more values from the spans exported from now on (the
// store's and OTLP's): a key the user gave after start-up (the chat's
// first-run setup).
func (t *Tracing) AddSecrets(secrets ...string) {
	if t != nil {
		t.red.Add(secrets...)
	}
}
