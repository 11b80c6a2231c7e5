package telemetry

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/co-cli/co/lib/jsonstr"
)

// Exporter is an sdktrace.SpanExporter that writes spans to the spans table
// of a SQLite database, one transaction per batch. It opens the database on
// first use (or when Open is called), never in its constructor, so making
// one costs nothing at start-up.
//
// It is safe for concurrent use; the SDK's batch processor calls it from
// one goroutine.
//
// The writes go through one connection kept for the exporter, with its
// statements (BEGIN IMMEDIATE, the INSERT, COMMIT, ROLLBACK) prepared once
// on the driver's connection and run without a cancellable context: with
// one, database/sql starts a goroutine per transaction and go-sqlite3 runs
// every statement on a goroutine of its own, which cost more CPU than the
// INSERTs. ExportSpans checks its context between statements instead.
type Exporter struct {
	path string

	mu       sync.Mutex
	db       *sql.DB
	conn     *sql.Conn   // the writing connection, kept
	stmts    *writeStmts // prepared on conn
	openErr  error
	openedAt time.Time // of the last failed open, to retry now and then
	closed   bool
	buf      []byte                // the row's JSON columns, reused
	args     [13]driver.NamedValue // the INSERT's arguments, reused

	resMu   sync.Mutex
	resJSON map[*resource.Resource]string
}

// writeStmts are the exporter's statements on its driver connection.
type writeStmts struct {
	begin, insert, commit, rollback driver.Stmt
}

// maxKeptBuf: a row buffer larger than this is not kept between batches.
const maxKeptBuf = 1 << 20

const insertSQL = `INSERT OR IGNORE INTO spans
(id, trace_id, parent_id, name, kind, start_time, end_time, duration_ms, status_code, status_description, attributes, events, resource)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

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
	if err != nil {
		if ctx.Err() == nil {
			e.openErr, e.openedAt = err, time.Now()
		}
		return nil, err
	}
	e.db, e.openErr = db, nil
	return db, nil
}

// prepareLocked takes the writing connection and prepares its statements
// (again after the connection was lost).
func (e *Exporter) prepareLocked(ctx context.Context) error {
	if e.stmts != nil {
		return nil
	}
	db, err := e.openLocked(ctx)
	if err != nil {
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	st := &writeStmts{}
	err = conn.Raw(func(dc any) error {
		c := dc.(driver.Conn)
		for _, p := range []struct {
			stmt *driver.Stmt
			sql  string
		}{{&st.begin, "BEGIN IMMEDIATE"}, {&st.insert, insertSQL}, {&st.commit, "COMMIT"}, {&st.rollback, "ROLLBACK"}} {
			s, err := c.Prepare(p.sql)
			if err != nil {
				st.close()
				return err
			}
			*p.stmt = s
		}
		return nil
	})
	if err != nil {
		conn.Close()
		return fmt.Errorf("telemetry: %w", err)
	}
	e.conn, e.stmts = conn, st
	return nil
}

func (st *writeStmts) close() {
	for _, s := range []driver.Stmt{st.begin, st.insert, st.commit, st.rollback} {
		if s != nil {
			s.Close()
		}
	}
}

// dropConnLocked gives the writing connection back (after an error that
// may have left it unusable); the next batch takes one again.
func (e *Exporter) dropConnLocked() {
	if e.conn == nil {
		return
	}
	_ = e.conn.Raw(func(any) error { e.stmts.close(); return nil })
	e.conn.Close()
	e.conn, e.stmts = nil, nil
}

// execStmt runs a prepared statement; the background context keeps go-sqlite3
// on its synchronous path.
func execStmt(s driver.Stmt, args []driver.NamedValue) error {
	_, err := s.(driver.StmtExecContext).ExecContext(context.Background(), args)
	return err
}

// ExportSpans implements sdktrace.SpanExporter: the batch is written in one
// transaction, all or nothing.
func (e *Exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.prepareLocked(ctx); err != nil {
		return err
	}
	err := e.conn.Raw(func(any) error { return e.writeLocked(ctx, spans) })
	if err != nil {
		if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) {
			e.dropConnLocked()
		}
		return err
	}
	return nil
}

// writeLocked writes the spans in one transaction on the driver connection
// (inside conn.Raw).
func (e *Exporter) writeLocked(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st := e.stmts
	if err := execStmt(st.begin, nil); err != nil {
		// A transaction left open by a failed ROLLBACK would refuse every
		// later batch: end it and try once more.
		_ = execStmt(st.rollback, nil)
		if err := execStmt(st.begin, nil); err != nil {
			return fmt.Errorf("telemetry: %w", err)
		}
	}
	defer func() {
		if cap(e.buf) > maxKeptBuf {
			e.buf = nil // a huge batch's row; do not keep it
		}
	}()
	for _, s := range spans {
		if err := ctx.Err(); err != nil {
			_ = execStmt(st.rollback, nil)
			return err
		}
		if err := execStmt(st.insert, e.rowArgs(s)); err != nil {
			_ = execStmt(st.rollback, nil)
			return fmt.Errorf("telemetry: writing span %s: %w", s.Name(), err)
		}
	}
	if err := execStmt(st.commit, nil); err != nil {
		_ = execStmt(st.rollback, nil)
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
	e.dropConnLocked()
	err := e.db.Close()
	e.db = nil
	return err
}

// rowArgs are the INSERT's arguments for one span, in e.args. The ids and
// the JSON columns are written into e.buf and passed as strings that alias
// it: the driver binds text as SQLITE_TRANSIENT (SQLite copies it), so
// they are not used after the INSERT returns, and the buffer is reused for
// the next span.
func (e *Exporter) rowArgs(s sdktrace.ReadOnlySpan) []driver.NamedValue {
	sc := s.SpanContext()
	b := e.buf[:0]
	var ends [5]int // of the span id, trace id, parent id, attributes, events in b
	sid, tid := sc.SpanID(), sc.TraceID()
	b = hex.AppendEncode(b, sid[:])
	ends[0] = len(b)
	b = hex.AppendEncode(b, tid[:])
	ends[1] = len(b)
	p := s.Parent()
	if p.IsValid() {
		pid := p.SpanID()
		b = hex.AppendEncode(b, pid[:])
	}
	ends[2] = len(b)
	b = appendAttrs(b, s.Attributes())
	ends[3] = len(b)
	b = appendEvents(b, s.Events())
	ends[4] = len(b)
	e.buf = b
	var col [5]string
	for i, from := 0, 0; i < len(ends); from, i = ends[i], i+1 {
		col[i] = unsafe.String(unsafe.SliceData(b[from:]), ends[i]-from)
	}

	var parent, statusDesc driver.Value
	if p.IsValid() {
		parent = col[2]
	}
	st := s.Status()
	if st.Description != "" {
		statusDesc = st.Description
	}
	start, end := s.StartTime(), s.EndTime()
	for i, v := range [13]driver.Value{
		col[0], col[1], parent, s.Name(), kindName(s.SpanKind()),
		start.UnixNano(), end.UnixNano(), float64(end.Sub(start).Nanoseconds()) / 1e6,
		statusName(st.Code), statusDesc, col[3], col[4], e.resourceJSON(s.Resource()),
	} {
		e.args[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return e.args[:]
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
		b = jsonstr.Append(b, string(kv.Key))
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
		return jsonstr.Append(b, v.AsString())
	case attribute.BOOLSLICE:
		return appendSlice(b, v.AsBoolSlice(), strconv.AppendBool)
	case attribute.INT64SLICE:
		return appendSlice(b, v.AsInt64Slice(), func(b []byte, x int64) []byte { return strconv.AppendInt(b, x, 10) })
	case attribute.FLOAT64SLICE:
		return appendSlice(b, v.AsFloat64Slice(), appendFloat)
	case attribute.STRINGSLICE:
		return appendSlice(b, v.AsStringSlice(), jsonstr.Append)
	}
	return jsonstr.Append(b, v.String())
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

// storedEvent is how a span event is kept in the events column.
type storedEvent struct {
	Name       string         `json:"name"`
	Time       int64          `json:"time"` // nanoseconds since the epoch
	Attributes map[string]any `json:"attributes,omitempty"`
}

func appendEvents(b []byte, evs []sdktrace.Event) []byte {
	if len(evs) == 0 {
		return append(b, "[]"...)
	}
	b = append(b, '[')
	for i, ev := range evs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = jsonstr.Append(b, ev.Name)
		b = append(b, `,"time":`...)
		b = strconv.AppendInt(b, ev.Time.UnixNano(), 10)
		if len(ev.Attributes) > 0 {
			b = append(b, `,"attributes":`...)
			b = appendAttrs(b, ev.Attributes)
		}
		b = append(b, '}')
	}
	return append(b, ']')
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
