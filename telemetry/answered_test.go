package telemetry

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

func TestLastAnswered(t *testing.T) {
	path := DBPath(t.TempDir())
	st := OpenStore(path)
	defer st.Close()
	if _, ok, err := st.LastAnswered(context.Background(), "gemini", "gemini-flash-latest"); ok || err != nil {
		t.Fatalf("no store yet: ok %v, err %v", ok, err)
	}

	tr := setupT(t, Options{DBPath: path})
	chat := func(provider, request, response string) {
		attrs := []attribute.KeyValue{attribute.String("gen_ai.operation.name", "chat"),
			attribute.String("gen_ai.provider.name", provider), attribute.String("gen_ai.request.model", request)}
		if response != "" {
			attrs = append(attrs, attribute.String("gen_ai.response.model", response))
		}
		_, sp := tr.Tracer().Start(context.Background(), "chat "+request, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
		sp.End()
	}
	before := time.Now()
	chat("gemini", "gemini-flash-latest", "gemini-3.0-flash")
	chat("gemini", "gemini-flash-latest", "gemini-3.5-flash")
	chat("gemini", "gemini-flash-latest", "")                 // failed: nothing came back
	chat("openai", "gemini-flash-latest", "other-provider")   // another provider
	chat("gemini", "gemini-pro-latest", "gemini-3.5-pro")     // another model
	if err := tr.Shutdown(context.Background()); err != nil { // flushes the spans
		t.Fatal(err)
	}

	a, ok, err := st.LastAnswered(context.Background(), "gemini", "gemini-flash-latest")
	if err != nil || !ok {
		t.Fatalf("ok %v, err %v", ok, err)
	}
	if a.Model != "gemini-3.5-flash" {
		t.Errorf("model %q, want the most recent answer, gemini-3.5-flash", a.Model)
	}
	if a.At.Before(before.Add(-time.Second)) || a.At.After(time.Now()) {
		t.Errorf("at %v, want about %v", a.At, before)
	}
	if _, ok, _ := st.LastAnswered(context.Background(), "ollama", "gemini-flash-latest"); ok {
		t.Error("found an answer for a provider that never answered")
	}
}
