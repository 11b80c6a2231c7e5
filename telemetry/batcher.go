package telemetry

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// batcher is the batching span processor in front of each exporter. Ending
// a span appends it to a queue under a mutex and returns: unlike the SDK's
// BatchSpanProcessor, which hands every span to its goroutine over a
// channel (a goroutine wake-up per span, measurable in a turn's CPU time),
// the export goroutine wakes only when a batch is due: BatchTimeout after
// the first span of a batch, or when a batch is full.
//
// A full queue drops spans (counted) rather than block the agent.
//
// Concurrency: OnEnd is safe from any goroutine; one goroutine exports, so
// the exporter is never called concurrently.
type batcher struct {
	exp      sdktrace.SpanExporter
	onErr    func(error)
	timeout  time.Duration
	maxQueue int
	maxBatch int

	mu      sync.Mutex
	queue   []sdktrace.ReadOnlySpan
	spare   []sdktrace.ReadOnlySpan // the last batch's array, for the next
	stopped bool
	timer   *time.Timer
	kick    chan struct{}      // a full batch is waiting
	flushes chan chan struct{} // ForceFlush requests
	stop    chan struct{}      // closed by Shutdown
	done    chan struct{}      // closed when the goroutine ends
	dropped atomic.Int64
}

func newBatcher(exp sdktrace.SpanExporter, onErr func(error), timeout time.Duration, maxQueue, maxBatch int) *batcher {
	b := &batcher{
		exp: exp, onErr: onErr, timeout: timeout, maxQueue: maxQueue, maxBatch: maxBatch,
		timer:   time.NewTimer(time.Hour),
		kick:    make(chan struct{}, 1),
		flushes: make(chan chan struct{}),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	b.timer.Stop()
	go b.loop()
	return b
}

// OnStart implements sdktrace.SpanProcessor.
func (b *batcher) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd implements sdktrace.SpanProcessor: queue the span.
func (b *batcher) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	b.mu.Lock()
	if b.stopped || len(b.queue) >= b.maxQueue {
		b.mu.Unlock()
		b.dropped.Add(1)
		return
	}
	b.queue = append(b.queue, s)
	n := len(b.queue)
	if n == 1 {
		b.timer.Reset(b.timeout)
	}
	b.mu.Unlock()
	if n == b.maxBatch {
		select {
		case b.kick <- struct{}{}:
		default:
		}
	}
}

// Dropped is the number of spans dropped because the queue was full.
func (b *batcher) Dropped() int64 { return b.dropped.Load() }

func (b *batcher) loop() {
	defer close(b.done)
	for {
		select {
		case <-b.timer.C:
			b.export()
		case <-b.kick:
			b.export()
		case reply := <-b.flushes:
			b.export()
			close(reply)
		case <-b.stop:
			b.export()
			return
		}
	}
}

// export writes everything queued, a batch at a time. The queue's array
// is kept for the next batch (spare), cleared so the spans can be freed.
func (b *batcher) export() {
	b.mu.Lock()
	q := b.queue
	b.queue, b.spare = b.spare[:0], nil
	b.timer.Stop()
	b.mu.Unlock()
	for rest := q; len(rest) > 0; {
		n := min(len(rest), b.maxBatch)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := b.exp.ExportSpans(ctx, rest[:n]); err != nil {
			b.onErr(err)
		}
		cancel()
		rest = rest[n:]
	}
	if cap(q) <= b.maxBatch {
		clear(q)
		b.mu.Lock()
		b.spare = q[:0]
		b.mu.Unlock()
	}
}

// ForceFlush implements sdktrace.SpanProcessor: the spans queued so far
// are exported before it returns (or ctx ends).
func (b *batcher) ForceFlush(ctx context.Context) error {
	reply := make(chan struct{})
	select {
	case b.flushes <- reply:
	case <-b.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-reply:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown implements sdktrace.SpanProcessor: export what is queued, then
// shut the exporter down.
func (b *batcher) Shutdown(ctx context.Context) error {
	b.mu.Lock()
	already := b.stopped
	b.stopped = true
	b.mu.Unlock()
	if already {
		return nil
	}
	close(b.stop)
	select {
	case <-b.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return b.exp.Shutdown(ctx)
}
