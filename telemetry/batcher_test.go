package telemetry

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
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

// The batcher tests run in a synctest bubble: the batcher's goroutine and
// timer are started inside it, so its timeout runs on the bubble's fake
// clock, which moves only when every goroutine in the bubble is blocked.
// synctest.Wait returns once the batcher has done all it can without time
// passing; time.Sleep moves the fake clock by exactly that much. Nothing
// here depends on how fast the machine is.

// TestBatcherExportsAfterTheTimeoutOrAFullBatch: a partial batch waits
// exactly the timeout; a full batch goes at once, with no time passing; a
// queue longer than a batch goes out in batches of at most maxBatch.
func TestBatcherExportsAfterTheTimeoutOrAFullBatch(t *testing.T) {
	spans := ended(t, 35)
	synctest.Test(t, func(t *testing.T) {
		const timeout = 50 * time.Millisecond
		rec := &recorder{}
		b := newBatcher(rec, func(error) {}, timeout, 100, 10)
		defer b.Shutdown(context.Background())
		want := func(stage string, n, batches int) {
			t.Helper()
			if gotN, gotB := rec.total(); gotN != n || gotB != batches {
				t.Fatalf("%s: %d spans exported in %d batches, want %d in %d", stage, gotN, gotB, n, batches)
			}
		}

		// A partial batch: nothing until the timeout, then one batch.
		for _, s := range spans[:3] {
			b.OnEnd(s)
		}
		synctest.Wait()
		want("at once, 3 queued", 0, 0)
		time.Sleep(timeout - time.Nanosecond)
		synctest.Wait()
		want("1 ns before the timeout", 0, 0)
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		want("at the timeout", 3, 1)

		// Full batches: exported before any time passes.
		start := time.Now()
		for _, s := range spans[3:13] {
			b.OnEnd(s)
		}
		synctest.Wait()
		want("a full batch", 13, 2)
		for _, s := range spans[13:23] {
			b.OnEnd(s)
		}
		synctest.Wait()
		want("a second full batch", 23, 3)
		if d := time.Since(start); d != 0 {
			t.Fatalf("the full batches waited %s of the timeout", d)
		}

		// The rest of a batch still waits for the timeout, from its first
		// span.
		for _, s := range spans[23:25] {
			b.OnEnd(s)
		}
		synctest.Wait()
		want("2 queued", 23, 3)
		time.Sleep(timeout)
		synctest.Wait()
		want("2 queued, after the timeout", 25, 4)

		// ForceFlush exports what is queued now.
		b.OnEnd(spans[25])
		if err := b.ForceFlush(context.Background()); err != nil {
			t.Fatal(err)
		}
		want("after ForceFlush", 26, 5)
		if d := time.Since(start); d != timeout {
			t.Fatalf("%s passed, want only the one timeout (%s)", d, timeout)
		}

		// More than a batch queued while the exporter is busy: split into
		// batches of at most 10.
		// (The batcher's goroutine is idle and reads hold only after
		// taking b.mu, which the next OnEnd takes after this write.)
		rec.hold = make(chan struct{})
		b.OnEnd(spans[26])
		time.Sleep(timeout)
		synctest.Wait() // the exporter holds span 26
		for _, s := range spans[27:35] {
			b.OnEnd(s)
		}
		for _, s := range spans[:10] { // the same spans again: 18 queued
			b.OnEnd(s)
		}
		close(rec.hold)
		synctest.Wait()
		want("after the exporter is released", 45, 8)
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if got := rec.batches[5:]; !slices.Equal(got, []int{1, 10, 8}) {
			t.Errorf("batches %v after the release, want [1 10 8]", got)
		}
	})
}

// TestBatcherDropsWhenFullAndFlushesOnShutdown: with the exporter stuck,
// OnEnd never blocks, the queue takes exactly maxQueue spans and drops the
// rest; Shutdown exports what is queued and shuts the exporter down.
func TestBatcherDropsWhenFullAndFlushesOnShutdown(t *testing.T) {
	spans := ended(t, 20)
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{hold: make(chan struct{})}
		b := newBatcher(rec, func(error) {}, time.Millisecond, 5, 5)
		b.OnEnd(spans[0])
		time.Sleep(time.Millisecond)
		synctest.Wait() // the exporter is now stuck on span 0
		if n, _ := rec.total(); n != 0 {
			t.Fatalf("%d exported past a held exporter", n)
		}
		// If OnEnd blocked on the stuck exporter, the bubble would
		// deadlock and synctest would fail the test.
		for _, s := range spans[1:] {
			b.OnEnd(s)
		}
		if got := b.Dropped(); got != 14 {
			t.Errorf("dropped %d, want 14 (queue of 5)", got)
		}
		close(rec.hold)
		if err := b.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		rec.mu.Lock()
		batches, shut := slices.Clone(rec.batches), rec.shut
		rec.mu.Unlock()
		if !slices.Equal(batches, []int{1, 5}) || !shut {
			t.Errorf("after shutdown: batches %v (want [1 5]), exporter shut %v", batches, shut)
		}
		b.OnEnd(spans[0]) // after shutdown: dropped, no panic
		if got := b.Dropped(); got != 15 {
			t.Errorf("dropped %d after shutdown, want 15", got)
		}
		if err := b.ForceFlush(context.Background()); err != nil {
			t.Errorf("ForceFlush after shutdown: %v", err)
		}
		if err := b.Shutdown(context.Background()); err != nil {
			t.Errorf("second shutdown: %v", err)
		}
	})
}
