package app

import (
	"context"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/telemetry"
)

// Telemetry is the run's tracing: the tracer the agent uses and the live
// feed for the side panel.
type Telemetry struct {
	Tracer trace.Tracer
	Feed   *telemetry.Feed
	// Tracing is nil when telemetry could not be set up (Tracer is then a
	// no-op) and in report-only runs.
	Tracing *telemetry.Tracing
}

// spanStoreAfter is how long after the chat's start the span store is
// opened (created and migrated at a first start): after the first frame.
const spanStoreAfter = 200 * time.Millisecond

// startTelemetry starts the run's tracing. It must not block start-up:
// telemetry.Setup does no I/O here; the store is opened, migrated and
// pruned in the background, and the first batch waits for that.
func (a *App) startTelemetry(ctx context.Context) {
	if a.opts.ReportOnly {
		a.Telemetry = Telemetry{Tracer: noop.NewTracerProvider().Tracer("co")}
		return
	}
	st := a.Config.Settings
	var after time.Duration
	if a.kind() == sessions.Chat {
		// The chat's first frame first: spans wait in the batch.
		after = spanStoreAfter
	}
	t, err := telemetry.Setup(telemetry.Options{
		OpenAfter:      after,
		DBPath:         SpansPath(a.Config.Paths.DataDir),
		ServiceVersion: a.opts.Version,
		SessionID:      a.SessionID,
		Secrets:        SpanSecrets(a.Config),
		CaptureContent: st.TelemetryCaptureContent,
		Retention:      telemetry.Retention{Days: st.TelemetryRetentionDays, MaxMB: st.TelemetryMaxMB},
	})
	if err != nil {
		a.Telemetry = Telemetry{Tracer: noop.NewTracerProvider().Tracer("co"), Feed: telemetry.NewFeed()}
		return
	}
	// Export failures are kept for /status, never printed over the chat.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(t.Handle))
	a.Telemetry = Telemetry{Tracer: t.Tracer(), Feed: t.Feed(), Tracing: t}
	a.onClose(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = t.Shutdown(ctx)
	})
}
