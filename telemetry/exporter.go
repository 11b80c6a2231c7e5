package telemetry

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Exporter is an sdktrace.SpanExporter that writes spans to the spans table
// of a SQLite database, one transaction per batch. It opens the database on
// first use (or when Open is called), never in its constructor, so making
// one costs nothing at start-up.
//
// It is safe for concurrent use; the SDK's batch processor calls it from
// one goroutine.
type Exporter struct {
	path string

	mu       sync.Mutex
	db       *sql.DB
	insert   *sql.Stmt
	openErr  error
	openedAt time.Time // of the last failed open, to retry now and then
	closed   bool

	resMu   sync.Mutex
	resJSON map[*resource.Resource]string
}

// NewExporter returns an exporter for the database at path.
func NewExporter(path string) *Exporter {
	return &Exporter{path: path, resJSON: map[*resource.Resource]string{}}
}

// Path is the database file.
func (e *Exporter) Path() string { return e.path }

// errClosed is returned after Shutdown.
var errClosed = errors.New("telemetry: exporter is shut down")

// Open opens and migrates the database if that is not done yet. A failure
// is retried at most once every 10 seconds.
func (e *Exporter) Open(ctx context.Context) (*sql.DB, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.openLocked(ctx)
}

func (e *Exporter) openLocked(ctx context.Context) (*sql.DB, error) {
	if e.closed {
		return nil, errClosed
	}
	if e.db != nil {
		return e.db, nil
	}
	if e.openErr != nil && time.Since(e.openedAt) < 10*time.Second {
		return nil, e.openErr
	}
	db, err := openWriter(ctx, e.path)
	if err == nil {
		e.insert, err = db.PrepareContext(ctx, `INSERT OR IGNORE INTO spans
(id, trace_id, parent_id, name, kind, start_time, end_time, duration_ms, status_code, status_description, attributes, events, resource)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			db.Close()
			err = fmt.Errorf("telemetry: %w", err)
		}
	}
	if err != nil {
		if ctx.Err() == nil {
			e.openErr, e.openedAt = err, time.Now()
		}
		return nil, err
	}
	e.db, e.openErr = db, nil
	return db, nil
}

// ExportSpans implements sdktrace.SpanExporter: the batch is written in one
// transaction, all or nothing.
func (e *Exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	db, err := e.openLocked(ctx)
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	defer tx.Rollback()
	stmt := tx.StmtContext(ctx, e.insert)
	for _, s := range spans {
		r := e.row(s)
		if _, err := stmt.ExecContext(ctx, r.id, r.traceID, r.parentID, r.name, r.kind, r.start, r.end, r.durationMS,
			r.statusCode, r.statusDesc, r.attributes, r.events, r.resource); err != nil {
			return fmt.Errorf("telemetry: writing span %s: %w", r.name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	return nil
}

// Shutdown implements sdktrace.SpanExporter: it closes the database.
func (e *Exporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	if e.db == nil {
		return nil
	}
	e.insert.Close()
	err := e.db.Close()
	e.db = nil
	return err
}

// row is one spans row.
type row struct {
	id, traceID        string
	parentID           sql.NullString
	name, kind         string
	start, end         int64
	durationMS         float64
	statusCode         string
	statusDesc         sql.NullString
	attributes, events string
	resource           string
}

func (e *Exporter) row(s sdktrace.ReadOnlySpan) row {
	sc := s.SpanContext()
	r := row{
		id:         sc.SpanID().String(),
		traceID:    sc.TraceID().String(),
		name:       s.Name(),
		kind:       kindName(s.SpanKind()),
		start:      s.StartTime().UnixNano(),
		end:        s.EndTime().UnixNano(),
		statusCode: statusName(s.Status().Code),
		attributes: attrsJSON(s.Attributes()),
		events:     eventsJSON(s.Events()),
		resource:   e.resourceJSON(s.Resource()),
	}
	if p := s.Parent(); p.IsValid() {
		r.parentID = sql.NullString{String: p.SpanID().String(), Valid: true}
	}
	r.durationMS = float64(s.EndTime().Sub(s.StartTime()).Nanoseconds()) / 1e6
	if d := s.Status().Description; d != "" {
		r.statusDesc = sql.NullString{String: d, Valid: true}
	}
	return r
}

// resourceJSON caches the JSON of a resource (every span of a provider
// shares one).
func (e *Exporter) resourceJSON(res *resource.Resource) string {
	e.resMu.Lock()
	defer e.resMu.Unlock()
	if j, ok := e.resJSON[res]; ok {
		return j
	}
	var j string
	if res == nil {
		j = "{}"
	} else {
		j = attrsJSON(res.Attributes())
	}
	if len(e.resJSON) > 16 {
		clear(e.resJSON)
	}
	e.resJSON[res] = j
	return j
}

// kindName is the span kind as stored: INTERNAL, SERVER, CLIENT, PRODUCER,
// CONSUMER (the OTLP names without the prefix).
func kindName(k trace.SpanKind) string {
	switch k {
	case trace.SpanKindServer:
		return "SERVER"
	case trace.SpanKindClient:
		return "CLIENT"
	case trace.SpanKindProducer:
		return "PRODUCER"
	case trace.SpanKindConsumer:
		return "CONSUMER"
	default:
		return "INTERNAL"
	}
}

// statusName is the status code as stored: UNSET, OK or ERROR.
func statusName(c codes.Code) string {
	switch c {
	case codes.Error:
		return "ERROR"
	case codes.Ok:
		return "OK"
	default:
		return "UNSET"
	}
}

// attrsJSON is a JSON object of the attributes, keeping their types
// (strings, numbers, booleans and arrays of them). Written by hand: it is
// most of the exporter's work.
func attrsJSON(kvs []attribute.KeyValue) string {
	if len(kvs) == 0 {
		return "{}"
	}
	b := make([]byte, 0, 64*len(kvs))
	return string(appendAttrs(b, kvs))
}

func appendAttrs(b []byte, kvs []attribute.KeyValue) []byte {
	b = append(b, '{')
	for i, kv := range kvs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, string(kv.Key))
		b = append(b, ':')
		b = appendValue(b, kv.Value)
	}
	return append(b, '}')
}

func appendValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.BOOL:
		return strconv.AppendBool(b, v.AsBool())
	case attribute.INT64:
		return strconv.AppendInt(b, v.AsInt64(), 10)
	case attribute.FLOAT64:
		return appendFloat(b, v.AsFloat64())
	case attribute.STRING:
		return appendString(b, v.AsString())
	case attribute.BOOLSLICE:
		return appendSlice(b, v.AsBoolSlice(), strconv.AppendBool)
	case attribute.INT64SLICE:
		return appendSlice(b, v.AsInt64Slice(), func(b []byte, x int64) []byte { return strconv.AppendInt(b, x, 10) })
	case attribute.FLOAT64SLICE:
		return appendSlice(b, v.AsFloat64Slice(), appendFloat)
	case attribute.STRINGSLICE:
		return appendSlice(b, v.AsStringSlice(), appendString)
	}
	return appendString(b, v.Emit())
}

func appendSlice[T any](b []byte, xs []T, f func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = f(b, x)
	}
	return append(b, ']')
}

// appendFloat writes a JSON number (NaN and infinities, which JSON lacks,
// as null).
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string; invalid UTF-8 becomes U+FFFD.
// <, > and & are left as they are (a text search finds them).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\\ufffd"...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 are valid JSON but end lines in JavaScript.
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// storedEvent is how a span event is kept in the events column.
type storedEvent struct {
	Name       string         `json:"name"`
	Time       int64          `json:"time"` // nanoseconds since the epoch
	Attributes map[string]any `json:"attributes,omitempty"`
}

func eventsJSON(evs []sdktrace.Event) string {
	if len(evs) == 0 {
		return "[]"
	}
	b := make([]byte, 0, 128*len(evs))
	b = append(b, '[')
	for i, ev := range evs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, ev.Name)
		b = append(b, `,"time":`...)
		b = strconv.AppendInt(b, ev.Time.UnixNano(), 10)
		if len(ev.Attributes) > 0 {
			b = append(b, `,"attributes":`...)
			b = appendAttrs(b, ev.Attributes)
		}
		b = append(b, '}')
	}
	return string(append(b, ']'))
}

// marshal is JSON without HTML escaping (<, >, & stay as they are, so a
// text search finds them), without the trailing newline.
func marshal(v any, fallback string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fallback
	}
	return strings.TrimSuffix(b.String(), "\n")
}
