package telemetry

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Content attributes hold prompt and response text, tool arguments and
// results (the GenAI semantic conventions' opt-in attributes). They are
// kept in the local store when telemetry_capture_content is on, and sent to
// a remote (OTLP) collector only when CO_CLI_TELEMETRY_EXPORT_CONTENT=true.
var contentKeys = map[attribute.Key]bool{
	"gen_ai.input.messages":      true,
	"gen_ai.output.messages":     true,
	"gen_ai.system_instructions": true,
	"gen_ai.tool.call.arguments": true,
	"gen_ai.tool.call.result":    true,
}

// IsContentKey reports whether an attribute holds conversation content.
func IsContentKey(k string) bool { return contentKeys[attribute.Key(k)] }

// isContentEvent: the older GenAI conventions carried content in events
// (gen_ai.user.message, gen_ai.choice, ...).
func isContentEvent(name string) bool {
	return strings.HasPrefix(name, "gen_ai.") && (strings.HasSuffix(name, ".message") || name == "gen_ai.choice")
}

// DefaultMaxValueLen caps one attribute value in the store (after
// redaction): a tool result of megabytes keeps its first 64 KiB.
const DefaultMaxValueLen = 64 << 10

// spanFilter is what happens to a span between the SDK and an exporter:
// secrets are redacted (names, attributes, events, links, status), content
// is dropped unless kept, long values are cut.
type spanFilter struct {
	redactor    *Redactor
	keepContent bool
	maxValueLen int
}

// filterExporter applies a spanFilter before the next exporter, in the
// batch processor's goroutine (never on the agent's).
type filterExporter struct {
	next sdktrace.SpanExporter
	f    spanFilter
}

func (e *filterExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	out := make([]sdktrace.ReadOnlySpan, len(spans))
	var m textMemo
	for i, s := range spans {
		out[i] = e.f.apply(s, &m)
	}
	return e.next.ExportSpans(ctx, out)
}

// textMemo remembers what a batch's long strings became: the agent records
// its answer on the chat span and on the turn's with the same string, which
// is then redacted once. Strings are compared by identity (data and
// length), never by content.
type textMemo struct {
	n    int
	keys [8]struct {
		p *byte
		n int
	}
	vals [8]string
}

// memoMin: shorter strings are redacted again (cheaper than looking up).
const memoMin = 1024

func (m *textMemo) get(s string) (string, bool) {
	if m == nil || len(s) < memoMin {
		return "", false
	}
	p := unsafe.StringData(s)
	for i := 0; i < m.n; i++ {
		if m.keys[i].p == p && m.keys[i].n == len(s) {
			return m.vals[i], true
		}
	}
	return "", false
}

func (m *textMemo) put(s, v string) {
	if m == nil || len(s) < memoMin || m.n == len(m.keys) {
		return
	}
	m.keys[m.n].p, m.keys[m.n].n, m.vals[m.n] = unsafe.StringData(s), len(s), v
	m.n++
}

func (e *filterExporter) Shutdown(ctx context.Context) error { return e.next.Shutdown(ctx) }

// filteredSpan is a ReadOnlySpan with its text replaced; everything else
// comes from the original.
type filteredSpan struct {
	sdktrace.ReadOnlySpan
	name   string
	attrs  []attribute.KeyValue
	events []sdktrace.Event
	links  []sdktrace.Link
	status sdktrace.Status
}

func (s *filteredSpan) Name() string                     { return s.name }
func (s *filteredSpan) Attributes() []attribute.KeyValue { return s.attrs }
func (s *filteredSpan) Events() []sdktrace.Event         { return s.events }
func (s *filteredSpan) Links() []sdktrace.Link           { return s.links }
func (s *filteredSpan) Status() sdktrace.Status          { return s.status }

func (f spanFilter) apply(s sdktrace.ReadOnlySpan, m *textMemo) sdktrace.ReadOnlySpan {
	out := &filteredSpan{ReadOnlySpan: s, name: f.text(s.Name(), nil), attrs: f.attrs(s.Attributes(), m), status: s.Status()}
	out.status.Description = f.text(out.status.Description, nil)
	if evs := s.Events(); len(evs) > 0 {
		out.events = make([]sdktrace.Event, 0, len(evs))
		for _, ev := range evs {
			if !f.keepContent && isContentEvent(ev.Name) {
				continue
			}
			ev.Name = f.text(ev.Name, nil)
			ev.Attributes = f.attrs(ev.Attributes, m)
			out.events = append(out.events, ev)
		}
	}
	if ls := s.Links(); len(ls) > 0 {
		out.links = make([]sdktrace.Link, len(ls))
		for i, l := range ls {
			l.Attributes = f.attrs(l.Attributes, m)
			out.links[i] = l
		}
	}
	return out
}

// attrs returns kvs redacted, content keys dropped unless kept. It copies
// only from the first attribute that changes (most never do).
func (f spanFilter) attrs(kvs []attribute.KeyValue, m *textMemo) []attribute.KeyValue {
	var out []attribute.KeyValue
	copied := false
	for i, kv := range kvs {
		drop, changed := !f.keepContent && contentKeys[kv.Key], false
		if !drop {
			kv, changed = f.value(kv, m)
		}
		if (drop || changed) && !copied {
			out, copied = append(make([]attribute.KeyValue, 0, len(kvs)), kvs[:i]...), true
		}
		if copied && !drop {
			out = append(out, kv)
		}
	}
	if !copied {
		return kvs
	}
	return out
}

// value redacts one attribute's text.
func (f spanFilter) value(kv attribute.KeyValue, m *textMemo) (attribute.KeyValue, bool) {
	if v, changed := f.redactValue(kv.Value, m); changed {
		return attribute.KeyValue{Key: kv.Key, Value: v}, true
	}
	return kv, false
}

// redactValue redacts the text in v: strings, string slices, bytes, and
// the strings nested in slices and maps of values at any depth.
func (f spanFilter) redactValue(v attribute.Value, m *textMemo) (attribute.Value, bool) {
	switch v.Type() {
	case attribute.STRING:
		if s := v.AsString(); s != "" {
			if r := f.text(s, m); r != s {
				return attribute.StringValue(r), true
			}
		}
	case attribute.STRINGSLICE:
		ss := v.AsStringSlice()
		changed := false
		for i, s := range ss {
			if r := f.text(s, m); r != s {
				ss[i], changed = r, true
			}
		}
		if changed {
			return attribute.StringSliceValue(ss), true
		}
	case attribute.BYTESLICE:
		if s := string(v.AsByteSlice()); s != "" {
			if r := f.text(s, m); r != s {
				return attribute.ByteSliceValue([]byte(r)), true
			}
		}
	case attribute.SLICE:
		vs := v.AsSlice()
		changed := false
		for i, e := range vs {
			if r, c := f.redactValue(e, m); c {
				vs[i], changed = r, true
			}
		}
		if changed {
			return attribute.SliceValue(vs...), true
		}
	case attribute.MAP:
		kvs := v.AsMap()
		changed := false
		for i, e := range kvs {
			if r, c := f.redactValue(e.Value, m); c {
				kvs[i].Value, changed = r, true
			}
		}
		if changed {
			return attribute.MapValue(kvs...), true
		}
	}
	return v, false
}

// text redacts s and cuts it to maxValueLen bytes (on a rune boundary);
// m, when set, remembers the result for the rest of the batch.
func (f spanFilter) text(s string, m *textMemo) string {
	if r, ok := m.get(s); ok {
		return r
	}
	r := f.redactor.String(s)
	if f.maxValueLen > 0 && len(r) > f.maxValueLen {
		cut := f.maxValueLen
		for cut > 0 && !utf8.RuneStart(r[cut]) {
			cut--
		}
		r = r[:cut] + fmt.Sprintf("…[%d bytes cut]", len(r)-cut)
	}
	m.put(s, r)
	return r
}
