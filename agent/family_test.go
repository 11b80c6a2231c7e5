package agent_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
)

// The execute_tool span carries the tool's family (co.tool.family).
func TestToolSpanCarriesTheFamily(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() {
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	f := newFixture(t, func(c *agent.Config) { c.Tracer = tp.Tracer("test") })
	f.srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "e1", Name: "echo_text", Args: `{"text":"hi"}`}}}, llmtest.Reply{Text: "ok"})
	finished(t, run(t, context.Background(), f.ag, "echo", nil))
	found := false
	for _, s := range rec.Ended() {
		if s.Name() != "execute_tool echo_text" {
			continue
		}
		for _, kv := range s.Attributes() {
			if kv.Key == "co.tool.family" {
				found = kv.Value.AsString() == "agent_test"
			}
		}
	}
	if !found {
		t.Fatal("no co.tool.family on the execute_tool span")
	}
}
