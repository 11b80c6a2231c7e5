package telemetry

import (
	"context"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// recorder is an exporter that keeps batch sizes and can be held.
type recorder struct {
	mu      sync.Mutex
	batches []int
	hold    chan struct{} // when set, ExportSpans waits for it to close
	shut    bool
}

func (r *recorder) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	if r.hold != nil {
		<-r.hold
	}
	r.mu.Lock()
	r.batches = append(r.batches, len(spans))
	r.mu.Unlock()
	return nil
}

func (r *recorder) Shutdown(context.Context) error {
	r.mu.Lock()
	r.shut = true
	r.mu.Unlock()
	return nil
}

func (r *recorder) total() (n, batches int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range r.batches {
		n += b
	}
	return n, len(r.batches)
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

func TestBatcherExportsAfterTheTimeoutOrAFullBatch(t *testing.T) {
	rec := &recorder{}
	b := newBatcher(rec, func(error) {}, 50*time.Millisecond, 100, 10)
	defer b.Shutdown(context.Background())
	spans := ended(t, 25)
	for _, s := range spans[:3] {
		b.OnEnd(s)
	}
	if n, _ := rec.total(); n != 0 {
		t.Fatalf("exported %d before the timeout", n)
	}
	time.Sleep(200 * time.Millisecond)
	if n, k := rec.total(); n != 3 || k != 1 {
		t.Fatalf("after the timeout: %d spans in %d batches, want 3 in 1", n, k)
	}
	for _, s := range spans[3:] { // 22 more: two full batches, then 2 waiting
		b.OnEnd(s)
	}
	deadline := time.Now().Add(40 * time.Millisecond) // well before the timeout
	for n, _ := rec.total(); n < 23 && time.Now().Before(deadline); n, _ = rec.total() {
		time.Sleep(time.Millisecond)
	}
	if n, _ := rec.total(); n < 23 {
		t.Errorf("full batches were not exported at once: %d", n)
	}
	if err := b.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n, _ := rec.total(); n != 25 {
		t.Errorf("after ForceFlush: %d, want 25", n)
	}
	for _, size := range rec.batches {
		if size > 10 {
			t.Errorf("a batch of %d, max 10", size)
		}
	}
}

func TestBatcherDropsWhenFullAndFlushesOnShutdown(t *testing.T) {
	rec := &recorder{hold: make(chan struct{})}
	b := newBatcher(rec, func(error) {}, time.Millisecond, 5, 5)
	spans := ended(t, 20)
	b.OnEnd(spans[0])
	time.Sleep(20 * time.Millisecond) // the exporter is now stuck on span 0
	start := time.Now()
	for _, s := range spans[1:] {
		b.OnEnd(s) // never blocks
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("OnEnd blocked %s on a stuck exporter", d)
	}
	if got := b.Dropped(); got != 14 {
		t.Errorf("dropped %d, want 14 (queue of 5)", got)
	}
	close(rec.hold)
	if err := b.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n, _ := rec.total(); n != 6 || !rec.shut {
		t.Errorf("after shutdown: %d exported (want 6), exporter shut %v", n, rec.shut)
	}
	b.OnEnd(spans[0]) // after shutdown: dropped, no panic
	if err := b.ForceFlush(context.Background()); err != nil {
		t.Errorf("ForceFlush after shutdown: %v", err)
	}
	if err := b.Shutdown(context.Background()); err != nil {
		t.Errorf("second shutdown: %v", err)
	}
}
