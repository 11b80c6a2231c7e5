package telemetry

import (
	"context"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// processor is the SDK's BatchSpanProcessor in front of an exporter (the
// store's, OTLP's), with two things around it that co needs: the queue's
// bound is kept here, so that the spans dropped because it is full are
// counted (Dropped, shown by co status; the SDK does not say how many):
// every span not yet exported counts against maxQueue, so the SDK's own
// queue, of the same size, never fills; and export errors go to onErr
// (Tracing.Handle, for /status), never to OpenTelemetry's global handler,
// which prints to stderr. A full queue drops spans rather than block the
// agent. Why the SDK's processor and not co's own batcher: the figures in
// telemetry/README.md, "Figures". The side panel's feed is another
// processor (Feed), called as a span starts and ends.
type processor struct {
	sdktrace.SpanProcessor
	maxQueue int64
	pending  atomic.Int64 // ended and not yet exported
	dropped  atomic.Int64
	stopped  atomic.Bool
}

func newProcessor(exp sdktrace.SpanExporter, onErr func(error), timeout time.Duration, maxQueue, maxBatch int) *processor {
	p := &processor{maxQueue: int64(maxQueue)}
	p.SpanProcessor = sdktrace.NewBatchSpanProcessor(&countedExporter{next: exp, p: p, onErr: onErr},
		sdktrace.WithBatchTimeout(timeout), sdktrace.WithMaxQueueSize(maxQueue), sdktrace.WithMaxExportBatchSize(maxBatch))
	return p
}

// OnEnd implements sdktrace.SpanProcessor: the span is queued, or dropped
// and counted when maxQueue spans are waiting or after Shutdown.
func (p *processor) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	if p.stopped.Load() {
		p.dropped.Add(1)
		return
	}
	if p.pending.Add(1) > p.maxQueue {
		p.pending.Add(-1)
		p.dropped.Add(1)
		return
	}
	p.SpanProcessor.OnEnd(s)
}

// Shutdown implements sdktrace.SpanProcessor: what is queued is exported,
// then the exporter is shut down; spans ended later are dropped.
func (p *processor) Shutdown(ctx context.Context) error {
	p.stopped.Store(true)
	return p.SpanProcessor.Shutdown(ctx)
}

// Dropped is the number of spans dropped because the queue was full (or
// ended after Shutdown).
func (p *processor) Dropped() int64 { return p.dropped.Load() }

// countedExporter hands a batch to next, then counts its spans out of
// pending; an error goes to onErr and the SDK is told the export went
// well (it would hand the error to the global handler).
type countedExporter struct {
	next  sdktrace.SpanExporter
	p     *processor
	onErr func(error)
}

func (e *countedExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.next.ExportSpans(ctx, spans)
	e.p.pending.Add(-int64(len(spans)))
	if err != nil {
		e.onErr(err)
	}
	return nil
}

func (e *countedExporter) Shutdown(ctx context.Context) error { return e.next.Shutdown(ctx) }
