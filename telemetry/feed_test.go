package telemetry

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// TestFeedShowsSpansLive: a span is in the side panel's feed when it
// starts (running) and again by the time its End returns, without waiting
// for the exporter's batch (an hour here). The feed publishes on the
// span's own goroutine, so this is checked by order, not by a deadline;
// BenchmarkFeedLatency measures how long the hand-off takes.
func TestFeedShowsSpansLive(t *testing.T) {
	tr := setupT(t, Options{BatchTimeout: time.Hour}) // the store would be an hour late
	ch, stop := tr.Feed().Subscribe(64)
	defer stop()
	next := func(what string) SpanEvent {
		t.Helper()
		select {
		case ev := <-ch:
			return ev
		default:
			t.Fatalf("no %s event in the feed when the span's call returned", what)
			return SpanEvent{}
		}
	}
	for i := 0; i < 500; i++ {
		_, s := tr.Tracer().Start(context.Background(), "execute_tool t", trace.WithAttributes(attribute.Int("i", i)))
		if ev := next("start"); !ev.Running || ev.Name != "execute_tool t" {
			t.Fatalf("start event %+v", ev)
		}
		s.SetAttributes(attribute.String("co.tool.status", "done"))
		s.End()
		if ev := next("end"); ev.Running || ev.End.IsZero() || ev.Attrs["co.tool.status"] != "done" {
			t.Fatalf("end event %+v", ev)
		}
	}
}

// TestFullPanelDropsUpdatesNotSpans: a subscriber that never reads costs
// the agent nothing and the store still gets every span. Were the feed to
// wait for a full subscriber, the first span would hang the test (and go
// test's -timeout would show where): no deadline is needed here.
func TestFullPanelDropsUpdatesNotSpans(t *testing.T) {
	tr := setupT(t, Options{BatchTimeout: 10 * time.Millisecond})
	ch, stop := tr.Feed().Subscribe(1) // never read
	defer stop()
	for i := 0; i < 2000; i++ {
		turn(tr.Tracer(), i, "t", false)
	}
	if n := len(ch); n != 1 {
		t.Errorf("the panel holds %d events, want its buffer's 1 (the rest dropped)", n)
	}
	if n := tr.Dropped(); n != 0 {
		t.Errorf("%d spans dropped for the store", n)
	}
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := count(t, openRW(t, tr.DBPath()), `SELECT count(*) FROM spans`); n != 6000 {
		t.Errorf("%d rows, want 6000", n)
	}
}
