package main

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/co-cli/co/telemetry"
)

// tracing is the session's telemetry: the tracer the agent uses, the live
// feed for the side panel, and how to flush and stop it.
type tracing struct {
	tracer   trace.Tracer
	feed     *telemetry.Feed
	shutdown func()
	// t is nil when telemetry could not be set up (then tracer is a no-op).
	t *telemetry.Tracing
}

// setupTelemetry starts the session's tracing. It must not block start-up:
// telemetry.Setup does no I/O here; the store is opened, migrated and
// pruned in the background, and the first batch waits for that.
func (ss *session) setupTelemetry(ctx context.Context) tracing {
	st := ss.loaded.Settings
	t, err := telemetry.Setup(telemetry.Options{
		DBPath:         telemetry.DBPath(ss.loaded.Paths.DataDir),
		ServiceVersion: version,
		SessionID:      ss.id,
		Secrets:        st.Secrets(),
		CaptureContent: st.TelemetryCaptureContent,
		Retention:      telemetry.Retention{Days: st.TelemetryRetentionDays, MaxMB: st.TelemetryMaxMB},
	})
	if err != nil {
		return tracing{tracer: noop.NewTracerProvider().Tracer("co"), feed: telemetry.NewFeed(), shutdown: func() {}}
	}
	// Export failures are kept for /status, never printed over the chat.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(t.Handle))
	// otlptracehttp reads the OTEL_EXPORTER_OTLP_* variables again and logs
	// a bad one to stderr, over the chat; co has already read them and
	// shows its warnings in /status.
	otel.SetLogger(logr.Discard())
	return tracing{
		tracer: t.Tracer(),
		feed:   t.Feed(),
		t:      t,
		shutdown: func() {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = t.Shutdown(ctx)
		},
	}
}
