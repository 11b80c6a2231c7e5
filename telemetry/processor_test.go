package telemetry

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// recorder is an exporter that keeps batch sizes, can be held, and can
// fail.
type recorder struct {
	mu      sync.Mutex
	batches []int
	hold    chan struct{} // when set, ExportSpans waits for it to close
	fail    error
	shut    bool
}

func (r *recorder) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	if r.hold != nil {
		<-r.hold
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, len(spans))
	return r.fail
}

func (r *recorder) Shutdown(context.Context) error {
	r.mu.Lock()
	r.shut = true
	r.mu.Unlock()
	return nil
}

func (r *recorder) total() (n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range r.batches {
		n += b
	}
	return n
}

func ended(t *testing.T, n int) []sdktrace.ReadOnlySpan {
	t.Helper()
	tp := sdktrace.NewTracerProvider()
	rec := &spanCollector{}
	tp.RegisterSpanProcessor(rec)
	for i := 0; i < n; i++ {
		_, s := tp.Tracer("t").Start(context.Background(), "s")
		s.End()
	}
	return rec.spans
}

type spanCollector struct{ spans []sdktrace.ReadOnlySpan }

func (c *spanCollector) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c *spanCollector) OnEnd(s sdktrace.ReadOnlySpan)                   { c.spans = append(c.spans, s) }
func (c *spanCollector) Shutdown(context.Context) error                  { return nil }
func (c *spanCollector) ForceFlush(context.Context) error                { return nil }

// TestProcessorDropsWhenFullAndFlushesOnShutdown: with the exporter stuck,
// OnEnd never blocks (a blocked OnEnd would hang the test, and go test's
// -timeout would show where), exactly maxQueue spans wait (those in the
// stuck batch included) and the rest are dropped and counted; Shutdown
// exports what waits and shuts the exporter down. No clock is involved:
// a span counts as waiting until its export returns, which the held
// exporter does only when released.
func TestProcessorDropsWhenFullAndFlushesOnShutdown(t *testing.T) {
	spans := ended(t, 20)
	rec := &recorder{hold: make(chan struct{})}
	p := newProcessor(rec, func(err error) { t.Error(err) }, time.Hour, 5, 5)
	for _, s := range spans {
		p.OnEnd(s)
	}
	if got := p.Dropped(); got != 15 {
		t.Errorf("dropped %d, want 15 (a queue of 5)", got)
	}
	close(rec.hold)
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	batches, shut := slices.Clone(rec.batches), rec.shut
	rec.mu.Unlock()
	if n := rec.total(); n != 5 || !shut {
		t.Errorf("after shutdown: batches %v (want 5 spans), exporter shut %v", batches, shut)
	}
	p.OnEnd(spans[0]) // after shutdown: dropped, no panic
	if got := p.Dropped(); got != 16 {
		t.Errorf("dropped %d after shutdown, want 16", got)
	}
	if err := p.ForceFlush(context.Background()); err != nil {
		t.Errorf("ForceFlush after shutdown: %v", err)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Errorf("second shutdown: %v", err)
	}
}

// TestProcessorExportsInBatchesAndFreesTheQueue: a queue longer than a
// batch goes out in batches of at most maxBatch, and exported spans free
// their room: after a flush, maxQueue more are taken without a drop.
func TestProcessorExportsInBatchesAndFreesTheQueue(t *testing.T) {
	spans := ended(t, 12)
	rec := &recorder{}
	p := newProcessor(rec, func(err error) { t.Error(err) }, time.Hour, 12, 5)
	defer func() { _ = p.Shutdown(context.Background()) }()
	for round := 1; round <= 3; round++ {
		for _, s := range spans {
			p.OnEnd(s)
		}
		if err := p.ForceFlush(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n, d := rec.total(), p.Dropped(); n != 12*round || d != 0 {
			t.Fatalf("round %d: %d exported, %d dropped; want %d and 0", round, n, d, 12*round)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, b := range rec.batches {
		if b > 5 {
			t.Errorf("batches %v: one is over maxBatch (5)", rec.batches)
		}
	}
}

// TestProcessorErrorsGoToOnErr: a failed export reaches onErr (Tracing.Handle,
// for /status) and not OpenTelemetry's global handler, which prints to
// stderr over the chat.
func TestProcessorErrorsGoToOnErr(t *testing.T) {
	var global []error
	var mu sync.Mutex
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { mu.Lock(); global = append(global, err); mu.Unlock() }))
	defer otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {}))
	boom := errors.New("disk full")
	var got []error
	rec := &recorder{fail: boom}
	p := newProcessor(rec, func(err error) { mu.Lock(); got = append(got, err); mu.Unlock() }, time.Hour, 10, 10)
	for _, s := range ended(t, 3) {
		p.OnEnd(s)
	}
	if err := p.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || !errors.Is(got[0], boom) {
		t.Errorf("onErr got %v, want the one export error", got)
	}
	if len(global) != 0 {
		t.Errorf("the global handler got %v", global)
	}
}
