package telemetry

import (
	"context"
	"sort"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// TestFeedShowsSpansLiveWithin100ms: a span is in the side panel's feed
// when it starts (running) and within 100 ms of its end, without waiting
// for the exporter's batch.
func TestFeedShowsSpansLiveWithin100ms(t *testing.T) {
	tr := setupT(t, Options{BatchTimeout: time.Hour}) // the store would be an hour late
	ch, stop := tr.Feed().Subscribe(64)
	defer stop()
	var lat []time.Duration
	for i := 0; i < 500; i++ {
		_, s := tr.Tracer().Start(context.Background(), "execute_tool t", trace.WithAttributes(attribute.Int("i", i)))
		if ev := <-ch; !ev.Running || ev.Name != "execute_tool t" {
			t.Fatalf("start event %+v", ev)
		}
		s.SetAttributes(attribute.String("co.tool.status", "done"))
		ended := time.Now()
		s.End()
		select {
		case ev := <-ch:
			lat = append(lat, time.Since(ended))
			if ev.Running || ev.End.IsZero() || ev.Attrs["co.tool.status"] != "done" {
				t.Fatalf("end event %+v", ev)
			}
		case <-time.After(time.Second):
			t.Fatal("no end event within a second")
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p50, p99, max := lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1]
	t.Logf("span end → side panel: p50 %s, p99 %s, max %s", p50, p99, max)
	if p99 > 100*time.Millisecond {
		t.Errorf("p99 %s, want < 100 ms", p99)
	}
}

// TestFullPanelDropsUpdatesNotSpans: a subscriber that never reads costs
// the agent nothing and the store still gets every span.
func TestFullPanelDropsUpdatesNotSpans(t *testing.T) {
	tr := setupT(t, Options{BatchTimeout: 10 * time.Millisecond})
	_, stop := tr.Feed().Subscribe(1) // never read
	defer stop()
	start := time.Now()
	for i := 0; i < 2000; i++ {
		turn(tr.Tracer(), i, "t", false)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("6,000 spans took %s with a stuck panel", d)
	}
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := count(t, openRW(t, tr.DBPath()), `SELECT count(*) FROM spans`); n != 6000 {
		t.Errorf("%d rows, want 6000", n)
	}
}
