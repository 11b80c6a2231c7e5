package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// The differential tests send the same spans through otlptracehttp (the
// upstream exporter, imported by the tests only) and co's exporter to two
// local receivers, and require the decoded requests to be equal.

// exportPair is both exporters, each with its receiver; they are kept for
// many batches (a fuzzer's), so connections are reused.
type exportPair struct {
	upRC, coRC *receiver
	up         *otlptrace.Exporter
	co         *otlpExporter
}

func newExportPair(t testing.TB) *exportPair {
	t.Helper()
	p := &exportPair{upRC: &receiver{}, coRC: &receiver{}}
	upSrv, coSrv := httptest.NewServer(p.upRC), httptest.NewServer(p.coRC)
	t.Cleanup(upSrv.Close)
	t.Cleanup(coSrv.Close)
	var err error
	p.up, err = otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(upSrv.URL+"/v1/traces"),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.up.Shutdown(context.Background()) })
	p.co = newTestOTLP(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": coSrv.URL})
	return p
}

// requests exports spans with both exporters and returns what each
// receiver decoded (nil for nothing): upstream's, then co's.
func (p *exportPair) requests(t *testing.T, spans []sdktrace.ReadOnlySpan) (up, co *coltracepb.ExportTraceServiceRequest) {
	t.Helper()
	p.upRC.reset()
	p.coRC.reset()
	if err := p.up.ExportSpans(context.Background(), spans); err != nil {
		t.Fatalf("otlptracehttp: %v", err)
	}
	if err := p.co.ExportSpans(context.Background(), spans); err != nil {
		t.Fatalf("co: %v", err)
	}
	return p.upRC.request(t), p.coRC.request(t)
}

func (rc *receiver) reset() {
	rc.mu.Lock()
	rc.raw, rc.spans, rc.res = nil, nil, nil
	rc.mu.Unlock()
}

// request is the one request the receiver got, decoded; nil if none.
func (rc *receiver) request(t *testing.T) *coltracepb.ExportTraceServiceRequest {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.raw) == 0 {
		return nil
	}
	if len(rc.raw) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(rc.raw))
	}
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(rc.raw[0], &req); err != nil {
		t.Fatal(err)
	}
	return &req
}

// sortResources orders the ResourceSpans (otlptrace emits them in map
// order) by their resource and schema.
func sortResources(t *testing.T, req *coltracepb.ExportTraceServiceRequest) {
	t.Helper()
	key := func(rs *tracepb.ResourceSpans) string {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(rs.GetResource())
		if err != nil {
			t.Fatal(err)
		}
		return rs.GetSchemaUrl() + "\x00" + string(b)
	}
	slices.SortStableFunc(req.ResourceSpans, func(a, b *tracepb.ResourceSpans) int { return strings.Compare(key(a), key(b)) })
}

// linkTraceStates clears the links' trace_state, which co sends and
// otlptrace leaves out, and returns them in order.
func linkTraceStates(req *coltracepb.ExportTraceServiceRequest) []string {
	var out []string
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				for _, l := range s.Links {
					out = append(out, l.TraceState)
					l.TraceState = ""
				}
			}
		}
	}
	return out
}

// requireSameRequest exports spans with both and requires equal requests.
func requireSameRequest(t *testing.T, p *exportPair, spans []sdktrace.ReadOnlySpan) (up, co *coltracepb.ExportTraceServiceRequest) {
	t.Helper()
	up, co = p.requests(t, spans)
	if up == nil || co == nil {
		if up != co {
			t.Fatalf("one exporter sent nothing: otlptracehttp %v, co %v", up, co)
		}
		return up, co
	}
	sortResources(t, up)
	sortResources(t, co)
	// Links are grouped with their spans: compare their states as sets.
	got, want := linkTraceStates(co), linkTraceStatesOf(spans)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("links' trace_state: got %q, want %q", got, want)
	}
	linkTraceStates(up)
	if !proto.Equal(up, co) {
		t.Errorf("co's request differs from otlptracehttp's:\nupstream: %v\nco:       %v", up, co)
	}
	return up, co
}

func linkTraceStatesOf(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		if s == nil {
			continue
		}
		for _, l := range s.Links() {
			out = append(out, l.SpanContext.TraceState().String())
		}
	}
	return out
}

func TestOTLPRequestMatchesOtlptracehttp(t *testing.T) {
	spans := variedSpans(t)
	up, _ := requireSameRequest(t, newExportPair(t), spans)
	// The test is only as good as its spans: they must reach the request.
	n := 0
	for _, rs := range up.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			n += len(ss.Spans)
		}
	}
	if n != len(spans)-1 { // one is nil
		t.Errorf("%d spans in the request, want %d", n, len(spans)-1)
	}
	if len(up.ResourceSpans) < 3 {
		t.Errorf("%d resources, want at least 3", len(up.ResourceSpans))
	}
}

// TestOTLPRequestMatchesOtlptracehttpSDKSpans: spans as the SDK makes
// them, through a TracerProvider, including co's filter.
func TestOTLPRequestMatchesOtlptracehttpSDKSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec),
		sdktrace.WithResource(resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0", attribute.String("service.name", ServiceName))))
	turn(tp.Tracer("github.com/co-cli/co"), 1, "read_file", true)
	turn(tp.Tracer("other", trace.WithInstrumentationVersion("1.2"), trace.WithInstrumentationAttributes(attribute.Bool("x", true))), 2, "shell", false)
	spans := rec.Ended()
	p := newExportPair(t)
	requireSameRequest(t, p, spans)

	var filtered []sdktrace.ReadOnlySpan
	f := spanFilter{redactor: NewRedactor(nil), maxValueLen: DefaultMaxValueLen}
	for _, s := range spans {
		filtered = append(filtered, f.apply(s, nil))
	}
	requireSameRequest(t, p, filtered)
}

// FuzzOTLPRequest: random batches, made from the fuzzer's seed, give the
// same request as otlptracehttp's.
func FuzzOTLPRequest(f *testing.F) {
	for i := range 40 {
		f.Add(uint64(i), uint64(i*7919+1))
	}
	p := newExportPair(f)
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		r := rand.New(rand.NewPCG(s1, s2))
		requireSameRequest(t, p, randomSpans(r))
	})
}

// TestOTLPLengthPrefixes: messages around each varint length boundary
// (127/128 bytes, 16383/16384, 2 MiB) decode.
func TestOTLPLengthPrefixes(t *testing.T) {
	for _, n := range []int{0, 1, 100, 126, 127, 128, 129, 16000, 16383, 16384, 16385, 2<<20 + 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := tracetest.SpanStub{Name: "x", SpanContext: spanContext(1, 1, false),
				Attributes: []attribute.KeyValue{attribute.String("v", strings.Repeat("é", n/2)+strings.Repeat("a", n%2))}}
			for off := range 3 { // shifts the boundaries inside the span
				s.Name = strings.Repeat("n", off)
				b := appendTraceRequest(nil, []sdktrace.ReadOnlySpan{s.Snapshot()})
				var req coltracepb.ExportTraceServiceRequest
				if err := proto.Unmarshal(b, &req); err != nil {
					t.Fatal(err)
				}
				got := req.ResourceSpans[0].ScopeSpans[0].Spans[0]
				if got.Name != s.Name || got.Attributes[0].Value.GetStringValue() != s.Attributes[0].Value.AsString() {
					t.Fatalf("span %q decoded wrong", s.Name)
				}
			}
		})
	}
}

func TestOTLPNoSpansNoRequest(t *testing.T) {
	if b := appendTraceRequest(nil, []sdktrace.ReadOnlySpan{nil}); len(b) != 0 {
		t.Errorf("request of nil spans: %x", b)
	}
}

// spanContext makes a span context with IDs from two numbers.
func spanContext(tid, sid uint64, remote bool) trace.SpanContext {
	var t trace.TraceID
	var s trace.SpanID
	for i := range 8 {
		t[i], t[8+i] = byte(tid>>(8*i)), byte(^tid>>(8*i))
		s[i] = byte(sid >> (8 * i))
	}
	ts, _ := trace.ParseTraceState("vendor=a1,other=b2")
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: t, SpanID: s, TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: remote})
}

// allValues has an attribute of every kind, with edge values.
func allValues() []attribute.KeyValue {
	big := make([]attribute.KeyValue, 9)
	for i := range big {
		big[i] = attribute.Int(fmt.Sprintf("k%d", i), i)
	}
	return []attribute.KeyValue{
		attribute.Bool("bool.true", true),
		attribute.Bool("bool.false", false),
		attribute.Int64("int.zero", 0),
		attribute.Int64("int.neg", -1),
		attribute.Int64("int.max", math.MaxInt64),
		attribute.Int64("int.min", math.MinInt64),
		attribute.Float64("float.zero", 0),
		attribute.Float64("float.negzero", math.Copysign(0, -1)),
		attribute.Float64("float.nan", math.NaN()),
		attribute.Float64("float.inf", math.Inf(1)),
		attribute.Float64("float.ninf", math.Inf(-1)),
		attribute.Float64("float.tiny", 5e-324),
		attribute.String("string.empty", ""),
		attribute.String("string.unicode", "héllo wörld — 日本語 🚀 \u0000 \u202e"),
		attribute.String("", "empty key"),
		attribute.BoolSlice("bools", []bool{true, false, true}),
		attribute.BoolSlice("bools.empty", []bool{}),
		attribute.Int64Slice("ints", []int64{0, -1, math.MaxInt64}),
		attribute.Int64Slice("ints.empty", nil),
		attribute.Float64Slice("floats", []float64{0, 1.5, math.NaN()}),
		attribute.Float64Slice("floats.empty", nil),
		attribute.StringSlice("strings", []string{"", "a", "ü"}),
		attribute.StringSlice("strings.empty", nil),
		attribute.ByteSlice("bytes", []byte{0, 1, 255}),
		attribute.ByteSlice("bytes.empty", nil),
		attribute.Slice("slice", attribute.IntValue(1), attribute.StringValue("two"), attribute.SliceValue(),
			attribute.MapValue(attribute.String("in", "map")), attribute.Value{}, attribute.ByteSliceValue([]byte("x"))),
		attribute.Slice("slice.empty"),
		attribute.Map("map", attribute.String("a", "1"), attribute.Float64("b", 2),
			attribute.Slice("c", attribute.BoolValue(false)), attribute.Map("d")),
		attribute.Map("map.big", big...), // more than 5 entries: another code path in the SDK
		attribute.Map("map.empty"),
		{Key: "value.empty"},
	}
}

// variedSpans covers what the mapping has cases for: several resources
// and scopes, kinds, statuses, remote and local parents, events, links,
// dropped counts, odd times, unicode and empty values. One entry is nil.
func variedSpans(t *testing.T) []sdktrace.ReadOnlySpan {
	t.Helper()
	r1 := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0",
		attribute.String("service.name", "co-cli"), attribute.String("session.id", "s-1"))
	r2, err := resource.New(context.Background(), resource.WithAttributes(append(allValues()[:14], attribute.String("ünï", "çødé"))...))
	if err != nil {
		t.Fatal(err)
	}
	r3 := resource.Empty()
	scopes := []instrumentation.Scope{
		{},
		{Name: "github.com/co-cli/co"},
		{Name: "scoped", Version: "v1.2.3", SchemaURL: "https://opentelemetry.io/schemas/1.20.0",
			Attributes: attribute.NewSet(attribute.String("scope.attr", "x"), attribute.Int("n", 3))},
		{Name: "scoped", Version: "v1.2.4"},
	}
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 891011121, time.UTC)
	notSampled := trace.NewSpanContext(trace.SpanContextConfig{TraceID: spanContext(9, 9, false).TraceID(), SpanID: spanContext(9, 10, false).SpanID()})
	var spans []sdktrace.ReadOnlySpan
	add := func(s tracetest.SpanStub) { spans = append(spans, s.Snapshot()) }

	add(tracetest.SpanStub{
		Name: "invoke_agent", SpanContext: spanContext(1, 1, false), SpanKind: trace.SpanKindInternal,
		StartTime: t0, EndTime: t0.Add(1500 * time.Millisecond), Attributes: allValues(),
		Status: sdktrace.Status{Code: codes.Ok}, Resource: r1, InstrumentationScope: scopes[1],
	})
	add(tracetest.SpanStub{
		Name: "chat modèle 🚀", SpanContext: spanContext(1, 2, false), Parent: spanContext(1, 1, false),
		SpanKind: trace.SpanKindClient, StartTime: t0, EndTime: t0.Add(time.Second),
		Events: []sdktrace.Event{
			{Name: "exception", Time: t0.Add(time.Millisecond), Attributes: []attribute.KeyValue{attribute.String("exception.message", "boom")}, DroppedAttributeCount: 2},
			{Name: "", Time: time.Time{}},
			{Name: "all", Time: t0, Attributes: allValues()},
		},
		Status: sdktrace.Status{Code: codes.Error, Description: "échec: boom"}, DroppedAttributes: 3, DroppedEvents: 4,
		Resource: r1, InstrumentationScope: scopes[1],
	})
	add(tracetest.SpanStub{
		Name: "remote child", SpanContext: spanContext(2, 3, false), Parent: spanContext(2, 4, true),
		SpanKind: trace.SpanKindServer, StartTime: time.Unix(-5, 0), EndTime: time.Unix(0, 1),
		Links: []sdktrace.Link{
			{SpanContext: spanContext(7, 8, true), Attributes: []attribute.KeyValue{attribute.String("link", "remote")}, DroppedAttributeCount: 1},
			{SpanContext: spanContext(7, 9, false)},
			{SpanContext: notSampled, Attributes: allValues()},
		},
		DroppedLinks: 5, Resource: r2, InstrumentationScope: scopes[2],
	})
	add(tracetest.SpanStub{Name: "", SpanContext: notSampled, Resource: r2, InstrumentationScope: scopes[0]})
	spans = append(spans, nil)
	add(tracetest.SpanStub{Name: "producer", SpanContext: spanContext(3, 5, false), SpanKind: trace.SpanKindProducer,
		DroppedAttributes: math.MaxInt, DroppedEvents: -1, Resource: r1, InstrumentationScope: scopes[3]})
	add(tracetest.SpanStub{Name: "consumer", SpanContext: spanContext(3, 6, false), SpanKind: trace.SpanKindConsumer,
		Resource: r3, InstrumentationScope: scopes[2]})
	add(tracetest.SpanStub{Name: "odd kind", SpanContext: spanContext(3, 7, false), SpanKind: trace.SpanKind(42),
		Status: sdktrace.Status{Code: codes.Code(9), Description: "?"}, Resource: nil, InstrumentationScope: scopes[1]})
	add(tracetest.SpanStub{Name: "back to r1, first scope again", SpanContext: spanContext(1, 11, false), Parent: spanContext(1, 2, false),
		Resource: r1, InstrumentationScope: scopes[1]})
	return spans
}

// randomSpans is a random batch over a few resources and scopes.
func randomSpans(r *rand.Rand) []sdktrace.ReadOnlySpan {
	resources := []*resource.Resource{nil, resource.Empty(),
		resource.NewWithAttributes("s1", attribute.String("service.name", randomString(r))),
		resource.NewWithAttributes("", randomAttrs(r, 3)...)}
	scopes := []instrumentation.Scope{{}, {Name: randomString(r)}, {Name: "n", Version: randomString(r), SchemaURL: randomString(r)},
		{Name: "a", Attributes: attribute.NewSet(randomAttrs(r, 2)...)}}
	n := r.IntN(12)
	spans := make([]sdktrace.ReadOnlySpan, 0, n)
	for range n {
		s := tracetest.SpanStub{
			Name:              randomString(r),
			SpanContext:       spanContext(r.Uint64(), r.Uint64(), r.IntN(2) == 0),
			SpanKind:          trace.SpanKind(r.IntN(7)),
			StartTime:         time.Unix(0, r.Int64()),
			EndTime:           time.Unix(0, r.Int64()),
			Attributes:        randomAttrs(r, r.IntN(6)),
			Status:            sdktrace.Status{Code: codes.Code(r.IntN(3)), Description: randomString(r)},
			DroppedAttributes: r.IntN(3),
			DroppedEvents:     r.IntN(3),
			DroppedLinks:      r.IntN(3),
			Resource:          resources[r.IntN(len(resources))],
			// A scope's attributes alone are not kept by Snapshot.
			InstrumentationScope: scopes[r.IntN(len(scopes))],
		}
		if r.IntN(2) == 0 {
			s.Parent = spanContext(r.Uint64(), r.Uint64(), r.IntN(2) == 0)
		}
		for range r.IntN(3) {
			s.Events = append(s.Events, sdktrace.Event{Name: randomString(r), Time: time.Unix(0, r.Int64()), Attributes: randomAttrs(r, r.IntN(3)), DroppedAttributeCount: r.IntN(2)})
		}
		for range r.IntN(3) {
			s.Links = append(s.Links, sdktrace.Link{SpanContext: spanContext(r.Uint64(), r.Uint64(), r.IntN(2) == 0), Attributes: randomAttrs(r, r.IntN(3)), DroppedAttributeCount: r.IntN(2)})
		}
		spans = append(spans, s.Snapshot())
	}
	return spans
}

func randomString(r *rand.Rand) string {
	const alphabet = "aZ09 _-.é日🚀\x00"
	runes := []rune(alphabet)
	n := r.IntN(20)
	if r.IntN(20) == 0 {
		n = 100 + r.IntN(300) // past one-byte lengths
	}
	var b strings.Builder
	for range n {
		b.WriteRune(runes[r.IntN(len(runes))])
	}
	return b.String()
}

func randomAttrs(r *rand.Rand, n int) []attribute.KeyValue {
	out := make([]attribute.KeyValue, n)
	for i := range out {
		out[i] = attribute.KeyValue{Key: attribute.Key(randomString(r)), Value: randomValue(r, 2)}
	}
	return out
}

func randomValue(r *rand.Rand, depth int) attribute.Value {
	kinds := 10
	if depth > 0 {
		kinds = 12
	}
	switch r.IntN(kinds) {
	case 0:
		return attribute.Value{}
	case 1:
		return attribute.BoolValue(r.IntN(2) == 0)
	case 2:
		return attribute.Int64Value(int64(r.Uint64()))
	case 3:
		return attribute.Float64Value(math.Float64frombits(r.Uint64()))
	case 4:
		return attribute.StringValue(randomString(r))
	case 5:
		return attribute.BoolSliceValue([]bool{r.IntN(2) == 0, true}[:r.IntN(3)])
	case 6:
		return attribute.Int64SliceValue([]int64{int64(r.Uint64()), 0}[:r.IntN(3)])
	case 7:
		return attribute.Float64SliceValue([]float64{r.Float64(), math.Inf(-1)}[:r.IntN(3)])
	case 8:
		return attribute.StringSliceValue([]string{randomString(r), ""}[:r.IntN(3)])
	case 9:
		return attribute.ByteSliceValue(bytes.Repeat([]byte{byte(r.Uint32())}, r.IntN(4)))
	case 10:
		vs := make([]attribute.Value, r.IntN(4))
		for i := range vs {
			vs[i] = randomValue(r, depth-1)
		}
		return attribute.SliceValue(vs...)
	default:
		kvs := make([]attribute.KeyValue, r.IntN(8))
		for i := range kvs {
			kvs[i] = attribute.KeyValue{Key: attribute.Key(randomString(r)), Value: randomValue(r, depth-1)}
		}
		return attribute.MapValue(kvs...)
	}
}
