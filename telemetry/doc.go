// Package telemetry makes co observable, locally: OpenTelemetry spans of
// every turn, LLM call and tool call go to a SQLite store in the data dir
// (and, when OTEL_EXPORTER_OTLP_* is set, to a collector), and to the live
// side panel through a Feed. The reader side (the span store, co tail, co
// traces, co logs) reads the same database without blocking the writer.
package telemetry
