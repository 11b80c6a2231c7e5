package telemetry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// agentLikeSpans are n ended spans shaped like an agent's: a turn of
// invoke_agent, two chats and a tool call, with their attributes and a
// few hundred bytes of content.
func agentLikeSpans(n int) []sdktrace.ReadOnlySpan {
	res := resource.NewWithAttributes("", attribute.String("service.name", "co-cli"), attribute.String("service.version", "1.0.0"), attribute.String("session.id", "0123456789abcdef"))
	out := make([]sdktrace.ReadOnlySpan, 0, n)
	start := time.Now()
	content := strings.Repeat("some prompt or tool output text ", 10)
	for i := 0; len(out) < n; i++ {
		var tid trace.TraceID
		copy(tid[:], fmt.Sprintf("%016x%016x", i, i))
		mk := func(j int, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) {
			var sid trace.SpanID
			copy(sid[:], fmt.Sprintf("%06x%02x", i, j))
			parent := trace.SpanContext{}
			if j > 0 {
				var psid trace.SpanID
				copy(psid[:], fmt.Sprintf("%06x%02x", i, 0))
				parent = trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: psid, TraceFlags: trace.FlagsSampled})
			}
			stub := tracetest.SpanStub{
				Name:                 name,
				SpanContext:          trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}),
				Parent:               parent,
				SpanKind:             kind,
				StartTime:            start.Add(time.Duration(i) * time.Millisecond),
				EndTime:              start.Add(time.Duration(i)*time.Millisecond + 800*time.Microsecond),
				Attributes:           attrs,
				Status:               sdktrace.Status{Code: codes.Unset},
				Resource:             res,
				InstrumentationScope: instrumentation.Scope{Name: "github.com/co-cli/co"},
			}
			out = append(out, stub.Snapshot())
		}
		mk(1, "chat test-model", trace.SpanKindClient,
			attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.provider.name", "openai"),
			attribute.String("gen_ai.request.model", "test-model"), attribute.Int("gen_ai.usage.input_tokens", 1200),
			attribute.Int("gen_ai.usage.output_tokens", 80), attribute.StringSlice("gen_ai.response.finish_reasons", []string{"tool_calls"}),
			attribute.Float64("co.time_to_first_token_ms", 312.5), attribute.String("gen_ai.output.messages", content))
		mk(2, "execute_tool run_shell_command", trace.SpanKindInternal,
			attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.name", "run_shell_command"),
			attribute.String("gen_ai.tool.call.id", "call_abc123"), attribute.Int("co.tool.args_size", 40),
			attribute.String("co.approval.decision", "allow"), attribute.String("co.approval.by", "policy allow"),
			attribute.String("co.tool.status", "done"), attribute.Int("co.tool.result_size", len(content)),
			attribute.String("gen_ai.tool.call.arguments", `{"cmd":"git status"}`), attribute.String("gen_ai.tool.call.result", content))
		mk(3, "chat test-model", trace.SpanKindClient,
			attribute.String("gen_ai.operation.name", "chat"), attribute.Int("gen_ai.usage.input_tokens", 1500),
			attribute.Int("gen_ai.usage.output_tokens", 120), attribute.String("gen_ai.output.messages", content))
		mk(0, "invoke_agent", trace.SpanKindInternal,
			attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("co.session.id", "0123456789abcdef"),
			attribute.Int("co.turn", i), attribute.Int("co.llm_requests", 2), attribute.String("co.outcome", "success"),
			attribute.String("gen_ai.input.messages", content))
	}
	return out[:n]
}

// BenchmarkExporter: spans per second the SQLite exporter stores, in
// batches of 512 (the batch processor's usual size), one transaction each;
// also the CPU time per span (user+system, all threads), which is what the
// figure would be on an idle core of this shared machine.
func BenchmarkExporter(b *testing.B) {
	for _, tc := range []struct {
		name   string
		filter bool
	}{{"sqlite", false}, {"redact+sqlite", true}} {
		b.Run(tc.name, func(b *testing.B) {
			const batch = 512
			spans := agentLikeSpans((b.N/batch + 1) * batch)
			exp := NewExporter(DBPath(b.TempDir()))
			if _, err := exp.Open(context.Background()); err != nil {
				b.Fatal(err)
			}
			defer func() {
				if err := exp.Shutdown(context.Background()); err != nil {
					b.Error(err)
				}
			}()
			var e sdktrace.SpanExporter = exp
			if tc.filter {
				e = &filterExporter{next: exp, f: spanFilter{redactor: NewRedactor([]string{"sk-configured-secret-value"}), keepContent: true, maxValueLen: DefaultMaxValueLen}}
			}
			b.ResetTimer()
			cpu0 := cpuTime()
			start := time.Now()
			written := 0
			for ; written < b.N; written += batch {
				if err := e.ExportSpans(context.Background(), spans[written:written+batch]); err != nil {
					b.Fatal(err)
				}
			}
			wall, cpu := time.Since(start), cpuTime()-cpu0
			b.ReportMetric(float64(written)/wall.Seconds(), "spans/s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(written), "cpu-µs/span")
		})
	}
}

// BenchmarkFeedLatency: how long a span's end takes to reach the side
// panel's feed, as p50/p99/max over the b.N spans (the figure in
// docs/figures.md, whose target is under 100 ms). TestFeedShowsSpansLive checks the
// order (the event is in the feed before End returns), not the speed.
func BenchmarkFeedLatency(b *testing.B) {
	tr := setupT(b, Options{BatchTimeout: time.Hour}) // the store would be an hour late
	ch, stop := tr.Feed().Subscribe(64)
	defer stop()
	lat := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		_, s := tr.Tracer().Start(context.Background(), "execute_tool t", trace.WithAttributes(attribute.Int("i", i)))
		<-ch // the start event
		ended := time.Now()
		s.End()
		<-ch
		lat = append(lat, time.Since(ended))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
	b.ReportMetric(float64(lat[len(lat)-1].Nanoseconds())/1e3, "max-µs")
}

// cpuTime is the process's CPU time so far (user + system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
