package telemetry

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestFilterMemoIsByIdentity: a batch's spans sharing a long string get it
// redacted (once); a prefix of it, which shares its bytes, is redacted on
// its own.
func TestFilterMemoIsByIdentity(t *testing.T) {
	long := strings.Repeat("plain words ", 200) + "token: hunter2hunter2 end"
	prefix := long[:1200]
	mk := func(v string) sdktrace.ReadOnlySpan {
		return tracetest.SpanStub{Name: "s", Attributes: []attribute.KeyValue{attribute.String("gen_ai.output.messages", v)}}.Snapshot()
	}
	rec := &recordingExporter{}
	e := &filterExporter{next: rec, f: spanFilter{redactor: NewRedactor(nil), keepContent: true, maxValueLen: DefaultMaxValueLen}}
	if err := e.ExportSpans(context.Background(), []sdktrace.ReadOnlySpan{mk(long), mk(prefix), mk(long)}); err != nil {
		t.Fatal(err)
	}
	for i, s := range rec.spans {
		got := s.Attributes()[0].Value.AsString()
		if strings.Contains(got, "hunter2") {
			t.Errorf("span %d: the secret survived", i)
		}
		if i == 1 && got != prefix {
			t.Errorf("the prefix became %q", got[len(got)-40:])
		}
	}
}

type recordingExporter struct{ spans []sdktrace.ReadOnlySpan }

func (r *recordingExporter) ExportSpans(_ context.Context, s []sdktrace.ReadOnlySpan) error {
	r.spans = append(r.spans, s...)
	return nil
}
func (*recordingExporter) Shutdown(context.Context) error { return nil }

// TestFilterRedactsNestedValues: a secret inside a byte slice, a slice of
// values or a map (at any depth, in span, event and link attributes) is
// redacted like a plain string; other values are left as they are.
func TestFilterRedactsNestedValues(t *testing.T) {
	const secret = "token: hunter2hunter2"
	nested := attribute.MapValue(
		attribute.String("plain", "hello"),
		attribute.KeyValue{Key: "inner", Value: attribute.SliceValue(attribute.IntValue(3), attribute.StringValue("x "+secret))},
	)
	attrs := []attribute.KeyValue{
		attribute.ByteSlice("bytes", []byte("a "+secret)),
		{Key: "slice", Value: attribute.SliceValue(attribute.StringValue(secret), attribute.BoolValue(true))},
		{Key: "map", Value: nested},
		attribute.Int("n", 7),
	}
	span := tracetest.SpanStub{
		Name:       "s",
		Attributes: attrs,
		Events:     []sdktrace.Event{{Name: "e", Attributes: attrs}},
		Links:      []sdktrace.Link{{Attributes: attrs}},
	}.Snapshot()
	rec := &recordingExporter{}
	e := &filterExporter{next: rec, f: spanFilter{redactor: NewRedactor(nil), keepContent: true, maxValueLen: DefaultMaxValueLen}}
	if err := e.ExportSpans(context.Background(), []sdktrace.ReadOnlySpan{span}); err != nil {
		t.Fatal(err)
	}
	got := rec.spans[0]
	for where, kvs := range map[string][]attribute.KeyValue{"span": got.Attributes(), "event": got.Events()[0].Attributes, "link": got.Links()[0].Attributes} {
		if len(kvs) != len(attrs) {
			t.Fatalf("%s: %d attributes, want %d", where, len(kvs), len(attrs))
		}
		for i, kv := range kvs {
			if kv.Key != attrs[i].Key || kv.Value.Type() != attrs[i].Value.Type() {
				t.Errorf("%s: attribute %d is %s %s, want %s %s", where, i, kv.Key, kv.Value.Type(), attrs[i].Key, attrs[i].Value.Type())
			}
			text := kv.Value.String()
			if kv.Value.Type() == attribute.BYTESLICE {
				text = string(kv.Value.AsByteSlice()) // Emit shows base64
			}
			if strings.Contains(text, "hunter2") {
				t.Errorf("%s: %s kept the secret: %s", where, kv.Key, text)
			}
		}
		m := map[attribute.Key]attribute.Value{}
		for _, e := range kvs[2].Value.AsMap() {
			m[e.Key] = e.Value
		}
		if m["plain"].AsString() != "hello" || len(m["inner"].AsSlice()) != 2 || m["inner"].AsSlice()[0].AsInt64() != 3 {
			t.Errorf("%s: the map's other values changed: %s", where, kvs[2].Value.String())
		}
		if kvs[3].Value.AsInt64() != 7 {
			t.Errorf("%s: n = %s", where, kvs[3].Value.String())
		}
	}
	// The span the SDK handed over is not changed in place.
	if !strings.Contains(attrs[1].Value.String(), "hunter2") {
		t.Error("the original attribute was redacted in place")
	}
}
