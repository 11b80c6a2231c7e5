package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The span processors compared by BenchmarkProcessorTurn and
// BenchmarkProcessorAlternating: the SDK's BatchSpanProcessor alone, and
// co's (processor.go: the same, with the count of dropped spans), each in
// front of what co exports to (the filter, then the SQLite store), with the
// side panel's feed beside it, as Setup builds them. (Until commit 7464495
// the comparison was with co's own batcher, which the SDK's replaced:
// telemetry/README.md has the figures; check that commit out to rerun it.)
var benchProcessors = []string{"sdk", "co"}

// benchProvider is a TracerProvider as Setup makes it, with the named
// processor; its store is opened before the measure.
func benchProvider(b *testing.B, processor string) *sdktrace.TracerProvider {
	exp := NewExporter(DBPath(b.TempDir()))
	if _, err := exp.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	local := &filterExporter{next: exp, f: spanFilter{redactor: NewRedactor([]string{"sk-bench-key-0123456789"}), keepContent: true, maxValueLen: DefaultMaxValueLen}}
	var p sdktrace.SpanProcessor
	switch processor {
	case "co":
		p = newProcessor(local, func(err error) { b.Error(err) }, DefaultBatchTimeout, maxQueue, maxBatch)
	case "sdk":
		p = sdktrace.NewBatchSpanProcessor(local, sdktrace.WithBatchTimeout(DefaultBatchTimeout),
			sdktrace.WithMaxQueueSize(maxQueue), sdktrace.WithMaxExportBatchSize(maxBatch))
	default:
		b.Fatalf("no processor %q", processor)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(resource.NewWithAttributes("", attribute.String("service.name", ServiceName),
			attribute.String("service.version", "bench"), attribute.String("session.id", "0123456789abcdef"))),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithSpanProcessor(NewFeed()),
		sdktrace.WithSpanProcessor(p))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp
}

// benchTurn makes the spans of a busy turn as agent makes them
// (agent/turn.go, stream.go, calls.go): invoke_agent; four LLM calls
// ("chat …") with the request's attributes at the start and usage, finish
// reasons, time to first token and the answer's gen_ai messages at the
// end; three tool calls between them with their arguments and results
// (one failed: status and an exception event). 8 spans, ≈ 70 attributes,
// 9 KB of content.
func benchTurn(tr trace.Tracer, n int) {
	answer := strings.Repeat("some answer text, streamed and joined ", 20)
	result := strings.Repeat("tool output line of a command\n", 60)
	ctx, turn := tr.Start(context.Background(), "invoke_agent", trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "co"),
		attribute.String("co.session.id", "0123456789abcdef"), attribute.String("gen_ai.conversation.id", "0123456789abcdef"),
		attribute.Int("co.turn", n)))
	turn.SetAttributes(attribute.String("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"please look at the failing test and fix it"}]}]`))
	chat := func(last bool) {
		_, s := tr.Start(ctx, "chat test-model", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.provider.name", "openai"),
			attribute.String("gen_ai.request.model", "test-model"), attribute.String("server.address", "https://api.openai.com/v1")))
		finish := "tool_calls"
		if last {
			finish = "stop"
		}
		s.SetAttributes(attribute.Int("gen_ai.usage.input_tokens", 12000), attribute.Int("gen_ai.usage.output_tokens", 240),
			attribute.StringSlice("gen_ai.response.finish_reasons", []string{finish}), attribute.Float64("co.time_to_first_token_ms", 412.5),
			attribute.String("gen_ai.response.model", "test-model-2026-01-01"),
			attribute.String("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"`+answer+`"}],"finish_reason":"`+finish+`"}]`))
		s.End()
	}
	tool := func(i int, fail bool) {
		_, s := tr.Start(ctx, "execute_tool run_shell_command", trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.name", "run_shell_command"),
			attribute.String("co.tool.family", "shell"), attribute.String("gen_ai.tool.call.id", fmt.Sprintf("call_%d_%d", n, i)),
			attribute.Int("co.tool.args_size", 30), attribute.String("co.approval.decision", "allow"), attribute.String("co.approval.by", "policy allow")))
		s.SetAttributes(attribute.String("gen_ai.tool.call.arguments", `{"command":"go test ./pkg/..."}`))
		s.SetAttributes(attribute.String("co.tool.status", "done"), attribute.Int("co.tool.result_size", len(result)),
			attribute.String("gen_ai.tool.call.result", result), attribute.String("co.tool.exit_code", "1"),
			attribute.String("co.sandbox.isolation", "container"))
		if fail {
			s.SetStatus(codes.Error, "exit status 1")
			s.RecordError(errors.New("exit status 1"))
		}
		s.End()
	}
	chat(false)
	tool(0, false)
	chat(false)
	tool(1, true)
	tool(2, false)
	chat(false)
	chat(true)
	turn.SetAttributes(attribute.Int("co.llm_requests", 4), attribute.String("co.outcome", "success"),
		attribute.Int("gen_ai.usage.input_tokens", 48000), attribute.Int("gen_ai.usage.output_tokens", 960))
	turn.End()
}

// BenchmarkProcessorTurn: the CPU of one turn's spans (benchTurn), from
// their start to their rows committed in the store, through each
// processor; ns/op and allocs/op are per turn. Each turn ends with a
// flush: its spans are one batch, one transaction, as an interactive
// turn's are after the batch timeout. scripts/bench-processor.sh runs the
// two interleaved; BenchmarkProcessorAlternating alternates them turn by
// turn in one process.
func BenchmarkProcessorTurn(b *testing.B) {
	for _, p := range benchProcessors {
		b.Run(p, func(b *testing.B) {
			tp := benchProvider(b, p)
			tr := tp.Tracer("github.com/co-cli/co")
			benchTurn(tr, 0) // the store's first pages
			_ = tp.ForceFlush(context.Background())
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				benchTurn(tr, i+1)
				if err := tp.ForceFlush(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/turn")
		})
	}
}

// BenchmarkProcessorAlternating: the two processors turn by turn in one
// process (each round the other first), so the shared machine's drifting
// load falls on both alike; reports each one's mean process CPU per turn
// (all threads: the export goroutine's work included) and co's
// difference from the SDK's alone.
func BenchmarkProcessorAlternating(b *testing.B) {
	type side struct {
		tp  *sdktrace.TracerProvider
		tr  trace.Tracer
		cpu time.Duration
	}
	var sides [2]side
	for i, p := range benchProcessors {
		sides[i].tp = benchProvider(b, p)
		sides[i].tr = sides[i].tp.Tracer("github.com/co-cli/co")
	}
	for i := -1; i < b.N; i++ { // i == -1 warms both up
		for j := range sides {
			s := &sides[(i+1+j)%2]
			c0 := cpuTime()
			benchTurn(s.tr, i+2)
			if err := s.tp.ForceFlush(context.Background()); err != nil {
				b.Fatal(err)
			}
			if i >= 0 {
				s.cpu += cpuTime() - c0
			}
		}
	}
	for i, p := range benchProcessors {
		b.ReportMetric(float64(sides[i].cpu.Microseconds())/float64(b.N), p+"-cpu-µs/turn")
	}
	b.ReportMetric((float64(sides[1].cpu)/float64(sides[0].cpu)-1)*100, "co-vs-sdk-%")
}
