package telemetry

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// SpanEvent is a span as the live side panel sees it: sent when the span
// starts (Running) and again when it ends.
type SpanEvent struct {
	TraceID  string
	SpanID   string
	ParentID string
	Name     string
	Start    time.Time
	End      time.Time // zero while running
	Running  bool
	Error    bool
	Status   string // the status description when Error
	Attrs    map[string]string
}

// Feed is a span processor that hands this process's spans to subscribers
// (the side panel) as they start and end, without waiting for the exporter's
// batch. It never blocks the agent: a subscriber that is full misses
// updates (the panel drops updates, the store keeps every span).
type Feed struct {
	mu    sync.Mutex
	subs  map[chan SpanEvent]struct{}
	nsubs atomic.Int32 // len(subs), read without the lock
}

// NewFeed returns a Feed; register it with the TracerProvider
// (sdktrace.WithSpanProcessor).
func NewFeed() *Feed { return &Feed{subs: map[chan SpanEvent]struct{}{}} }

// Subscribe returns a channel of span events with room for buffer events and
// a function that ends the subscription.
func (f *Feed) Subscribe(buffer int) (<-chan SpanEvent, func()) {
	ch := make(chan SpanEvent, buffer)
	f.mu.Lock()
	f.subs[ch] = struct{}{}
	f.nsubs.Store(int32(len(f.subs)))
	f.mu.Unlock()
	return ch, func() {
		f.mu.Lock()
		if _, ok := f.subs[ch]; ok {
			delete(f.subs, ch)
			f.nsubs.Store(int32(len(f.subs)))
			close(ch)
		}
		f.mu.Unlock()
	}
}

func (f *Feed) publish(ev SpanEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch := range f.subs {
		select {
		case ch <- ev:
		default: // full: drop this update, never block the agent
		}
	}
}

func spanEvent(s sdktrace.ReadOnlySpan, running bool) SpanEvent {
	sc := s.SpanContext()
	ev := SpanEvent{
		TraceID: sc.TraceID().String(),
		SpanID:  sc.SpanID().String(),
		Name:    s.Name(),
		Start:   s.StartTime(),
		Running: running,
	}
	if p := s.Parent(); p.IsValid() {
		ev.ParentID = p.SpanID().String()
	}
	if !running {
		ev.End = s.EndTime()
		st := s.Status()
		ev.Error = st.Code == codes.Error
		ev.Status = st.Description
		attrs := s.Attributes()
		ev.Attrs = make(map[string]string, len(attrs))
		for _, kv := range attrs {
			ev.Attrs[string(kv.Key)] = kv.Value.String()
		}
	}
	return ev
}

// OnStart implements sdktrace.SpanProcessor.
func (f *Feed) OnStart(_ context.Context, s sdktrace.ReadWriteSpan) {
	if f.listened() {
		f.publish(spanEvent(s, true))
	}
}

// OnEnd implements sdktrace.SpanProcessor.
func (f *Feed) OnEnd(s sdktrace.ReadOnlySpan) {
	if f.listened() {
		f.publish(spanEvent(s, false))
	}
}

// listened: nobody subscribed (co run, --plain) costs no event at all.
func (f *Feed) listened() bool { return f.nsubs.Load() > 0 }

// Shutdown implements sdktrace.SpanProcessor.
func (f *Feed) Shutdown(context.Context) error { return nil }

// ForceFlush implements sdktrace.SpanProcessor.
func (f *Feed) ForceFlush(context.Context) error { return nil }
