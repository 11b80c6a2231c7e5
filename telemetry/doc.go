// Package telemetry makes co observable, locally: OpenTelemetry spans of
// every turn, LLM call and tool call go to a SQLite store in the data dir
// (and, when OTEL_EXPORTER_OTLP_* is set, to a collector), and to the live
// side panel through a Feed. The reader side (the span store, co tail, co
// traces, co logs) reads the same database without blocking the writer.
//
// # Writing
//
// Setup builds a session's TracerProvider. Its processors are the Feed
// (synchronous, in-process, for the side panel) and one processor per
// exporter: the SDK's BatchSpanProcessor, with co's count of the spans a
// full queue drops (processor.go). An ended span waits in its queue; the
// SDK's goroutine takes what waits every BatchTimeout (500 ms), or at once
// when a batch is full, passes it through a filter (secrets
// redacted by value and by shape, content dropped unless kept, long values
// cut) and hands it to the exporter: the SQLite Exporter writes one
// transaction per batch; the OTLP exporter (otlp.go: OpenTelemetry's
// otlptrace over co's HTTP client, otlpclient.go, configured from co's
// one reading of the variables, following no redirect) posts one
// OTLP/HTTP protobuf request per batch.
// Nothing on the agent's goroutine waits for I/O: a span's End is a
// channel send, and a full queue drops spans rather than block.
//
// The store is opened, created or migrated (telemetry_schema.version) and
// pruned (Retention) in a background goroutine started by Setup, never on
// the start-up path; the first export waits for the opening. WAL, a busy
// timeout and BEGIN IMMEDIATE let several co processes write while any
// number of readers read; a killed writer loses at most its unflushed
// batch and never corrupts the file.
//
// # Reading
//
// Store opens the database read-only (query_only) for the viewers: Tail
// (co tail), WriteTraceHTML (co traces) and Dashboard (co logs). The
// viewers' pages are embedded (web/) and load nothing from the network.
//
// # Concurrency
//
// Tracing, Feed and Store are safe for concurrent use. Feed subscribers get
// events on a buffered channel; a full one misses updates, never blocks.
package telemetry
