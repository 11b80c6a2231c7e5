package telemetry

import (
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/encoding/protowire"
)

// The OTLP request is written by hand with protowire: the generated types
// (go.opentelemetry.io/proto/otlp) would link the protobuf reflection
// runtime and, through the collector package, gRPC. Field numbers are those
// of opentelemetry-proto: collector/trace/v1/trace_service.proto,
// trace/v1/trace.proto, common/v1/common.proto, resource/v1/resource.proto.
// The mapping from SDK spans follows otlptrace's tracetransform, which the
// tests check by decoding both with the generated types.

// ExportTraceServiceRequest, ResourceSpans, ScopeSpans.
const (
	reqResourceSpans = 1

	rsResource   = 1
	rsScopeSpans = 2
	rsSchemaURL  = 3

	ssScope     = 1
	ssSpans     = 2
	ssSchemaURL = 3
)

// Span, Span.Event, Span.Link, Status.
const (
	spanTraceID           = 1
	spanSpanID            = 2
	spanTraceState        = 3
	spanParentSpanID      = 4
	spanName              = 5
	spanKind              = 6
	spanStartTime         = 7
	spanEndTime           = 8
	spanAttributes        = 9
	spanDroppedAttributes = 10
	spanEvents            = 11
	spanDroppedEvents     = 12
	spanLinks             = 13
	spanDroppedLinks      = 14
	spanStatus            = 15
	spanFlags             = 16

	eventTime              = 1
	eventName              = 2
	eventAttributes        = 3
	eventDroppedAttributes = 4

	linkTraceID           = 1
	linkSpanID            = 2
	linkTraceState        = 3
	linkAttributes        = 4
	linkDroppedAttributes = 5
	linkFlags             = 6

	statusMessage = 2
	statusCode    = 3
)

// Resource, InstrumentationScope, KeyValue, AnyValue, ArrayValue,
// KeyValueList.
const (
	resourceAttributes = 1

	scopeName       = 1
	scopeVersion    = 2
	scopeAttributes = 3

	kvKey   = 1
	kvValue = 2

	anyString = 1
	anyBool   = 2
	anyInt    = 3
	anyDouble = 4
	anyArray  = 5
	anyKvlist = 6
	anyBytes  = 7

	listValues = 1 // ArrayValue.values and KeyValueList.values
)

// Status codes and span flags of trace.proto.
const (
	otlpStatusOK    = 1
	otlpStatusError = 2

	flagsContextHasIsRemote = 0x100
	flagsContextIsRemote    = 0x200
)

// A batch's spans grouped by resource, then by instrumentation scope, in
// the order each was first seen (otlptrace groups the same way; its
// resources come in map order).
type resourceGroup struct {
	res    *resource.Resource
	scopes []*scopeGroup
}

type scopeGroup struct {
	scope instrumentation.Scope
	spans []sdktrace.ReadOnlySpan
}

// groupSpans groups spans; nil ones are skipped.
func groupSpans(spans []sdktrace.ReadOnlySpan) []*resourceGroup {
	type scopeKey struct {
		res   attribute.Distinct
		scope instrumentation.Scope
	}
	var groups []*resourceGroup
	byRes := map[attribute.Distinct]*resourceGroup{}
	byScope := map[scopeKey]*scopeGroup{}
	for _, s := range spans {
		if s == nil {
			continue
		}
		res := s.Resource()
		rk := res.Equivalent()
		rg := byRes[rk]
		if rg == nil {
			rg = &resourceGroup{res: res}
			byRes[rk] = rg
			groups = append(groups, rg)
		}
		sk := scopeKey{rk, s.InstrumentationScope()}
		sg := byScope[sk]
		if sg == nil {
			sg = &scopeGroup{scope: sk.scope}
			byScope[sk] = sg
			rg.scopes = append(rg.scopes, sg)
		}
		sg.spans = append(sg.spans, s)
	}
	return groups
}

// appendTraceRequest appends the ExportTraceServiceRequest of spans to b.
func appendTraceRequest(b []byte, spans []sdktrace.ReadOnlySpan) []byte {
	for _, rg := range groupSpans(spans) {
		var m int
		b, m = openMessage(b, reqResourceSpans)
		if rg.res != nil {
			var r int
			b, r = openMessage(b, rsResource)
			b = appendIterator(b, resourceAttributes, rg.res.Iter())
			b = closeMessage(b, r)
		}
		for _, sg := range rg.scopes {
			b = appendScopeSpans(b, sg)
		}
		b = pbString(b, rsSchemaURL, rg.res.SchemaURL())
		b = closeMessage(b, m)
	}
	return b
}

func appendScopeSpans(b []byte, sg *scopeGroup) []byte {
	b, m := openMessage(b, rsScopeSpans)
	if sg.scope != (instrumentation.Scope{}) {
		var s int
		b, s = openMessage(b, ssScope)
		b = pbString(b, scopeName, sg.scope.Name)
		b = pbString(b, scopeVersion, sg.scope.Version)
		b = appendIterator(b, scopeAttributes, sg.scope.Attributes.Iter())
		b = closeMessage(b, s)
	}
	for _, s := range sg.spans {
		b = appendSpan(b, s)
	}
	b = pbString(b, ssSchemaURL, sg.scope.SchemaURL)
	return closeMessage(b, m)
}

func appendSpan(b []byte, s sdktrace.ReadOnlySpan) []byte {
	b, m := openMessage(b, ssSpans)
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b = pbBytes(b, spanTraceID, tid[:])
	b = pbBytes(b, spanSpanID, sid[:])
	b = pbString(b, spanTraceState, sc.TraceState().String())
	parent := s.Parent()
	if psid := parent.SpanID(); psid.IsValid() {
		b = pbBytes(b, spanParentSpanID, psid[:])
	}
	b = pbString(b, spanName, s.Name())
	b = pbUint(b, spanKind, uint64(otlpSpanKind(s.SpanKind())))
	b = pbFixed64(b, spanStartTime, unixNano(s.StartTime().UnixNano()))
	b = pbFixed64(b, spanEndTime, unixNano(s.EndTime().UnixNano()))
	b = appendKeyValues(b, spanAttributes, s.Attributes())
	b = pbUint(b, spanDroppedAttributes, uint64(clampUint32(s.DroppedAttributes())))
	for _, ev := range s.Events() {
		var e int
		b, e = openMessage(b, spanEvents)
		b = pbFixed64(b, eventTime, unixNano(ev.Time.UnixNano()))
		b = pbString(b, eventName, ev.Name)
		b = appendKeyValues(b, eventAttributes, ev.Attributes)
		b = pbUint(b, eventDroppedAttributes, uint64(clampUint32(ev.DroppedAttributeCount)))
		b = closeMessage(b, e)
	}
	b = pbUint(b, spanDroppedEvents, uint64(clampUint32(s.DroppedEvents())))
	for _, l := range s.Links() {
		var e int
		b, e = openMessage(b, spanLinks)
		ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		b = pbBytes(b, linkTraceID, ltid[:])
		b = pbBytes(b, linkSpanID, lsid[:])
		// otlptrace leaves the link's trace_state out; it belongs there.
		b = pbString(b, linkTraceState, l.SpanContext.TraceState().String())
		b = appendKeyValues(b, linkAttributes, l.Attributes)
		b = pbUint(b, linkDroppedAttributes, uint64(clampUint32(l.DroppedAttributeCount)))
		b = pbFixed32(b, linkFlags, spanFlagsOf(l.SpanContext.TraceFlags(), l.SpanContext))
		b = closeMessage(b, e)
	}
	b = pbUint(b, spanDroppedLinks, uint64(clampUint32(s.DroppedLinks())))
	// The status is always there, as otlptrace sends it.
	st := s.Status()
	var e int
	b, e = openMessage(b, spanStatus)
	b = pbString(b, statusMessage, st.Description)
	b = pbUint(b, statusCode, otlpStatusCode(st.Code))
	b = closeMessage(b, e)
	b = pbFixed32(b, spanFlags, spanFlagsOf(sc.TraceFlags(), parent))
	return closeMessage(b, m)
}

// spanFlagsOf is the W3C trace flags in the low byte, with the bit that
// says whether the parent (or the linked span) is remote is known, and that
// bit.
func spanFlagsOf(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	f := uint32(tf) | flagsContextHasIsRemote
	if parent.IsRemote() {
		f |= flagsContextIsRemote
	}
	return f
}

func otlpSpanKind(k trace.SpanKind) trace.SpanKind {
	// The SDK's kinds have the numbers of trace.proto's SpanKind.
	if k < trace.SpanKindUnspecified || k > trace.SpanKindConsumer {
		return trace.SpanKindUnspecified
	}
	return k
}

func otlpStatusCode(c codes.Code) uint64 {
	switch c {
	case codes.Ok:
		return otlpStatusOK
	case codes.Error:
		return otlpStatusError
	}
	return 0 // unset
}

func unixNano(ns int64) uint64 { return uint64(max(0, ns)) }

func clampUint32(v int) uint32 {
	if v < 0 {
		return 0
	}
	if int64(v) > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(v)
}

func appendIterator(b []byte, field protowire.Number, it attribute.Iterator) []byte {
	for it.Next() {
		b = appendKeyValue(b, field, it.Attribute())
	}
	return b
}

func appendKeyValues(b []byte, field protowire.Number, kvs []attribute.KeyValue) []byte {
	for _, kv := range kvs {
		b = appendKeyValue(b, field, kv)
	}
	return b
}

func appendKeyValue(b []byte, field protowire.Number, kv attribute.KeyValue) []byte {
	b, m := openMessage(b, field)
	b = pbString(b, kvKey, string(kv.Key))
	b = appendAnyValue(b, kvValue, kv.Value)
	return closeMessage(b, m)
}

// appendAnyValue writes v as an AnyValue. Every value is written, even an
// empty one: a oneof member has presence. Slices become an ArrayValue, maps
// a KeyValueList; an unknown type is the string "INVALID" (as otlptrace).
func appendAnyValue(b []byte, field protowire.Number, v attribute.Value) []byte {
	b, m := openMessage(b, field)
	switch v.Type() {
	case attribute.EMPTY:
	case attribute.BOOL:
		b = pbBool(b, anyBool, v.AsBool())
	case attribute.INT64:
		b = pbInt(b, anyInt, v.AsInt64())
	case attribute.FLOAT64:
		b = pbDouble(b, anyDouble, v.AsFloat64())
	case attribute.STRING:
		b = pbStringAlways(b, anyString, v.AsString())
	case attribute.BYTESLICE:
		b = pbBytesAlways(b, anyBytes, v.AsByteSlice())
	case attribute.BOOLSLICE:
		b = appendArray(b, v.AsBoolSlice(), func(b []byte, x bool) []byte { return pbBool(b, anyBool, x) })
	case attribute.INT64SLICE:
		b = appendArray(b, v.AsInt64Slice(), func(b []byte, x int64) []byte { return pbInt(b, anyInt, x) })
	case attribute.FLOAT64SLICE:
		b = appendArray(b, v.AsFloat64Slice(), func(b []byte, x float64) []byte { return pbDouble(b, anyDouble, x) })
	case attribute.STRINGSLICE:
		b = appendArray(b, v.AsStringSlice(), func(b []byte, x string) []byte { return pbStringAlways(b, anyString, x) })
	case attribute.SLICE:
		var a int
		b, a = openMessage(b, anyArray)
		for _, x := range v.AsSlice() {
			b = appendAnyValue(b, listValues, x)
		}
		b = closeMessage(b, a)
	case attribute.MAP:
		var a int
		b, a = openMessage(b, anyKvlist)
		b = appendKeyValues(b, listValues, v.AsMap())
		b = closeMessage(b, a)
	default:
		b = pbStringAlways(b, anyString, "INVALID")
	}
	return closeMessage(b, m)
}

// appendArray writes xs as an ArrayValue of AnyValues, each made by one.
func appendArray[T any](b []byte, xs []T, one func([]byte, T) []byte) []byte {
	b, a := openMessage(b, anyArray)
	for _, x := range xs {
		var e int
		b, e = openMessage(b, listValues)
		b = one(b, x)
		b = closeMessage(b, e)
	}
	return closeMessage(b, a)
}

// openMessage starts a length-delimited field whose length is not known
// yet: one byte is kept for it, enough for a message under 128 bytes;
// closeMessage writes the length and, for a longer message, moves its body
// to make room. start is where the body begins.
func openMessage(b []byte, field protowire.Number) (_ []byte, start int) {
	b = protowire.AppendTag(b, field, protowire.BytesType)
	b = append(b, 0)
	return b, len(b)
}

func closeMessage(b []byte, start int) []byte {
	n := len(b) - start
	size := protowire.SizeVarint(uint64(n))
	if size > 1 {
		for range size - 1 {
			b = append(b, 0)
		}
		copy(b[start-1+size:], b[start:start+n])
	}
	protowire.AppendVarint(b[:start-1], uint64(n))
	return b
}

// Scalar fields. Those of proto3 without presence are left out when zero;
// the pb...Always forms are for oneof members, which are written even then.

func pbString(b []byte, field protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	return pbStringAlways(b, field, s)
}

func pbStringAlways(b []byte, field protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, field, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func pbBytes(b []byte, field protowire.Number, p []byte) []byte {
	if len(p) == 0 {
		return b
	}
	return pbBytesAlways(b, field, p)
}

func pbBytesAlways(b []byte, field protowire.Number, p []byte) []byte {
	b = protowire.AppendTag(b, field, protowire.BytesType)
	return protowire.AppendBytes(b, p)
}

func pbUint(b []byte, field protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, field, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func pbFixed64(b []byte, field protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, field, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, v)
}

func pbFixed32(b []byte, field protowire.Number, v uint32) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, field, protowire.Fixed32Type)
	return protowire.AppendFixed32(b, v)
}

func pbBool(b []byte, field protowire.Number, v bool) []byte {
	b = protowire.AppendTag(b, field, protowire.VarintType)
	return protowire.AppendVarint(b, protowire.EncodeBool(v))
}

func pbInt(b []byte, field protowire.Number, v int64) []byte {
	b = protowire.AppendTag(b, field, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

func pbDouble(b []byte, field protowire.Number, v float64) []byte {
	b = protowire.AppendTag(b, field, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(v))
}
