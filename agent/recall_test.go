package agent_test

import (
	"context"
	"slices"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
)

// Config.Recall's block goes before the user's message in every request of
// that turn (a tool call's follow-up too), never into the history or a
// later turn's requests; the turn says what it recalled (an event and the
// invoke_agent span's co.memory.recalled); an empty recall adds nothing.
func TestRecallBlockIsForItsTurnOnly(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() {
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	f := newFixture(t, func(c *agent.Config) {
		c.Tracer = tp.Tracer("test")
		c.Recall = func(_ context.Context, prompt string) (string, []agent.Recalled, string) {
			if prompt != "first" {
				return "", nil, ""
			}
			return "<memories>\n- [m1] fact\n</memories>", []agent.Recalled{{ID: "m1", Text: "fact"}}, ""
		}
	})
	f.srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "e1", Name: "echo_text", Args: `{"text":"hi"}`}}}, llmtest.Reply{Text: "ok"}, llmtest.Reply{Text: "two"})
	evs := run(t, context.Background(), f.ag, "first", nil)
	finished(t, evs)
	var got []agent.Recalled
	for _, ev := range evs {
		if r, ok := ev.(agent.MemoryRecalled); ok {
			got = r.Memories
		}
	}
	if len(got) != 1 || got[0].ID != "m1" {
		t.Fatalf("MemoryRecalled = %+v", got)
	}
	want := "<memories>\n- [m1] fact\n</memories>\n\nfirst"
	for i, r := range f.srv.Requests() {
		if u := r.LastUserMessage(); u != want {
			t.Fatalf("request %d's user message %q", i, u)
		}
	}
	if h := f.ag.History(); h[0].Content != "first" {
		t.Fatalf("the history holds %q", h[0].Content)
	}
	finished(t, run(t, context.Background(), f.ag, "second", nil))
	reqs := f.srv.Requests()
	for _, m := range reqs[len(reqs)-1].Messages() {
		if m.Role == "user" && m.Text() != "first" && m.Text() != "second" {
			t.Fatalf("a later turn's request has %q", m.Text())
		}
	}
	var recalled [][]string
	for _, s := range rec.Ended() {
		if s.Name() != "invoke_agent" {
			continue
		}
		var ids []string
		for _, kv := range s.Attributes() {
			if kv.Key == "co.memory.recalled" {
				ids = kv.Value.AsStringSlice()
			}
		}
		recalled = append(recalled, ids)
	}
	if len(recalled) != 2 || !slices.Equal(recalled[0], []string{"m1"}) || recalled[1] != nil {
		t.Fatalf("co.memory.recalled per turn = %q", recalled)
	}
}
